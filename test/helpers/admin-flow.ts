// Admin sign-in flows for integration tests that need more than a token: the refresh cookie, per-client addresses
// (X-Forwarded-For, honoured when the server trusts loopback as a proxy) and a mount path.

import { randomInt } from 'node:crypto';
import type { RunningServer } from './server.js';

export interface AuthResponse {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
  /** The store_refresh value the response set ('' when it cleared the cookie), if any. */
  cookie: string | undefined;
  /** The raw Set-Cookie header, if any. */
  setCookie: string | null;
  accessToken: string | undefined;
}

export interface FlowOptions {
  /** MOUNT_PATH of the server ('' by default). */
  mount?: string;
  /** Sent as X-Forwarded-For (counts only when the server trusts loopback). */
  forwardedFor?: string;
  /** The store_refresh cookie to send. */
  cookie?: string;
  /** Bearer token to send. */
  token?: string;
}

/** An address from 198.18.0.0/15 (benchmarking range), different on each call: a fresh client for the throttle. */
export function freshClient(): string {
  return `198.${18 + randomInt(2)}.${randomInt(256)}.${randomInt(1, 255)}`;
}

async function call(
  server: RunningServer,
  path: string,
  opts: FlowOptions & { body?: unknown },
): Promise<AuthResponse> {
  const headers: Record<string, string> = {};
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  if (opts.forwardedFor) headers['x-forwarded-for'] = opts.forwardedFor;
  if (opts.cookie !== undefined) headers['cookie'] = `store_refresh=${opts.cookie}`;
  if (opts.token) headers['authorization'] = `Bearer ${opts.token}`;
  const res = await fetch(`${server.url}${opts.mount ?? ''}/api/admin${path}`, {
    method: 'POST',
    headers,
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
  });
  const text = await res.text();
  const body = (text === '' ? {} : JSON.parse(text)) as Record<string, unknown>;
  const setCookie = res.headers.get('set-cookie');
  const cookie = setCookie === null ? undefined : /^store_refresh=([^;]*)/.exec(setCookie)?.[1];
  const accessToken = typeof body['accessToken'] === 'string' ? body['accessToken'] : undefined;
  return { status: res.status, headers: res.headers, body, cookie, setCookie, accessToken };
}

/** POST auth/login; by default as the bootstrap admin from a fresh client address. */
export function login(
  server: RunningServer,
  opts: FlowOptions & { username?: string; password?: string } = {},
): Promise<AuthResponse> {
  return call(server, '/auth/login', {
    ...opts,
    forwardedFor: opts.forwardedFor ?? freshClient(),
    body: { username: opts.username ?? 'admin', password: opts.password ?? server.credentials.adminPassword },
  });
}

/** POST auth/refresh with the cookie. */
export function refresh(
  server: RunningServer,
  cookie: string | undefined,
  opts: FlowOptions = {},
): Promise<AuthResponse> {
  return call(server, '/auth/refresh', { ...opts, cookie });
}

/** POST auth/logout with the bearer token and (optionally) the cookie. */
export function logout(
  server: RunningServer,
  token: string,
  opts: FlowOptions & { cookie?: string | undefined } = {},
): Promise<AuthResponse> {
  return call(server, '/auth/logout', { ...opts, token });
}

/** A signed-in session (throws unless login answers 200 with a token and a cookie). */
export async function signIn(
  server: RunningServer,
  opts: FlowOptions & { username?: string; password?: string } = {},
): Promise<{ token: string; cookie: string }> {
  const res = await login(server, opts);
  if (res.status !== 200 || !res.accessToken || !res.cookie)
    throw new Error(`sign-in failed: ${res.status} ${JSON.stringify(res.body)}`);
  return { token: res.accessToken, cookie: res.cookie };
}
