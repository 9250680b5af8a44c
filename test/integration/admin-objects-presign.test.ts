// Presigned S3 URLs from the admin API, used with plain fetch: GET and PUT, a chosen version, the TTL bounds, and a
// server under a MOUNT_PATH (a second server, for the last describe block).

import { describe, expect, it } from 'vitest';
import { uniqueBucket } from '../helpers/clients.js';
import { useStore } from '../helpers/store.js';
import { adminFixture, expectError, type Json } from './admin-storage-fixture.js';

const store = useStore();

const { call, auditEvents, newBucket, upload, download } = adminFixture(store);

describe('presigned URLs', () => {
  it('gives GET and PUT URLs that plain fetch can use, for keys with spaces and Unicode', async () => {
    const bucket = await newBucket();
    const key = 'shared dir/ünï cödé.txt';
    const put = await call('POST', `/buckets/${bucket}/objects/presign`, { key, method: 'PUT', expiresIn: 300 });
    expect(put.status).toBe(200);
    const { url: putUrl, expiresAt } = put.body as { url: string; expiresAt: string };
    expect(putUrl.startsWith(`${store.server.url}/${bucket}/`)).toBe(true);
    expect(Math.abs(Date.parse(expiresAt) - (Date.now() + 300_000))).toBeLessThan(30_000);
    expect((await fetch(putUrl, { method: 'PUT', body: 'via presigned PUT' })).status).toBe(200);
    expect(await (await download({ bucket, key })).text()).toBe('via presigned PUT');
    const get = await call('POST', `/buckets/${bucket}/objects/presign`, { key, method: 'GET', expiresIn: 60 });
    const fetched = await fetch((get.body as { url: string }).url);
    expect([fetched.status, await fetched.text()]).toEqual([200, 'via presigned PUT']);
    // A tampered URL is refused by the S3 plane: the signature covers the path.
    const tampered = (get.body as { url: string }).url.replace('.txt', '.TXT');
    expect((await fetch(tampered)).status).toBe(403);
    const events = auditEvents().filter((e) => e['event'] === 'object.presigned' && e['bucket'] === bucket);
    expect(events).toHaveLength(2);
    expect(JSON.stringify(events)).not.toMatch(/Signature|X-Amz/);
  });

  it('presigns a specific version for GET', async () => {
    const bucket = await newBucket({ versioning: true });
    const first = (await (await upload({ bucket, key: 'v' }, 'first')).json()) as { versionId: string };
    await upload({ bucket, key: 'v' }, 'second');
    const res = await call('POST', `/buckets/${bucket}/objects/presign`, {
      key: 'v',
      method: 'GET',
      expiresIn: 60,
      versionId: first.versionId,
    });
    expect(await (await fetch((res.body as { url: string }).url)).text()).toBe('first');
  });

  it('refuses a TTL outside 1..604800 s, another method, a bad key and an unknown bucket', async () => {
    const bucket = await newBucket();
    const presign = (body: Json, b = bucket) => call('POST', `/buckets/${b}/objects/presign`, body);
    expect(expectError(await presign({ key: 'k', method: 'GET', expiresIn: 0 }), 400, 'ValidationError')).toContain(
      'expiresIn',
    );
    expect(
      expectError(await presign({ key: 'k', method: 'GET', expiresIn: 604_801 }), 400, 'ValidationError'),
    ).toContain('expiresIn');
    expect(expectError(await presign({ key: 'k', method: 'DELETE', expiresIn: 60 }), 400, 'ValidationError')).toContain(
      'method',
    );
    expectError(await presign({ key: 'k'.repeat(1025), method: 'GET', expiresIn: 60 }), 400, 'KeyTooLongError');
    expectError(await presign({ key: 'k', method: 'GET', expiresIn: 60 }, uniqueBucket('nope')), 404, 'NoSuchBucket');
  });
});

describe('under a MOUNT_PATH', () => {
  const mounted = useStore({ env: { MOUNT_PATH: '/store' } });

  it('presigns URLs under the mount path that work', async () => {
    {
      const res = await fetch(`${mounted.server.url}/store/api/admin/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'admin', password: mounted.server.credentials.adminPassword }),
      });
      const { accessToken } = (await res.json()) as { accessToken: string };
      const admin = (method: string, path: string, body?: unknown) =>
        fetch(`${mounted.server.url}/store/api/admin${path}`, {
          method,
          headers: {
            authorization: `Bearer ${accessToken}`,
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
      expect((await admin('POST', '/buckets', { name: 'mounted' })).status).toBe(201);
      const presigned = (await (
        await admin('POST', '/buckets/mounted/objects/presign', { key: 'a/b', method: 'PUT', expiresIn: 60 })
      ).json()) as { url: string };
      expect(presigned.url.startsWith(`${mounted.server.url}/store/mounted/a/b?`)).toBe(true);
      expect((await fetch(presigned.url, { method: 'PUT', body: 'mounted bytes' })).status).toBe(200);
      expect(await (await admin('GET', '/buckets/mounted/objects/content?key=a/b')).text()).toBe('mounted bytes');
    }
  });
});
