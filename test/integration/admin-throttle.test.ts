// One dedicated server behind a "proxy" (loopback is trusted, MOUNT_PATH=/storage): the login limit per client with
// Retry-After, X-Forwarded-For read from the right, the general admin throttle, the refresh cookie's path under the
// mount, aws:SourceIp / aws:SecureTransport from the proxy's headers on the S3 plane, and the audit buffer flushed
// at SIGTERM (AUDIT_FLUSH_MS is 10 minutes here, so only the shutdown flush can have written anything).

import { join } from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { freshClient, login, refresh, signIn } from '../helpers/admin-flow.js';
import { rawRequest } from '../helpers/signed-http.js';
import { useStore } from '../helpers/store.js';

const MOUNT = '/storage';
const store = useStore({
  env: { MOUNT_PATH: MOUNT, STORE_TRUSTED_PROXIES: '127.0.0.1, 10.0.0.0/8', AUDIT_FLUSH_MS: '600000' },
});

const wrongLogin = (forwardedFor: string) =>
  login(store.server, { mount: MOUNT, forwardedFor, password: 'wrong-password' });

describe('the login limit', () => {
  it('allows 5 attempts per minute per client, then 429 with Retry-After, even for the right password', async () => {
    const client = freshClient();
    const started = Date.now();
    for (let i = 0; i < 5; i++) expect((await wrongLogin(client)).status).toBe(401);
    const refused = await wrongLogin(client);
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ error: 'TooManyRequests', statusCode: 429 });
    // Until the first attempt leaves the 60 s window.
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(60 - Math.ceil((Date.now() - started) / 1000));
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect((await login(store.server, { mount: MOUNT, forwardedFor: client })).status).toBe(429);
    // Another client is not affected.
    expect((await login(store.server, { mount: MOUNT, forwardedFor: freshClient() })).status).toBe(200);
  });

  it('reads X-Forwarded-For from the right: a forged left part neither dodges nor borrows a limit', async () => {
    const client = freshClient();
    for (let i = 0; i < 5; i++) await wrongLogin(`${freshClient()}, ${client}`);
    expect((await wrongLogin(`${freshClient()}, ${client}`)).status).toBe(429);
    // Trusted proxies between the client and us are skipped: the client is the right-most untrusted hop.
    expect((await wrongLogin(`${client}, 10.1.2.3`)).status).toBe(429);
    expect((await wrongLogin(`${client}, ${freshClient()}`)).status).toBe(401);
  });

  it('counts password changes too (the current password is a guessing target)', async () => {
    const client = freshClient();
    const { token } = await signIn(store.server, { mount: MOUNT, forwardedFor: freshClient() });
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      const res = await fetch(`${store.server.url}${MOUNT}/api/admin/settings/change-password`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'x-forwarded-for': client },
        body: JSON.stringify({ currentPassword: `guess-${i}`, newPassword: 'a-good-new-password' }),
      });
      statuses.push(res.status);
      await res.arrayBuffer();
    }
    expect(statuses).toEqual([400, 400, 400, 400, 400, 429]);
  });
});

describe('the general admin throttle', () => {
  it('allows a burst of 600 requests per client, then 429 with Retry-After; probes are never throttled', async () => {
    const { token } = await signIn(store.server, { mount: MOUNT, forwardedFor: freshClient() });
    const client = freshClient();
    const get = (path: string, from = client) =>
      fetch(`${store.server.url}${MOUNT}/api/admin${path}`, {
        headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': from },
      });
    let allowed = 0;
    let refused: Response | undefined;
    const started = Date.now();
    while (allowed < 1000) {
      const batch = await Promise.all(Array.from({ length: 25 }, () => get('/version')));
      for (const res of batch) {
        if (res.status === 200) allowed++;
        else refused ??= res;
        await res.arrayBuffer();
      }
      if (refused) break;
    }
    expect(refused?.status).toBe(429);
    expect(refused?.headers.get('retry-after')).toBe('1');
    // 600 in the burst, plus the refill (10 a second) while the requests were being sent, plus one batch in flight.
    const refill = Math.ceil(((Date.now() - started) / 1000) * 10);
    expect(allowed).toBeGreaterThanOrEqual(600);
    expect(allowed).toBeLessThanOrEqual(600 + refill + 25);
    expect((await get('/health')).status).toBe(200);
    expect((await get('/version', freshClient())).status).toBe(200);
  });
});

describe('the refresh cookie under MOUNT_PATH', () => {
  it('is scoped to the mounted auth path and refreshes there', async () => {
    const res = await login(store.server, { mount: MOUNT });
    expect(res.status).toBe(200);
    expect(res.setCookie).toContain(`Path=${MOUNT}/api/admin/auth;`);
    const rotated = await refresh(store.server, res.cookie, { mount: MOUNT, forwardedFor: freshClient() });
    expect(rotated.status).toBe(200);
    expect(rotated.setCookie).toContain(`Path=${MOUNT}/api/admin/auth;`);
  });
});

describe('the S3 plane behind a trusted proxy', () => {
  const bucket = `proxied-${Date.now()}`;
  const anonymousGet = (key: string, headers: Record<string, string> = {}) =>
    rawRequest(store.server, { method: 'GET', path: `${MOUNT}/${bucket}/${key}`, headers });

  beforeAll(async () => {
    expect((await rawRequest(store.server, { method: 'PUT', path: `${MOUNT}/${bucket}`, sign: true })).status).toBe(
      200,
    );
    for (const key of ['by-ip.txt', 'by-tls.txt']) {
      expect(
        (await rawRequest(store.server, { method: 'PUT', path: `${MOUNT}/${bucket}/${key}`, body: key, sign: true }))
          .status,
      ).toBe(200);
    }
    const policy = {
      Version: '2012-10-17',
      Statement: [
        {
          Effect: 'Allow',
          Principal: '*',
          Action: 's3:GetObject',
          Resource: `arn:aws:s3:::${bucket}/by-ip.txt`,
          Condition: { IpAddress: { 'aws:SourceIp': '203.0.113.0/24' } },
        },
        {
          Effect: 'Allow',
          Principal: '*',
          Action: 's3:GetObject',
          Resource: `arn:aws:s3:::${bucket}/by-tls.txt`,
          Condition: { Bool: { 'aws:SecureTransport': 'true' } },
        },
      ],
    };
    const put = await rawRequest(store.server, {
      method: 'PUT',
      path: `${MOUNT}/${bucket}?policy`,
      body: JSON.stringify(policy),
      sign: true,
    });
    expect(put.status, put.text).toBe(204);
  });

  it('aws:SourceIp is the forwarded client address', async () => {
    expect((await anonymousGet('by-ip.txt', { 'x-forwarded-for': '203.0.113.7' })).status).toBe(200);
    expect((await anonymousGet('by-ip.txt', { 'x-forwarded-for': '198.51.100.7' })).status).toBe(403);
    expect((await anonymousGet('by-ip.txt')).status).toBe(403);
    // A forged left-most hop does not help.
    expect((await anonymousGet('by-ip.txt', { 'x-forwarded-for': '203.0.113.7, 198.51.100.7' })).status).toBe(403);
  });

  it('aws:SecureTransport follows X-Forwarded-Proto from the proxy', async () => {
    expect((await anonymousGet('by-tls.txt', { 'x-forwarded-proto': 'https' })).status).toBe(200);
    expect((await anonymousGet('by-tls.txt', { 'x-forwarded-proto': 'http' })).status).toBe(403);
    expect((await anonymousGet('by-tls.txt')).status).toBe(403);
  });
});

describe('shutdown', () => {
  it('flushes the buffered audit records at SIGTERM', async () => {
    expect(await store.stop()).toBe(0);
    const db = new Database(join(store.server.dataDir, 'meta.db'), { readonly: true });
    try {
      const counts = db.prepare('SELECT event, count(*) AS n FROM audit GROUP BY event').all() as {
        event: string;
        n: number;
      }[];
      const byEvent = Object.fromEntries(counts.map((c) => [c.event, c.n]));
      expect(byEvent['auth.login_failed']).toBeGreaterThanOrEqual(10);
      expect(byEvent['auth.login']).toBeGreaterThanOrEqual(3);
    } finally {
      db.close();
    }
  });
});
