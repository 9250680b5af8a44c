// Admin API helpers for integration tests: sign in as an admin and call routes with the access token.

import { login } from './admin-flow.js';
import type { RunningServer } from './server.js';

/**
 * Signs in (default: the bootstrap admin) and returns the access token. Throws on any non-200.
 * Login is limited to 5 per minute per client. Each call sends its own X-Forwarded-For, which counts only on a
 * server started with STORE_TRUSTED_PROXIES=127.0.0.1: start yours that way if a file signs in more than 5 times.
 */
export async function adminLogin(
  server: RunningServer,
  username = 'admin',
  password = server.credentials.adminPassword,
): Promise<string> {
  const res = await login(server, { username, password });
  if (res.status !== 200 || !res.accessToken)
    throw new Error(`admin login failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.accessToken;
}

/** A JSON call to /api/admin<path> with a Bearer token; returns the status, headers and parsed body. */
export async function adminCall(
  server: RunningServer,
  token: string | undefined,
  { method, path, body }: { method: string; path: string; body?: unknown },
): Promise<{ status: number; headers: Headers; body: unknown }> {
  const headers: Record<string, string> = {};
  if (token !== undefined) headers['authorization'] = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${server.url}/api/admin${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: res.status, headers: res.headers, body: parsed };
}
