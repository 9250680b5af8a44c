// Calls to the admin API with the session's access token. A 401 triggers one refresh and one retry; if that fails
// the session has ended. Errors are ApiError (the admin envelope), 'NetworkError' when nothing answered.

import { ApiError, errorOf } from './errors';
import type { Session } from './session';

export type Query = Record<string, string | number | boolean | undefined | null>;

export interface RequestOptions {
  query?: Query;
  /** A JSON body. */
  json?: unknown;
  /** A raw body (uploads, restores). */
  body?: BodyInit;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

/** `path?a=1&b=2` with empty and undefined values left out. */
export function withQuery(path: string, query: Query | undefined): string {
  if (!query) return path;
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null && v !== '') params.set(k, String(v));
  const qs = params.toString();
  return qs ? `${path}?${qs}` : path;
}

export class Api {
  constructor(
    private readonly session: Session,
    readonly base: string,
  ) {}

  /** The raw response of a successful call (status < 400); throws ApiError otherwise. */
  async fetch(method: string, path: string, opts: RequestOptions = {}): Promise<Response> {
    const send = async (): Promise<Response> => {
      const headers: Record<string, string> = { ...this.session.authHeaders(), ...opts.headers };
      if (opts.json !== undefined) headers['content-type'] = 'application/json';
      try {
        return await fetch(`${this.base}${withQuery(path, opts.query)}`, {
          method,
          headers,
          credentials: 'same-origin',
          signal: opts.signal,
          body: opts.json !== undefined ? JSON.stringify(opts.json) : opts.body,
        });
      } catch (err) {
        if (err instanceof DOMException && err.name === 'AbortError') throw err;
        throw new ApiError(0, 'NetworkError', err instanceof Error ? err.message : String(err));
      }
    };
    let res = await send();
    if (res.status === 401) {
      if (await this.session.refresh()) res = await send();
      if (res.status === 401) {
        this.session.expire();
        throw await errorOf(res);
      }
    }
    if (res.status >= 400) throw await errorOf(res);
    return res;
  }

  /** A JSON call; resolves undefined for 204. */
  async call<T>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
    const res = await this.fetch(method, path, opts);
    if (res.status === 204) return undefined as T;
    return (await res.json()) as T;
  }

  get<T>(path: string, query?: Query, signal?: AbortSignal): Promise<T> {
    return this.call<T>('GET', path, { query, signal });
  }

  post<T>(path: string, json?: unknown, query?: Query): Promise<T> {
    return this.call<T>('POST', path, { json: json ?? {}, query });
  }

  put<T>(path: string, json: unknown, query?: Query): Promise<T> {
    return this.call<T>('PUT', path, { json, query });
  }

  patch<T>(path: string, json: unknown): Promise<T> {
    return this.call<T>('PATCH', path, { json });
  }

  del(path: string, query?: Query): Promise<void> {
    return this.call<void>('DELETE', path, { query });
  }

  /** A URL path for a bucket: /buckets/<name>. */
  static bucket(name: string, rest = ''): string {
    return `/buckets/${encodeURIComponent(name)}${rest}`;
  }
}
