// The slow-body limit: a request body that trickles in (a "slowloris" body) would hold its connection, and the
// upload's staging file, for as long as the client keeps one byte moving before the idle timeout. Like Apache's
// mod_reqtimeout, every body gets an allowance that starts at BODY_GRACE_MS and grows by a second for each
// BODY_MIN_BYTES_PER_SECOND bytes received; time the server itself is not reading (its buffer is full) is not
// counted against the client. A body that outruns its allowance is cut (docs/s3-compatibility.md "Limits").

import type { IncomingMessage, ServerResponse } from 'node:http';

/** The allowance every request body starts with. */
export const BODY_GRACE_MS = 20_000;
/** Each this many bytes received extends the allowance by one second: the slowest average rate a body may keep. */
export const BODY_MIN_BYTES_PER_SECOND = 500;
const TICK_MS = 1000;

interface Watched {
  res: ServerResponse;
  startedAt: number;
  startBytes: number;
  /** Time the server was the slow side (data waiting in its buffer). */
  excusedMs: number;
  onTimeout: () => void;
}

/** Whether the request has a body to receive: a non-zero Content-Length or a chunked Transfer-Encoding. */
function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  if (length !== undefined) return length !== '0';
  return req.headers['transfer-encoding'] !== undefined;
}

export interface SlowBodyGuardOptions {
  graceMs?: number;
  minBytesPerSecond?: number;
  now?: () => number;
}

/** Watches request bodies as they arrive; one timer for all of them, running only while some are watched. */
export class SlowBodyGuard {
  private readonly watched = new Map<IncomingMessage, Watched>();
  private readonly graceMs: number;
  private readonly minRate: number;
  private readonly now: () => number;
  private timer: NodeJS.Timeout | undefined;

  constructor(opts: SlowBodyGuardOptions = {}) {
    this.graceMs = opts.graceMs ?? BODY_GRACE_MS;
    this.minRate = opts.minBytesPerSecond ?? BODY_MIN_BYTES_PER_SECOND;
    this.now = opts.now ?? Date.now;
  }

  /**
   * Watches `req`'s body until it has arrived (or the exchange ends). When the body falls behind its allowance,
   * `onTimeout` is called once: it answers (if it still can), and the guard then closes the connection.
   */
  watch(req: IncomingMessage, res: ServerResponse, onTimeout: () => void): void {
    if (!hasBody(req) || req.complete) return;
    this.watched.set(req, { res, startedAt: this.now(), startBytes: req.socket.bytesRead, excusedMs: 0, onTimeout });
    const forget = (): void => {
      this.forget(req);
    };
    req.once('end', forget);
    req.once('close', forget);
    res.once('close', forget);
    this.timer ??= setInterval(() => this.tick(), TICK_MS).unref();
  }

  /** Requests whose bodies are being watched (for tests and status). */
  get size(): number {
    return this.watched.size;
  }

  /** Checks every watched body once (the timer calls it each second; tests may call it directly). */
  tick(): void {
    const now = this.now();
    for (const [req, w] of this.watched) {
      if (req.complete) {
        this.forget(req);
        continue;
      }
      // The server is the slow side: its consumer has not taken what already arrived (a consumer that is waiting
      // leaves the buffer empty, whether it reads by 'data', 'readable' or async iteration).
      if (req.readableLength > 0) w.excusedMs += TICK_MS;
      const received = req.socket.bytesRead - w.startBytes;
      const allowance = this.graceMs + w.excusedMs + (received / this.minRate) * 1000;
      if (now - w.startedAt <= allowance) continue;
      this.forget(req);
      this.cut(req, w);
    }
  }

  /** Stops the timer (server close). */
  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.watched.clear();
  }

  private forget(req: IncomingMessage): void {
    this.watched.delete(req);
    if (this.watched.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  /** Answers through `onTimeout`, then closes the connection once the answer is out (or at once if it cannot be). */
  private cut(req: IncomingMessage, w: Watched): void {
    const socket = req.socket;
    const close = (): void => {
      socket.destroy();
    };
    try {
      if (!w.res.headersSent) w.onTimeout();
    } finally {
      if (w.res.writableFinished || w.res.headersSent === false) close();
      else {
        w.res.once('finish', close);
        // A client that does not read its answer either: close regardless.
        setTimeout(close, 2000).unref();
      }
    }
  }
}
