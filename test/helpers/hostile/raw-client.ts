// A raw HTTP/1.1 client over node:net for the hostile harness: it sends exactly the bytes it is given (any header,
// any Content-Length) and can misbehave while it does: cut the body at a byte and go away, add garbage after it,
// trickle it, or stop reading the answer. It always keeps reading what the server answers meanwhile.

import { connect, type Socket } from 'node:net';
import { ResponseParser, type ParsedResponse } from './http-response-parser.js';

/** One request as it goes on the wire. Header pairs may repeat (a duplicated Content-Length). */
export interface WireRequest {
  method: string;
  /** Path and query as sent. */
  path: string;
  headers: [string, string][];
  body: Buffer;
}

/** How the client misbehaves while it sends and reads (nothing set: a well-behaved client). */
export interface Delivery {
  /** Send only this many body bytes, then go away: `reset` destroys the socket, `fin` half-closes and waits. */
  cut?: { at: number; how: 'reset' | 'fin' };
  /** Bytes sent after the body, on the same connection (what a Content-Length shorter than the body leaves). */
  garbageAfter?: Buffer;
  /** The body in pieces of `bytes`, one every `everyMs`. */
  trickle?: { bytes: number; everyMs: number };
  /** Read this many body bytes of the answer, then stop reading and destroy the socket after `holdMs`. */
  stopReading?: { afterBytes: number; holdMs: number };
  /** The whole exchange's limit: the socket is destroyed and the outcome is 'timeout' after it. */
  timeoutMs: number;
}

export type Failure = 'closed' | 'timeout' | 'stopped' | 'cut' | `error ${string}`;

/** What came back: a complete response, or how the exchange ended without one. */
export interface WireResult {
  response: ParsedResponse | undefined;
  /** Why there is no complete response. */
  failure: Failure | undefined;
  /** Response body bytes received (also when incomplete). */
  bodyBytes: number;
  ms: number;
  /** On a reused keep-alive connection: the exchange before this one on it (for failure messages). */
  reusedAfter: string | undefined;
}

/** The request line and headers, latin1 (header garbage goes out byte for byte). */
export function headOf(req: WireRequest): Buffer {
  const lines = [`${req.method} ${req.path} HTTP/1.1`, ...req.headers.map(([k, v]) => `${k}: ${v}`)];
  return Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');
}

const isClean = (d: Delivery): boolean => !d.cut && !d.garbageAfter && !d.trickle && !d.stopReading;

/**
 * A worker's connection: well-behaved requests reuse one keep-alive socket (as SDKs do, and so that a run does not
 * exhaust the ephemeral ports); a misbehaving request always gets a fresh socket of its own, closed after it.
 */
export class RawClient {
  private idle: Socket | undefined;
  /** What the idle socket carried last: `METHOD path -> status`. */
  private idleHistory: string | undefined;

  constructor(private readonly port: number) {}

  /** Sends `req` as `delivery` says and reads the answer. Never rejects: failures are in the result. */
  exchange(req: WireRequest, delivery: Delivery): Promise<WireResult> {
    const clean = isClean(delivery);
    const reusedAfter = this.idleHistory;
    const reused = clean ? this.takeIdle() : undefined;
    const socket = reused ?? connect({ port: this.port, host: '127.0.0.1', noDelay: true });
    return new Promise<WireResult>((resolve) => {
      const started = performance.now();
      const parser = new ResponseParser(req.method === 'HEAD');
      let settled = false;
      let bodySent = false;
      const timers: NodeJS.Timeout[] = [];
      const finish = (failure: Failure | undefined): void => {
        if (settled) return;
        settled = true;
        for (const t of timers) clearTimeout(t);
        socket.removeAllListeners('data');
        socket.removeAllListeners('end');
        socket.removeAllListeners('close');
        const keep =
          failure === undefined &&
          clean &&
          bodySent &&
          parser.leftover.length === 0 &&
          !/close/i.test(parser.response?.headers['connection'] ?? '');
        if (keep)
          this.giveIdle(
            socket,
            `${req.method} ${req.path.slice(0, 100)} -> ${parser.response?.status} (${req.body.length} B sent)`,
          );
        else socket.destroy();
        resolve({
          response: failure === undefined ? parser.response : undefined,
          failure,
          bodyBytes: parser.bodyBytes,
          ms: performance.now() - started,
          reusedAfter: reused ? reusedAfter : undefined,
        });
      };
      socket.on('error', (err: NodeJS.ErrnoException) => {
        // The answer may have come in full before the server reset the connection (an early error on an upload).
        if (parser.done) finish(undefined);
        else finish(`error ${err.code ?? err.message}`);
      });
      socket.on('data', (chunk: Buffer) => {
        parser.feed(chunk);
        const stop = delivery.stopReading;
        if (stop && !parser.done && parser.bodyBytes >= stop.afterBytes) {
          socket.pause();
          socket.removeAllListeners('data');
          timers.push(setTimeout(() => finish('stopped'), stop.holdMs));
          return;
        }
        if (parser.done) finish(undefined);
      });
      socket.on('end', () => {
        parser.end();
        if (parser.done) finish(undefined);
      });
      socket.on('close', () => {
        parser.end();
        finish(parser.done ? undefined : delivery.cut ? 'cut' : 'closed');
      });
      timers.push(setTimeout(() => finish('timeout'), delivery.timeoutMs));
      void send(socket, req, { delivery, timers }).then((sent) => {
        bodySent = sent;
        if (!sent && delivery.cut?.how === 'reset') finish('cut');
      });
    });
  }

  /** Closes the idle keep-alive socket, if any (before counting the server's descriptors). */
  close(): void {
    this.idle?.destroy();
    this.idle = undefined;
  }

  private takeIdle(): Socket | undefined {
    const socket = this.idle;
    this.idle = undefined;
    this.idleHistory = undefined;
    if (!socket || socket.destroyed || socket.readableEnded) return undefined;
    socket.removeAllListeners('close');
    socket.removeAllListeners('end');
    socket.removeAllListeners('error');
    return socket;
  }

  private giveIdle(socket: Socket, history: string): void {
    this.idle?.destroy();
    this.idleHistory = history;
    socket.removeAllListeners('error');
    socket.on('error', () => undefined);
    socket.once('end', () => socket.destroy());
    this.idle = socket;
  }
}

/** Writes the request as `delivery` says. Resolves true once the whole body (and any garbage) is written. */
async function send(
  socket: Socket,
  req: WireRequest,
  opts: { delivery: Delivery; timers: NodeJS.Timeout[] },
): Promise<boolean> {
  const { delivery, timers } = opts;
  const write = (data: Buffer): Promise<boolean> =>
    new Promise((resolve) => {
      if (socket.destroyed) return resolve(false);
      socket.write(data, (err) => resolve(!err));
    });
  const pause = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      timers.push(setTimeout(resolve, ms));
    });
  const body = delivery.cut ? req.body.subarray(0, delivery.cut.at) : req.body;
  if (!(await write(headOf(req)))) return false;
  if (delivery.trickle) {
    for (let at = 0; at < body.length; at += delivery.trickle.bytes) {
      if (at > 0) await pause(delivery.trickle.everyMs);
      if (!(await write(body.subarray(at, at + delivery.trickle.bytes)))) return false;
    }
  } else if (body.length > 0 && !(await write(body))) {
    return false;
  }
  if (delivery.cut) {
    if (delivery.cut.how === 'fin') socket.end();
    else socket.destroy();
    return false;
  }
  if (delivery.garbageAfter && !(await write(delivery.garbageAfter))) return false;
  return true;
}
