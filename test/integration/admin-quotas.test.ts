// The bucket quota in the admin API (docs/quotas.md): full admins set and clear it, read-only admins read it and get
// 403 for changes, bad limits are ValidationError naming the problem, every change is audited, and a backup carries
// the quota into a fresh instance, whose restore is exempt from it (the quota applies to the next write).

import { PutObjectCommand } from '@aws-sdk/client-s3';
import { beforeAll, describe, expect, it } from 'vitest';
import { adminCall, adminLogin } from '../helpers/admin-session.js';
import { downloadArchive, uploadArchive } from '../helpers/backup-fixture.js';
import { sdkClient, uniqueBucket } from '../helpers/clients.js';
import { useInProcess } from '../helpers/in-process.js';
import { expectS3Error } from './s3-assert.js';

const app = useInProcess({ AUDIT_FLUSH_MS: '250' });
const fresh = useInProcess();
let admin: string;
let reader: string;

beforeAll(async () => {
  admin = await adminLogin(app.server);
  const created = await adminCall(app.server, admin, {
    method: 'POST',
    path: '/users',
    body: { username: 'quota-reader', role: 'read-only', password: 'quiet-observer-42' },
  });
  expect(created.status).toBe(201);
  reader = await adminLogin(app.server, 'quota-reader', 'quiet-observer-42');
});

const call = (token: string, request: { method: string; path: string; body?: unknown }) =>
  adminCall(app.server, token, request);

async function newBucket(): Promise<string> {
  const name = uniqueBucket('aq');
  expect((await call(admin, { method: 'POST', path: '/buckets', body: { name } })).status).toBe(201);
  return name;
}

describe('the bucket quota routes', () => {
  it('set, read, replace and clear a quota, with the usage it counts', async () => {
    const bucket = await newBucket();
    await sdkClient(app.server).send(new PutObjectCommand({ Bucket: bucket, Key: 'k', Body: 'x'.repeat(7) }));
    expect((await call(admin, { method: 'GET', path: `/buckets/${bucket}/quota` })).body).toEqual({
      usage: { bytes: 7, objects: 1 },
    });
    const set = await call(admin, {
      method: 'PUT',
      path: `/buckets/${bucket}/quota`,
      body: { maxBytes: 1000, maxObjects: 10 },
    });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({ quota: { maxBytes: 1000, maxObjects: 10 }, usage: { bytes: 7, objects: 1 } });
    const replaced = await call(admin, { method: 'PUT', path: `/buckets/${bucket}/quota`, body: { maxObjects: 3 } });
    expect(replaced.body).toEqual({ quota: { maxObjects: 3 }, usage: { bytes: 7, objects: 1 } });
    expect((await call(reader, { method: 'GET', path: `/buckets/${bucket}/quota` })).body).toEqual(replaced.body);
    expect((await call(admin, { method: 'DELETE', path: `/buckets/${bucket}/quota` })).status).toBe(204);
    expect((await call(admin, { method: 'GET', path: `/buckets/${bucket}/quota` })).body).toEqual({
      usage: { bytes: 7, objects: 1 },
    });
  });

  it('refuse changes by a read-only admin with 403, leaving the quota as it was', async () => {
    const bucket = await newBucket();
    await call(admin, { method: 'PUT', path: `/buckets/${bucket}/quota`, body: { maxBytes: 5 } });
    const put = await call(reader, { method: 'PUT', path: `/buckets/${bucket}/quota`, body: { maxBytes: 500 } });
    expect(put.status).toBe(403);
    expect((put.body as { error: string }).error).toBe('Forbidden');
    expect((await call(reader, { method: 'DELETE', path: `/buckets/${bucket}/quota` })).status).toBe(403);
    expect((await call(reader, { method: 'GET', path: `/buckets/${bucket}/quota` })).body).toMatchObject({
      quota: { maxBytes: 5 },
    });
    expect((await call(admin, { method: 'PUT', path: `/buckets/${bucket}/quota` })).status).toBe(400);
  });

  it('refuse bad limits with ValidationError, and a missing bucket with NoSuchBucket', async () => {
    const bucket = await newBucket();
    for (const body of [
      {},
      { maxBytes: -1 },
      { maxBytes: 1.5 },
      { maxObjects: 'ten' },
      { maxBytes: 2 ** 53 },
      { maxBytes: 1, maxbytes: 2 },
    ]) {
      const res = await call(admin, { method: 'PUT', path: `/buckets/${bucket}/quota`, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect((res.body as { error: string }).error).toBe('ValidationError');
    }
    expect((await call(admin, { method: 'GET', path: `/buckets/${bucket}/quota` })).body).toEqual({
      usage: { bytes: 0, objects: 0 },
    });
    const missing = await call(admin, {
      method: 'PUT',
      path: '/buckets/no-such-quota-bucket/quota',
      body: { maxBytes: 1 },
    });
    expect(missing.status).toBe(404);
    expect((missing.body as { error: string }).error).toBe('NoSuchBucket');
  });

  it('audit every set and clear with the limits and the admin who made them', async () => {
    const bucket = await newBucket();
    await call(admin, { method: 'PUT', path: `/buckets/${bucket}/quota`, body: { maxBytes: 42 } });
    await call(admin, { method: 'DELETE', path: `/buckets/${bucket}/quota` });
    type Item = { event: string; subject: string; bucket: string; details: Record<string, unknown> };
    await expect
      .poll(
        async () => {
          const res = await call(admin, { method: 'GET', path: `/audit?bucket=${bucket}` });
          return ((res.body as { items: Item[] }).items ?? [])
            .filter((i) => i.details['kind'] === 'quota')
            .map((i) => [i.event, i.subject, i.details]);
        },
        { timeout: 5000 },
      )
      .toEqual([
        ['bucket.config_deleted', 'admin', { kind: 'quota' }],
        ['bucket.config_updated', 'admin', { kind: 'quota', maxBytes: 42, maxObjects: null }],
      ]);
  });

  it('travels in a bucket backup to a fresh instance, whose restore is exempt and whose next write is refused', async () => {
    const bucket = await newBucket();
    const s3 = sdkClient(app.server);
    for (const key of ['a', 'b', 'c'])
      await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: 'x'.repeat(10) }));
    // A quota lowered under the usage: the archive holds more than its own quota allows.
    await call(admin, { method: 'PUT', path: `/buckets/${bucket}/quota`, body: { maxBytes: 20, maxObjects: 5 } });
    const archive = await downloadArchive(app.server, admin, `/buckets/${bucket}/backup`);
    expect(archive.status).toBe(200);

    const freshAdmin = await adminLogin(fresh.server);
    expect(
      (await adminCall(fresh.server, freshAdmin, { method: 'POST', path: '/buckets', body: { name: bucket } })).status,
    ).toBe(201);
    const restored = await uploadArchive(fresh.server, freshAdmin, {
      bytes: archive.bytes,
      path: `/buckets/${bucket}/restore`,
    });
    expect(restored.status, JSON.stringify(restored.body)).toBe(200);
    expect(restored.body).toEqual({ objectsRestored: 3 });
    const view = await adminCall(fresh.server, freshAdmin, { method: 'GET', path: `/buckets/${bucket}/quota` });
    expect(view.body).toEqual({ quota: { maxBytes: 20, maxObjects: 5 }, usage: { bytes: 30, objects: 3 } });
    await expectS3Error(
      sdkClient(fresh.server).send(new PutObjectCommand({ Bucket: bucket, Key: 'd', Body: 'x' })),
      'QuotaExceeded',
      403,
    );
  });

  it('are described in the OpenAPI document with their error answers', async () => {
    const res = await call(admin, { method: 'GET', path: '/openapi.json' });
    type Op = { operationId: string; responses: Record<string, unknown> };
    const paths = (res.body as { paths: Record<string, Record<string, Op>> }).paths;
    const quota = paths['/api/admin/buckets/{name}/quota'] ?? {};
    expect(Object.keys(quota).sort()).toEqual(['delete', 'get', 'put']);
    expect(quota['put']?.operationId).toBe('putBucketQuota');
    expect(Object.keys(quota['put']?.responses ?? {})).toEqual(expect.arrayContaining(['200', '400', '403', '404']));
  });
});
