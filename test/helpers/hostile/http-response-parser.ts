// Reads one HTTP/1.1 response off a raw byte stream, incrementally: the status line and headers, then a body framed
// by Content-Length, chunked transfer coding, or the end of the connection. For the raw client (raw-client.ts), which
// must keep reading its answer while it misbehaves on the sending side.

/** A response as far as it was read. */
export interface ParsedResponse {
  status: number;
  /** Names lower-cased; a repeated header's values joined with ', '. */
  headers: Record<string, string>;
  body: Buffer;
}

const CRLF = Buffer.from('\r\n');
const HEAD_END = Buffer.from('\r\n\r\n');

/**
 * Feed it bytes as they arrive; `done` turns true once the whole response is read (`leftover` then holds bytes past
 * its end). `noBody`: the request was a HEAD, whose answer has headers only.
 */
export class ResponseParser {
  response: ParsedResponse | undefined;
  done = false;
  leftover: Buffer = Buffer.alloc(0);
  private buffer: Buffer = Buffer.alloc(0);
  private bodyParts: Buffer[] = [];
  private bodyLength = 0;
  private framing: { kind: 'length'; remaining: number } | { kind: 'chunked' } | { kind: 'close' } | undefined;

  constructor(private readonly noBody: boolean) {}

  /** Bytes of the response body received so far. */
  get bodyBytes(): number {
    return this.bodyLength;
  }

  feed(chunk: Buffer): void {
    if (this.done) {
      this.leftover = Buffer.concat([this.leftover, chunk]);
      return;
    }
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    if (this.framing === undefined && !this.readHead()) return;
    this.readBody();
  }

  /** The connection ended: a body framed by the close is complete now; any other unfinished response is not. */
  end(): void {
    if (!this.done && this.framing?.kind === 'close') this.finish(Buffer.alloc(0));
  }

  private readHead(): boolean {
    for (;;) {
      const at = this.buffer.indexOf(HEAD_END);
      if (at < 0) return false;
      const lines = this.buffer.subarray(0, at).toString('latin1').split('\r\n');
      this.buffer = this.buffer.subarray(at + 4);
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? '')?.[1] ?? 0);
      // An interim 1xx answer (100 Continue) is followed by the real one.
      if (status >= 100 && status < 200) continue;
      const headers: Record<string, string> = {};
      for (const line of lines.slice(1)) {
        const colon = line.indexOf(':');
        if (colon <= 0) continue;
        const name = line.slice(0, colon).trim().toLowerCase();
        const value = line.slice(colon + 1).trim();
        headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
      }
      this.response = { status, headers, body: Buffer.alloc(0) };
      if (this.noBody || status === 204 || status === 304) this.framing = { kind: 'length', remaining: 0 };
      else if (/chunked/i.test(headers['transfer-encoding'] ?? '')) this.framing = { kind: 'chunked' };
      else if (headers['content-length'] !== undefined)
        this.framing = { kind: 'length', remaining: Number(headers['content-length']) };
      else this.framing = { kind: 'close' };
      return true;
    }
  }

  private readBody(): void {
    const framing = this.framing;
    if (framing === undefined) return;
    if (framing.kind === 'close') {
      this.take(this.buffer.length);
      return;
    }
    if (framing.kind === 'length') {
      const n = Math.min(framing.remaining, this.buffer.length);
      this.take(n);
      framing.remaining -= n;
      if (framing.remaining === 0) this.finish(this.buffer);
      return;
    }
    for (;;) {
      const lineEnd = this.buffer.indexOf(CRLF);
      if (lineEnd < 0) return;
      const size = parseInt(this.buffer.subarray(0, lineEnd).toString('latin1'), 16);
      if (!Number.isFinite(size)) throw new Error('malformed chunked response');
      if (size === 0) {
        // The last chunk, then (no trailers from this server) the empty line.
        const end = this.buffer.indexOf(HEAD_END, lineEnd);
        if (end < 0) return;
        this.finish(this.buffer.subarray(end + 4));
        return;
      }
      if (this.buffer.length < lineEnd + 2 + size + 2) return;
      this.buffer = this.buffer.subarray(lineEnd + 2);
      this.take(size);
      this.buffer = this.buffer.subarray(2);
    }
  }

  /** The body bytes read so far (all of it once `done`). */
  partialBody(): Buffer {
    return Buffer.concat(this.bodyParts, this.bodyLength);
  }

  private take(n: number): void {
    if (n === 0) return;
    this.bodyParts.push(this.buffer.subarray(0, n));
    this.bodyLength += n;
    this.buffer = this.buffer.subarray(n);
  }

  private finish(rest: Buffer): void {
    this.done = true;
    this.leftover = rest;
    if (this.response) this.response.body = Buffer.concat(this.bodyParts, this.bodyLength);
  }
}
