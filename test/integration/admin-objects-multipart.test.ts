// Multipart uploads and server-side copy through the admin API (the console's large uploads and version restore):
// start, send parts (streamed), complete, with S3's rules (part order, ETags, 5 MiB minimum); copy a version over
// its key to restore it; audit records; read-only admins refused. The objects are read back with the S3 SDK.

import { createHash, randomBytes } from 'node:crypto';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { adminCall, adminLogin } from '../helpers/admin-session.js';
import { useStore } from '../helpers/store.js';
import { adminFixture, expectError, keyQuery as q, type Json } from './admin-storage-fixture.js';

const MiB = 1024 * 1024;
const store = useStore({ env: { STORE_TRUSTED_PROXIES: '127.0.0.1' } });

const { call, auditEvents, newBucket, upload, download } = adminFixture(store);
const md5 = (data: Uint8Array): string => createHash('md5').update(data).digest('hex');

async function sendPart(
  { bucket, key, uploadId, partNumber }: { bucket: string; key: string; uploadId: string; partNumber: number },
  body: Buffer,
  auth?: string,
): Promise<{ status: number; body: Json }> {
  const res = await fetch(
    `${store.server.url}/api/admin/buckets/${bucket}/uploads/part?${q(key, `&uploadId=${uploadId}&partNumber=${partNumber}`)}`,
    {
      method: 'PUT',
      headers: { authorization: `Bearer ${auth ?? (await store.admin())}`, 'content-type': 'application/json' },
      body,
    },
  );
  return { status: res.status, body: (await res.json()) as Json };
}

async function start(bucket: string, key: string, contentType?: string): Promise<string> {
  const res = await call('POST', `/buckets/${bucket}/uploads`, { key, ...(contentType ? { contentType } : {}) });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  expect(res.body).toMatchObject({ key });
  return (res.body as { uploadId: string }).uploadId;
}

describe('multipart uploads through the admin API', () => {
  it('assembles parts sent out of order (raw bodies, any content type) into the object, with the S3 multipart ETag', async () => {
    const bucket = await newBucket();
    const key = 'big/file one.bin';
    const uploadId = await start(bucket, key, 'video/mp4');
    const parts = [randomBytes(5 * MiB), randomBytes(5 * MiB), randomBytes(1234)];
    // Parts arrive in any order (the console sends three at a time); a JSON content type is not parsed.
    const stored = await Promise.all(
      [2, 0, 1].map(async (i) => ({ i, res: await sendPart({ bucket, key, uploadId, partNumber: i + 1 }, parts[i]!) })),
    );
    for (const { i, res } of stored)
      expect(res).toEqual({ status: 200, body: { partNumber: i + 1, etag: md5(parts[i]!), size: parts[i]!.length } });

    const listed = await call('GET', `/buckets/${bucket}/uploads`);
    expect((listed.body as { uploads: Json[] }).uploads).toEqual([{ key, uploadId, initiated: expect.any(String) }]);

    const done = await call('POST', `/buckets/${bucket}/uploads/complete`, {
      key,
      uploadId,
      parts: parts.map((p, i) => ({ partNumber: i + 1, etag: md5(p) })),
    });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    const whole = Buffer.concat(parts);
    const expectedEtag = `${md5(Buffer.concat(parts.map((p) => createHash('md5').update(p).digest())))}-3`;
    expect(done.body).toEqual({ etag: expectedEtag, size: whole.length });

    const got = await store.s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    expect(Buffer.from(await got.Body!.transformToByteArray()).equals(whole)).toBe(true);
    expect(got.ContentType).toBe('video/mp4');
    expect(got.ETag).toBe(`"${expectedEtag}"`);
    expect(((await call('GET', `/buckets/${bucket}/uploads`)).body as { uploads: Json[] }).uploads).toEqual([]);

    const audited = auditEvents()
      .filter((e) => e['bucket'] === bucket)
      .map((e) => e['event']);
    expect(audited).toEqual(['bucket.created', 'object.upload_started', 'object.uploaded']);
    expect(
      auditEvents().find((e) => e['bucket'] === bucket && e['event'] === 'object.uploaded')?.['details'],
    ).toMatchObject({ key, size: whole.length, parts: 3 });
  });

  it("refuses a part list S3 would refuse, and an upload that is not this key's", async () => {
    const bucket = await newBucket();
    const uploadId = await start(bucket, 'k');
    const small = randomBytes(1000);
    expect((await sendPart({ bucket, key: 'k', uploadId, partNumber: 1 }, small)).status).toBe(200);
    expect((await sendPart({ bucket, key: 'k', uploadId, partNumber: 2 }, small)).status).toBe(200);
    const etag = md5(small);
    expectError(
      await call('POST', `/buckets/${bucket}/uploads/complete`, {
        key: 'k',
        uploadId,
        parts: [
          { partNumber: 1, etag },
          { partNumber: 2, etag },
        ],
      }),
      400,
      'EntityTooSmall',
    );
    expectError(
      await call('POST', `/buckets/${bucket}/uploads/complete`, {
        key: 'k',
        uploadId,
        parts: [
          { partNumber: 2, etag },
          { partNumber: 1, etag },
        ],
      }),
      400,
      'InvalidPartOrder',
    );
    expectError(
      await call('POST', `/buckets/${bucket}/uploads/complete`, {
        key: 'k',
        uploadId,
        parts: [{ partNumber: 1, etag: md5(Buffer.from('x')) }],
      }),
      400,
      'InvalidPart',
    );
    expectError(
      await call('POST', `/buckets/${bucket}/uploads/complete`, {
        key: 'other',
        uploadId,
        parts: [{ partNumber: 1, etag }],
      }),
      404,
      'NoSuchUpload',
    );
    expectError(
      await call('POST', `/buckets/${bucket}/uploads/complete`, { key: 'k', uploadId, parts: [] }),
      400,
      'ValidationError',
    );
    const badNumber = await sendPart({ bucket, key: 'k', uploadId, partNumber: 10_001 }, small);
    expect(badNumber.body).toMatchObject({ error: 'ValidationError' });
    expect((await sendPart({ bucket, key: 'k', uploadId: 'no-such-upload', partNumber: 1 }, small)).body).toMatchObject(
      { error: 'NoSuchUpload', statusCode: 404 },
    );
    expectError(await call('POST', '/buckets/no-such-bucket-here/uploads', { key: 'k' }), 404, 'NoSuchBucket');
    // The one part that fits completes alone.
    const done = await call('POST', `/buckets/${bucket}/uploads/complete`, {
      key: 'k',
      uploadId,
      parts: [{ partNumber: 1, etag }],
    });
    expect(done.status).toBe(200);
    expect((await (await download({ bucket, key: 'k' })).arrayBuffer()).byteLength).toBe(1000);
  });

  it('answers malformed starts, parts and completions with the field named, and changes nothing', async () => {
    const bucket = await newBucket();
    const field = (res: { status: number; body: unknown }, name: string): void => {
      expect(expectError(res, 400, 'ValidationError')).toContain(name);
    };
    field(await call('POST', `/buckets/${bucket}/uploads`, {}), 'key');
    field(
      await call('POST', `/buckets/${bucket}/uploads`, { key: 'k', contentType: 'text/plain\r\nx-evil: 1' }),
      'contentType',
    );
    field(await call('POST', `/buckets/${bucket}/uploads`, { key: 'k', contentType: 'a'.repeat(300) }), 'contentType');
    expectError(await call('POST', `/buckets/${bucket}/uploads`, { key: 'k'.repeat(1025) }), 400, 'KeyTooLongError');
    const uploadId = await start(bucket, 'k');
    for (const partNumber of [0, 'abc'] as const) {
      const res = await fetch(
        `${store.server.url}/api/admin/buckets/${bucket}/uploads/part?${q('k', `&uploadId=${uploadId}&partNumber=${partNumber}`)}`,
        {
          method: 'PUT',
          headers: { authorization: `Bearer ${await store.admin()}` },
          body: randomBytes(10),
        },
      );
      field({ status: res.status, body: await res.json() }, 'partNumber');
    }
    field(await sendPart({ bucket, key: 'k', uploadId: 'u'.repeat(129), partNumber: 1 }, randomBytes(10)), 'uploadId');
    expectError(
      await sendPart({ bucket, key: 'other-key', uploadId, partNumber: 1 }, randomBytes(10)),
      404,
      'NoSuchUpload',
    );
    field(
      await call('POST', `/buckets/${bucket}/uploads/complete`, {
        key: 'k',
        uploadId,
        parts: [{ partNumber: 0, etag: 'x' }],
      }),
      'partNumber',
    );
    field(
      await call('POST', `/buckets/${bucket}/uploads/complete`, {
        key: 'k',
        uploadId,
        parts: [{ partNumber: 1, etag: '' }],
      }),
      'etag',
    );
    field(await call('POST', `/buckets/${bucket}/uploads/complete`, { key: 'k', uploadId }), 'parts');
    expectError(
      await call('POST', `/buckets/${bucket}/uploads/complete`, {
        key: 'k',
        uploadId,
        parts: [{ partNumber: 5, etag: md5(Buffer.from('x')) }],
      }),
      400,
      'InvalidPart',
    );
    field(await call('GET', `/buckets/${bucket}/uploads?limit=0`), 'limit');
    field(await call('GET', `/buckets/${bucket}/uploads?cursor=garbage`), 'cursor');
    field(await call('DELETE', `/buckets/${bucket}/uploads?${q('k')}`), 'uploadId');
    expect(((await call('GET', `/buckets/${bucket}/uploads`)).body as { uploads: Json[] }).uploads).toEqual([
      { key: 'k', uploadId, initiated: expect.any(String) },
    ]);
  });

  it('is refused to a read-only admin, as every write is', async () => {
    const bucket = await newBucket();
    expect(
      (await call('POST', '/users', { username: 'mp-reader', role: 'read-only', password: 'quiet-observer-42' }))
        .status,
    ).toBe(201);
    const reader = await adminLogin(store.server, 'mp-reader', 'quiet-observer-42');
    expectError(
      await adminCall(store.server, reader, { method: 'POST', path: `/buckets/${bucket}/uploads`, body: { key: 'k' } }),
      403,
      'Forbidden',
    );
    const uploadId = await start(bucket, 'k');
    expect((await sendPart({ bucket, key: 'k', uploadId, partNumber: 1 }, randomBytes(10), reader)).status).toBe(403);
    expectError(
      await adminCall(store.server, reader, {
        method: 'POST',
        path: `/buckets/${bucket}/uploads/complete`,
        body: { key: 'k', uploadId, parts: [{ partNumber: 1, etag: 'x' }] },
      }),
      403,
      'Forbidden',
    );
    expectError(
      await adminCall(store.server, reader, {
        method: 'POST',
        path: `/buckets/${bucket}/objects/copy`,
        body: { key: 'k', sourceKey: 'j' },
      }),
      403,
      'Forbidden',
    );
  });
});

describe('copy through the admin API', () => {
  it('restores an older version by copying it over its key, metadata and tags included', async () => {
    const bucket = await newBucket({ versioning: true });
    expect((await upload({ bucket, key: 'doc.txt' }, 'first', { 'content-type': 'text/markdown' })).status).toBe(200);
    const versions = async (): Promise<Array<{ versionId: string; isLatest: boolean }>> =>
      (
        (await call('GET', `/buckets/${bucket}/objects/versions?prefix=doc.txt`)).body as {
          versions: Array<{ versionId: string; isLatest: boolean }>;
        }
      ).versions;
    const first = (await versions())[0]!.versionId;
    expect(
      (await call('PUT', `/buckets/${bucket}/objects/tagging?${q('doc.txt')}`, { tags: [{ key: 'v', value: '1' }] }))
        .status,
    ).toBe(200);
    expect((await upload({ bucket, key: 'doc.txt' }, 'second')).status).toBe(200);
    await call('DELETE', `/buckets/${bucket}/objects/content?${q('doc.txt')}`);

    const restored = await call('POST', `/buckets/${bucket}/objects/copy`, { key: 'doc.txt', sourceVersionId: first });
    expect(restored.status, JSON.stringify(restored.body)).toBe(200);
    expect(restored.body).toEqual({
      etag: md5(Buffer.from('first')),
      size: 5,
      versionId: expect.any(String),
      sourceVersionId: first,
    });
    expect(await (await download({ bucket, key: 'doc.txt' })).text()).toBe('first');
    const info = (await call('GET', `/buckets/${bucket}/objects/info?${q('doc.txt')}`)).body as Json;
    expect(info).toMatchObject({ contentType: 'text/markdown', tags: [{ key: 'v', value: '1' }], isLatest: true });
    expect(await versions()).toHaveLength(4); // the two writes, the delete marker, the restored copy
    const copied = auditEvents().find((e) => e['bucket'] === bucket && e['event'] === 'object.copied');
    expect(copied?.['details']).toMatchObject({ key: 'doc.txt', sourceKey: 'doc.txt', sourceVersionId: first });
  });

  it('copies to another key and from another bucket, and says why it cannot', async () => {
    const a = await newBucket();
    const b = await newBucket();
    expect((await upload({ bucket: a, key: 'src' }, 'payload')).status).toBe(200);
    expect(
      (await call('POST', `/buckets/${b}/objects/copy`, { key: 'dst', sourceBucket: a, sourceKey: 'src' })).status,
    ).toBe(200);
    expect(await (await download({ bucket: b, key: 'dst' })).text()).toBe('payload');
    expectError(await call('POST', `/buckets/${a}/objects/copy`, { key: 'src' }), 400, 'InvalidRequest'); // onto itself, unchanged
    expectError(await call('POST', `/buckets/${a}/objects/copy`, { key: 'x', sourceKey: 'missing' }), 404, 'NoSuchKey');
    expectError(
      await call('POST', `/buckets/${a}/objects/copy`, { key: 'x', sourceKey: 'src', sourceVersionId: 'nope' }),
      400,
      'InvalidArgument',
    );
    expectError(
      await call('POST', `/buckets/${a}/objects/copy`, { key: 'x', sourceKey: 'src', extra: 1 }),
      400,
      'ValidationError',
    );
    expectError(await call('POST', `/buckets/${a}/objects/copy`, { sourceKey: 'src' }), 400, 'ValidationError');
    expectError(
      await call('POST', `/buckets/${a}/objects/copy`, { key: 'k'.repeat(1025), sourceKey: 'src' }),
      400,
      'KeyTooLongError',
    );
    expectError(
      await call('POST', `/buckets/${a}/objects/copy`, {
        key: 'x',
        sourceBucket: 'no-such-bucket-here',
        sourceKey: 'src',
      }),
      404,
      'NoSuchBucket',
    );
    expectError(
      await call('POST', '/buckets/no-such-bucket-here/objects/copy', { key: 'x', sourceBucket: a, sourceKey: 'src' }),
      404,
      'NoSuchBucket',
    );
  });
});
