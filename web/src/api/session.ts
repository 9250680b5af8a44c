// The signed-in session. The access token lives in this object only (never in storage); the refresh token is the
// HttpOnly store_refresh cookie, which scripts cannot read. On load and shortly before the token expires the
// session is refreshed, one refresh at a time across every tab (Web Locks), because presenting a refresh token
// twice revokes the whole session (docs/admin-api.md, "Reuse").

import { ApiError, errorOf } from './errors';
import type { Me, TokenResponse } from './types';

export type SessionState = 'loading' | 'signed-out' | 'signed-in';

export interface SessionSnapshot {
  state: SessionState;
  me: Me | undefined;
  /** Why the last session ended, when it was not a sign-out (shown on the sign-in page). */
  notice: string | undefined;
}

const LOCK = 'store-console-refresh';
const CHANNEL = 'store-console-session';
/** Refresh this long before the access token expires. */
const REFRESH_MARGIN_S = 60;

export class Session {
  private token: string | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private inflight: Promise<boolean> | undefined;
  private snapshot: SessionSnapshot = { state: 'loading', me: undefined, notice: undefined };
  private readonly listeners = new Set<() => void>();
  private readonly channel: BroadcastChannel | undefined;

  constructor(private readonly apiBase: string) {
    this.channel = typeof BroadcastChannel === 'undefined' ? undefined : new BroadcastChannel(CHANNEL);
    // Another tab signed out: the session (shared by every tab, via the cookie) has ended here too.
    this.channel?.addEventListener('message', (e: MessageEvent<unknown>) => {
      if (e.data === 'signed-out') this.clear('You signed out in another tab.');
    });
  }

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  readonly getSnapshot = (): SessionSnapshot => this.snapshot;

  /** The current access token, if signed in. */
  accessToken(): string | undefined {
    return this.token;
  }

  private set(next: Partial<SessionSnapshot>): void {
    this.snapshot = { ...this.snapshot, ...next };
    for (const l of this.listeners) l();
  }

  /** On load: a refresh with the cookie, if there is one, restores the session without a sign-in. */
  async start(): Promise<void> {
    try {
      if (await this.refresh()) await this.loadMe();
      else this.set({ state: 'signed-out' });
    } catch {
      this.clear('The server could not be reached. Check the connection and sign in again.');
    }
  }

  /** Signs in; throws ApiError (401 wrong credentials, 429 with retryAfter). */
  async signIn(username: string, password: string): Promise<void> {
    const res = await this.post('/auth/login', { username, password });
    if (!res.ok) throw await errorOf(res);
    this.accept((await res.json()) as TokenResponse);
    await this.loadMe();
  }

  /** Re-reads the signed-in admin (after a password change clears mustChangePassword). */
  async loadMe(): Promise<void> {
    const res = await fetch(`${this.apiBase}/auth/me`, { headers: this.authHeaders(), credentials: 'same-origin' });
    if (res.status === 401) {
      this.clear('Your session has ended. Sign in again.');
      return;
    }
    if (!res.ok) throw await errorOf(res);
    this.set({ state: 'signed-in', me: (await res.json()) as Me, notice: undefined });
  }

  /**
   * Exchanges the refresh cookie for a new access token. Single-flight in this tab, and serialised across tabs with
   * a Web Lock, so the browser never presents one refresh token twice. Resolves false when there is no session.
   */
  refresh(): Promise<boolean> {
    this.inflight ??= this.withLock(async () => {
      const res = await this.post('/auth/refresh');
      if (!res.ok) return false;
      this.accept((await res.json()) as TokenResponse);
      return true;
    })
      .catch(() => false)
      .finally(() => {
        this.inflight = undefined;
      });
    return this.inflight;
  }

  /** Ends the session on the server (the cookie is cleared) and here, and tells the other tabs. */
  async signOut(): Promise<void> {
    try {
      if (this.token) await this.post('/auth/logout', undefined, this.authHeaders());
    } finally {
      this.channel?.postMessage('signed-out');
      this.clear(undefined);
    }
  }

  /** Called when the server refused the token and a refresh did not help. */
  expire(): void {
    this.clear('Your session has ended. Sign in again.');
  }

  authHeaders(): Record<string, string> {
    return this.token ? { authorization: `Bearer ${this.token}` } : {};
  }

  private accept(tokens: TokenResponse): void {
    this.token = tokens.accessToken;
    if (this.timer) clearTimeout(this.timer);
    const inSeconds = Math.max(5, tokens.expiresIn - REFRESH_MARGIN_S);
    this.timer = setTimeout(() => {
      void this.refresh().then((ok) => {
        if (!ok) this.expire();
      });
    }, inSeconds * 1000);
  }

  private clear(notice: string | undefined): void {
    this.token = undefined;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.set({ state: 'signed-out', me: undefined, notice });
  }

  private async withLock<T>(fn: () => Promise<T>): Promise<T> {
    const locks = typeof navigator !== 'undefined' ? navigator.locks : undefined;
    return locks ? (locks.request(LOCK, fn) as Promise<T>) : fn();
  }

  private async post(path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response> {
    try {
      return await fetch(`${this.apiBase}${path}`, {
        method: 'POST',
        credentials: 'same-origin',
        headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (err) {
      throw new ApiError(0, 'NetworkError', err instanceof Error ? err.message : String(err));
    }
  }
}
