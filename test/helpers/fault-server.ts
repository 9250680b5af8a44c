// A programmable faulty peer on loopback, for a replication target or a webhook receiver alike: a raw TCP server
// that either passes every connection through to a healthy upstream (a Store target, s3rver, a WebhookReceiver) or
// misbehaves: hangs, resets, trickles its answer, or answers with garbage. The mode is read when a connection
// sends its first byte, and entering a fault mode cuts the connections passed through so far, so a client's
// keep-alive sockets cannot dodge the fault.

import { randomBytes } from 'node:crypto';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';

export type FaultMode =
  /** Pipe to the upstream, untouched. */
  | { kind: 'pass' }
  /** Accept and read everything, never answer. */
  | { kind: 'hang' }
  /** Reset the connection (TCP RST) as soon as the request starts to arrive. */
  | { kind: 'reset' }
  /** Pass the request to the upstream, but hand its answer back one byte every `byteEveryMs`. */
  | { kind: 'trickle'; byteEveryMs: number }
  /** After the request: bytes that are not HTTP, then close. */
  | { kind: 'garbage' }
  /** After the request: an HTTP answer with `status` whose body never ends (sent as fast as the client reads). */
  | { kind: 'huge-body'; status: number }
  /** After the request: an HTTP answer with `status` and a body that is not S3's XML (HTML, or broken XML). */
  | { kind: 'bad-body'; status: number; body: 'html' | 'broken-xml' };

export interface FaultStats {
  /** Connections that sent at least one byte. */
  requests: number;
  /** Connections currently open. */
  open: number;
  /** Body bytes written by huge-body answers. */
  hugeBytesSent: number;
}

const HTML = '<!DOCTYPE html><html><head><title>Gateway</title></head><body><h1>It works!</h1></body></html>';
const BROKEN_XML = '<?xml version="1.0" encoding="UTF-8"?><Error><Code>InternalError</Code><Message>we are bro';

/** Whether `data` holds a whole HTTP/1.1 request (headers, then Content-Length bytes or a chunked body's end). */
function requestComplete(data: Buffer): boolean {
  const end = data.indexOf('\r\n\r\n');
  if (end < 0) return false;
  const head = data.subarray(0, end).toString('latin1').toLowerCase();
  const length = /\r\ncontent-length:\s*(\d+)/.exec(head)?.[1];
  if (length !== undefined) return data.length - end - 4 >= Number(length);
  if (/\r\ntransfer-encoding:[^\r]*chunked/.test(head)) return data.subarray(end + 4).includes('0\r\n\r\n');
  return true;
}

export class FaultServer {
  private mode: FaultMode = { kind: 'pass' };
  private readonly sockets = new Set<Socket>();
  /** Connections piped to the upstream: cut when a fault mode begins. */
  private readonly passing = new Set<Socket>();
  private readonly timers = new Set<NodeJS.Timeout>();
  readonly stats: FaultStats = { requests: 0, open: 0, hugeBytesSent: 0 };

  private constructor(
    private readonly server: Server,
    readonly port: number,
    private readonly upstreamPort: number | undefined,
  ) {}

  /** Listens on 127.0.0.1; `upstream` is where 'pass' and 'trickle' send requests (a loopback URL or port). */
  static async start(upstream?: string | number): Promise<FaultServer> {
    const upstreamPort =
      upstream === undefined ? undefined : typeof upstream === 'number' ? upstream : Number(new URL(upstream).port);
    let self: FaultServer | undefined;
    const server = createServer((socket) => self?.accept(socket));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    self = new FaultServer(server, (server.address() as AddressInfo).port, upstreamPort);
    return self;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** `127.0.0.1:<port>`: what must never show up in a log line or a status body. */
  get hostPort(): string {
    return `127.0.0.1:${this.port}`;
  }

  /**
   * Switches the behaviour of new connections; a fault mode also cuts the connections passed through so far (and
   * waits a moment, so a client's pool sees them closed rather than failing its next request on a dead socket).
   */
  async setMode(mode: FaultMode): Promise<void> {
    this.mode = mode;
    if (mode.kind === 'pass' || this.passing.size === 0) return;
    for (const s of this.passing) s.destroy();
    await new Promise((resolve) => setTimeout(resolve, 50));
  }

  async close(): Promise<void> {
    for (const t of this.timers) clearInterval(t);
    for (const s of this.sockets) s.destroy();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private accept(socket: Socket): void {
    this.sockets.add(socket);
    this.stats.open++;
    socket.on('error', () => undefined);
    socket.once('close', () => {
      this.sockets.delete(socket);
      this.passing.delete(socket);
      this.stats.open--;
    });
    socket.once('data', (first: Buffer) => {
      this.stats.requests++;
      socket.pause();
      this.serve(socket, first, this.mode);
    });
  }

  private serve(socket: Socket, first: Buffer, mode: FaultMode): void {
    switch (mode.kind) {
      case 'pass':
      case 'trickle':
        this.pipe(socket, first, mode.kind === 'trickle' ? mode.byteEveryMs : 0);
        return;
      case 'hang':
        socket.resume();
        return;
      case 'reset':
        socket.resetAndDestroy();
        return;
      default:
        this.afterRequest(socket, first, () => this.answer(socket, mode));
    }
  }

  /** Calls `then` once the whole request has arrived (the rest of the connection's bytes are read and dropped). */
  private afterRequest(socket: Socket, first: Buffer, then: () => void): void {
    let data = first;
    let done = false;
    const check = (): void => {
      if (!done && requestComplete(data)) {
        done = true;
        then();
      }
    };
    socket.on('data', (chunk: Buffer) => {
      if (!done) data = Buffer.concat([data, chunk]);
      check();
    });
    socket.resume();
    check();
  }

  private answer(socket: Socket, mode: Exclude<FaultMode, { kind: 'pass' | 'trickle' | 'hang' | 'reset' }>): void {
    if (mode.kind === 'garbage') {
      socket.end(Buffer.concat([Buffer.from('SSH-2.0-OpenSSH_9.2\r\n\x00\x01'), randomBytes(4096)]));
      return;
    }
    if (mode.kind === 'bad-body') {
      const body = mode.body === 'html' ? HTML : BROKEN_XML;
      const type = mode.body === 'html' ? 'text/html' : 'application/xml';
      socket.end(
        `HTTP/1.1 ${mode.status} Whatever\r\nContent-Type: ${type}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
      return;
    }
    // huge-body: a declared 10 GiB, written as fast as the peer takes it, until the peer gives up.
    socket.write(
      `HTTP/1.1 ${mode.status} OK\r\nContent-Type: application/xml\r\nContent-Length: ${10 * 1024 ** 3}\r\n\r\n`,
    );
    const chunk = Buffer.alloc(64 * 1024, 0x3c);
    const pump = (): void => {
      while (!socket.destroyed && socket.writable) {
        this.stats.hugeBytesSent += chunk.length;
        if (!socket.write(chunk)) {
          socket.once('drain', pump);
          return;
        }
      }
    };
    pump();
  }

  /** Pipes to the upstream; with `byteEveryMs` > 0 the upstream's answer comes back one byte at a time. */
  private pipe(socket: Socket, first: Buffer, byteEveryMs: number): void {
    if (this.upstreamPort === undefined) {
      socket.destroy();
      return;
    }
    const up = connect(this.upstreamPort, '127.0.0.1');
    up.on('error', () => socket.destroy());
    socket.on('close', () => up.destroy());
    up.on('close', () => {
      if (byteEveryMs === 0) socket.destroy();
    });
    up.write(first);
    socket.pipe(up);
    socket.resume();
    if (byteEveryMs === 0) {
      this.passing.add(socket);
      up.pipe(socket);
      return;
    }
    let pending = Buffer.alloc(0);
    up.on('data', (d: Buffer) => {
      pending = Buffer.concat([pending, d]);
    });
    const timer = setInterval(() => {
      if (socket.destroyed) {
        clearInterval(timer);
        this.timers.delete(timer);
        return;
      }
      if (pending.length > 0) {
        socket.write(pending.subarray(0, 1));
        pending = pending.subarray(1);
      }
    }, byteEveryMs);
    this.timers.add(timer);
  }
}
