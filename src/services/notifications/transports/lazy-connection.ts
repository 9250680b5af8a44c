// One connection per notification target, opened on the first send and reopened after it breaks
// (docs/notifications.md "Targets"): transports hold a LazyConnection instead of connecting in their constructor.

import { TransportError } from './transport-error.js';

/** Tuning and test seams of a transport that are not target settings. */
export interface TransportOptions {
  /** Bounds connecting and each send (default DEFAULT_TIMEOUT_MS). */
  timeoutMs?: number;
  /** The clock, for caches that age (NATS's stream lookup). */
  now?: () => number;
}

export const DEFAULT_TIMEOUT_MS = 10_000;

/** Opens a connection on demand, shares it between concurrent sends, and forgets it once discarded. */
export class LazyConnection<C> {
  private current: Promise<C> | undefined;
  private isClosed = false;

  constructor(
    private readonly open: () => Promise<C>,
    private readonly dispose: (conn: C) => Promise<void>,
  ) {}

  /** The open connection, connecting first if there is none. Rejects 'closed' after close(). */
  get(): Promise<C> {
    if (this.isClosed) return Promise.reject(new TransportError('closed', 'the transport is closed'));
    if (!this.current) {
      const opening = this.open();
      this.current = opening;
      // A failed connect is not cached: the next send tries again (the outbox's backoff paces it).
      opening.catch(() => {
        if (this.current === opening) this.current = undefined;
      });
    }
    return this.current;
  }

  /** Drops `conn` after an error so the next get() reconnects; disposing it never throws. */
  async discard(conn: C): Promise<void> {
    const current = this.current;
    if (current && (await current.catch(() => undefined)) === conn && this.current === current) {
      this.current = undefined;
    }
    await this.dispose(conn).catch(() => undefined);
  }

  /** Closes the connection (waiting for one being opened) and refuses further get()s. */
  async close(): Promise<void> {
    this.isClosed = true;
    const current = this.current;
    this.current = undefined;
    const conn = await current?.catch(() => undefined);
    if (conn !== undefined) await this.dispose(conn).catch(() => undefined);
  }
}

/** The password in a URL's userinfo, if any, so it can be scrubbed from errors. */
export function urlPassword(url: string): string | undefined {
  try {
    const password = new URL(url).password;
    return password ? decodeURIComponent(password) : undefined;
  } catch {
    return undefined;
  }
}
