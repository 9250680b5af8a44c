// The client address in the access log: the socket's peer, unless that peer is a trusted proxy
// (STORE_TRUSTED_PROXIES), in which case the right-most untrusted X-Forwarded-For hop. A client that is not a trusted
// proxy cannot choose the address it is logged under. (test/e2e/nginx-proxy.test.ts proves the same behind nginx.)

import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { RunningServer } from '../helpers/server.js';
import { useStore } from '../helpers/store.js';

/** GETs a path with the given headers and returns the access-log line of that request (found by its request id). */
async function loggedLine(
  server: RunningServer,
  path: string,
  headers: Record<string, string> = {},
): Promise<Record<string, unknown>> {
  const reqId = randomUUID();
  const res = await fetch(`${server.url}${path}`, { headers: { 'x-request-id': reqId, ...headers } });
  await res.arrayBuffer();
  const deadline = Date.now() + 5000;
  for (;;) {
    const line = server
      .output()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l['reqId'] === reqId && l['msg'] === 'request completed');
    if (line) return line;
    if (Date.now() > deadline) throw new Error(`no access-log line for ${reqId}:\n${server.output().slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('access-log client address, no trusted proxy', () => {
  const store = useStore();

  it('logs the socket address and ignores X-Forwarded-For on every surface', async () => {
    for (const path of ['/api/admin/health', '/', '/admin/']) {
      const line = await loggedLine(store.server, path, { 'x-forwarded-for': '203.0.113.7' });
      expect(line['clientIp'], path).toBe('127.0.0.1');
    }
  });
});

describe('access-log client address, loopback trusted as a proxy', () => {
  const store = useStore({ env: { STORE_TRUSTED_PROXIES: '127.0.0.1, 10.0.0.0/8' } });

  it('logs the right-most untrusted X-Forwarded-For hop', async () => {
    expect(
      (await loggedLine(store.server, '/api/admin/health', { 'x-forwarded-for': '203.0.113.7' }))['clientIp'],
    ).toBe('203.0.113.7');
    // A client-supplied first hop is skipped: only hops appended by trusted proxies are believed.
    const chained = await loggedLine(store.server, '/', { 'x-forwarded-for': '198.51.100.1, 203.0.113.9, 10.1.2.3' });
    expect(chained['clientIp']).toBe('203.0.113.9');
  });

  it('logs the socket address when the trusted peer sends no X-Forwarded-For', async () => {
    expect((await loggedLine(store.server, '/api/admin/health'))['clientIp']).toBe('127.0.0.1');
  });
});
