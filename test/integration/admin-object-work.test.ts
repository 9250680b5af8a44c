// The console's everyday object work through the admin API: copy and move of a selection (within and across buckets,
// rename), metadata edits as a copy in place, folder sums with their bound, and emptying a bucket in pages, object
// lock respected; bad input, missing sources and read-only admins refused. Objects are read back through the API.

import { CreateMultipartUploadCommand, HeadObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { adminCall, adminLogin } from '../helpers/admin-session.js';
import { uniqueBucket } from '../helpers/clients.js';
import { useStore } from '../helpers/store.js';
import { adminFixture, expectError, keyQuery as q, type Json } from './admin-storage-fixture.js';

const store = useStore({ env: { STORE_TRUSTED_PROXIES: '127.0.0.1' } });
const { call, auditEvents, newBucket, upload, download } = adminFixture(store);

const text = async (bucket: string, key: string): Promise<string> => {
  const res = await download({ bucket, key });
  expect(res.status, key).toBe(200);
  return res.text();
};
const info = async (bucket: string, key: string): Promise<Json> =>
  (await call('GET', `/buckets/${bucket}/objects/info?${q(key)}`)).body as Json;
const hold = async (bucket: string, key: string, status: 'ON' | 'OFF'): Promise<void> => {
  expect((await call('PUT', `/buckets/${bucket}/objects/legal-hold?${q(key)}`, { status })).status).toBe(200);
};

describe('copy and move', () => {
  it('copies a selection into another bucket with metadata and tags, and moves within a bucket', async () => {
    const a = await newBucket();
    const b = await newBucket({ versioning: true });
    await upload({ bucket: a, key: 'docs/one.txt' }, 'one', { 'content-type': 'text/plain' });
    await upload({ bucket: a, key: 'docs/sub/two.txt' }, 'two');
    await call('PUT', `/buckets/${a}/objects/tagging?${q('docs/one.txt')}`, { tags: [{ key: 't', value: '1' }] });

    const copied = await call('POST', `/buckets/${a}/objects/transfer`, {
      targetBucket: b,
      items: [
        { key: 'docs/one.txt', targetKey: 'in/one.txt' },
        { key: 'docs/sub/two.txt', targetKey: 'in/sub/two.txt' },
        { key: 'docs/missing', targetKey: 'in/missing' },
      ],
    });
    expect(copied.status, JSON.stringify(copied.body)).toBe(200);
    expect(copied.body).toMatchObject({
      done: 2,
      failed: 1,
      results: [
        { key: 'docs/one.txt', ok: true, copied: true, versionId: expect.any(String) },
        { key: 'docs/sub/two.txt', ok: true, copied: true },
        { key: 'docs/missing', ok: false, copied: false, error: 'NoSuchKey' },
      ],
    });
    expect(await text(b, 'in/sub/two.txt')).toBe('two');
    expect(await info(b, 'in/one.txt')).toMatchObject({ contentType: 'text/plain', tags: [{ key: 't', value: '1' }] });
    expect(await text(a, 'docs/one.txt')).toBe('one'); // a copy leaves the source

    const moved = await call('POST', `/buckets/${a}/objects/transfer`, {
      move: true,
      items: [{ key: 'docs/one.txt', targetKey: 'renamed.txt' }],
    });
    expect(moved.body).toMatchObject({ done: 1, failed: 0, results: [{ ok: true, copied: true }] });
    expect(await text(a, 'renamed.txt')).toBe('one');
    expect((await download({ bucket: a, key: 'docs/one.txt' })).status).toBe(404);
    expect(auditEvents()).toContainEqual(
      expect.objectContaining({
        event: 'object.batch_moved',
        bucket: a,
        details: expect.objectContaining({ key: 'docs/one.txt', targetKey: 'renamed.txt', count: 1 }),
      }),
    );
    expect(auditEvents()).toContainEqual(
      expect.objectContaining({ event: 'object.batch_copied', details: expect.objectContaining({ targetBucket: b }) }),
    );
  });

  it('moves a held object as S3 deletes one (a delete marker; the held version stays); onto itself is refused', async () => {
    const bucket = await newBucket({ objectLock: true });
    await upload({ bucket, key: 'held' }, 'kept');
    await hold(bucket, 'held', 'ON');
    const res = await call('POST', `/buckets/${bucket}/objects/transfer`, {
      move: true,
      items: [
        { key: 'held', targetKey: 'moved' },
        { key: 'held', targetKey: 'held' },
      ],
    });
    expect(res.body).toMatchObject({
      done: 1,
      failed: 1,
      results: [
        { key: 'held', targetKey: 'moved', ok: true, copied: true, versionId: expect.any(String) },
        { key: 'held', targetKey: 'held', ok: false, copied: false, error: 'InvalidRequest' },
      ],
    });
    expect(await text(bucket, 'moved')).toBe('kept');
    const versions = (await call('GET', `/buckets/${bucket}/objects/versions?prefix=held`)).body as {
      versions: Array<{ isDeleteMarker: boolean; versionId: string }>;
    };
    expect(versions.versions.map((v) => v.isDeleteMarker)).toEqual([true, false]);
    const kept = versions.versions[1]!.versionId;
    expect(await (await download({ bucket, key: 'held' }, {}, `&versionId=${kept}`)).text()).toBe('kept');
    const self = await call('POST', `/buckets/${bucket}/objects/transfer`, {
      move: true,
      items: [{ key: 'moved', targetKey: 'moved' }],
    });
    expect(self.body).toMatchObject({ done: 0, results: [{ ok: false, copied: false, error: 'InvalidRequest' }] });
    expect(await text(bucket, 'moved')).toBe('kept');
    await call('PUT', `/buckets/${bucket}/objects/legal-hold?${q('held', `&versionId=${kept}`)}`, { status: 'OFF' });
  });

  it('refuses bad input and unknown buckets before any entry', async () => {
    const bucket = await newBucket();
    await upload({ bucket, key: 'src' }, 'x');
    const path = `/buckets/${bucket}/objects/transfer`;
    expectError(await call('POST', path, { items: [] }), 400, 'ValidationError');
    expectError(await call('POST', path, { items: [{ key: 'src' }] }), 400, 'ValidationError');
    expectError(
      await call('POST', path, { items: [{ key: 'src', targetKey: 'x' }], extra: 1 }),
      400,
      'ValidationError',
    );
    const tooMany = Array.from({ length: 1001 }, (_, i) => ({ key: `k${i}`, targetKey: `t${i}` }));
    expectError(await call('POST', path, { items: tooMany }), 400, 'ValidationError');
    const missing = uniqueBucket('nope');
    expectError(
      await call('POST', path, { targetBucket: missing, items: [{ key: 'src', targetKey: 'x' }] }),
      404,
      'NoSuchBucket',
    );
    expectError(
      await call('POST', `/buckets/${missing}/objects/transfer`, { items: [{ key: 'src', targetKey: 'x' }] }),
      404,
      'NoSuchBucket',
    );
    const long = await call('POST', path, { items: [{ key: 'src', targetKey: 'k'.repeat(1025) }] });
    expect(long.body).toMatchObject({ done: 0, results: [{ ok: false, error: 'KeyTooLongError' }] });
  });
});

describe('metadata edits', () => {
  it('rewrites one object in place: headers and user metadata replaced, tags kept, a new version', async () => {
    const bucket = await newBucket({ versioning: true });
    await upload({ bucket, key: 'page.html' }, '<p>hi</p>', { 'content-type': 'text/plain', 'x-amz-meta-old': '1' });
    await call('PUT', `/buckets/${bucket}/objects/tagging?${q('page.html')}`, { tags: [{ key: 'k', value: 'v' }] });
    const before = (await info(bucket, 'page.html'))['versionId'];
    const res = await call('POST', `/buckets/${bucket}/objects/metadata`, {
      keys: ['page.html'],
      headers: {
        contentType: 'text/html; charset=utf-8',
        cacheControl: 'max-age=60',
        contentDisposition: 'attachment; filename="page.html"',
        contentEncoding: null,
        expires: 'Wed, 21 Oct 2037 07:28:00 GMT',
      },
      userMetadata: { Owner: 'zoë' },
      replaceUserMetadata: true,
    });
    expect(res.body).toMatchObject({ done: 1, failed: 0, results: [{ key: 'page.html', ok: true }] });
    const after = await info(bucket, 'page.html');
    expect(after).toMatchObject({
      contentType: 'text/html; charset=utf-8',
      cacheControl: 'max-age=60',
      contentDisposition: 'attachment; filename="page.html"',
      expires: 'Wed, 21 Oct 2037 07:28:00 GMT',
      userMetadata: { owner: 'zoë' },
      tags: [{ key: 'k', value: 'v' }],
    });
    expect(after['versionId']).not.toBe(before);
    const head = await store.s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'page.html' }));
    expect(head.CacheControl).toBe('max-age=60');
    expect(Object.keys(head.Metadata ?? {})).toEqual(['owner']);
    expect(await text(bucket, 'page.html')).toBe('<p>hi</p>');
    expect(auditEvents()).toContainEqual(
      expect.objectContaining({
        event: 'object.metadata_updated',
        bucket,
        details: expect.objectContaining({ count: 1 }),
      }),
    );
  });

  it('changes only what a selection edit names, and reports each object on its own', async () => {
    const bucket = await newBucket();
    const put = (Key: string, Metadata: Record<string, string>) =>
      store.s3.send(new PutObjectCommand({ Bucket: bucket, Key, Body: Key, ContentType: 'text/css', Metadata }));
    await put('a.css', { keep: 'a' });
    await put('b.css', { drop: 'b' });
    const res = await call('POST', `/buckets/${bucket}/objects/metadata`, {
      keys: ['a.css', 'b.css', 'gone.css'],
      headers: { cacheControl: 'no-cache' },
      userMetadata: { drop: null, added: 'yes' },
    });
    expect(res.body).toMatchObject({
      done: 2,
      failed: 1,
      results: [{ ok: true }, { ok: true }, { key: 'gone.css', ok: false, error: 'NoSuchKey' }],
    });
    expect(await info(bucket, 'a.css')).toMatchObject({
      contentType: 'text/css',
      cacheControl: 'no-cache',
      userMetadata: { keep: 'a', added: 'yes' },
    });
    expect((await info(bucket, 'b.css'))['userMetadata']).toEqual({ added: 'yes' });
  });

  it('refuses values no header can carry, bad names and oversized metadata', async () => {
    const bucket = await newBucket();
    await upload({ bucket, key: 'x' }, 'x');
    const path = `/buckets/${bucket}/objects/metadata`;
    expectError(await call('POST', path, { keys: ['x'], headers: { cacheControl: 'a\r\nb' } }), 400, 'InvalidArgument');
    expectError(await call('POST', path, { keys: ['x'], userMetadata: { 'bad name': 'v' } }), 400, 'InvalidArgument');
    expectError(await call('POST', path, { keys: ['x'], headers: { server: 'x' } }), 400, 'ValidationError');
    expectError(await call('POST', path, { keys: [] }), 400, 'ValidationError');
    const big = await call('POST', path, { keys: ['x'], userMetadata: { big: 'v'.repeat(2100) } });
    expect(big.body).toMatchObject({ done: 0, results: [{ ok: false, error: 'MetadataTooLarge' }] });
    expectError(
      await call('POST', `/buckets/${uniqueBucket('nope')}/objects/metadata`, { keys: ['x'] }),
      404,
      'NoSuchBucket',
    );
  });
});

describe('folder sums', () => {
  it('counts and sums every object under a prefix at any depth, folder markers left out', async () => {
    const bucket = await newBucket();
    await upload({ bucket, key: 'f/' }, '');
    await upload({ bucket, key: 'f/a' }, '12345');
    await upload({ bucket, key: 'f/deep/b' }, '123');
    await upload({ bucket, key: 'g' }, '1');
    const res = await call('GET', `/buckets/${bucket}/objects/summary?prefix=f%2F`);
    expect(res.body).toEqual({ prefix: 'f/', objectCount: 2, totalBytes: 8, truncated: false, bound: 100_000 });
    expect((await call('GET', `/buckets/${bucket}/objects/summary`)).body).toMatchObject({
      objectCount: 3,
      totalBytes: 9,
    });
    expectError(await call('GET', `/buckets/${uniqueBucket('nope')}/objects/summary`), 404, 'NoSuchBucket');
  });
});

describe('emptying a bucket', () => {
  it('removes every version, delete marker and upload of a versioned bucket over paged calls, then it deletes', async () => {
    const bucket = await newBucket({ versioning: true });
    for (const key of ['a', 'a', 'b']) await upload({ bucket, key }, key);
    await call('DELETE', `/buckets/${bucket}/objects/content?${q('b')}`);
    // More uploads than one call aborts: the first answer has a cursor.
    const starts = Array.from({ length: 1003 }, (_, i) =>
      store.s3.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: `up/${i}` })),
    );
    await Promise.all(starts);
    expectError(await call('DELETE', `/buckets/${bucket}`), 409, 'BucketNotEmpty');
    const first = await call('POST', `/buckets/${bucket}/empty`, {});
    expect(first.body).toMatchObject({ deleted: 4, uploadsAborted: 1000, locked: [], nextCursor: expect.any(String) });
    const second = await call('POST', `/buckets/${bucket}/empty`, { cursor: (first.body as Json)['nextCursor'] });
    expect(second.body).toEqual({ deleted: 0, uploadsAborted: 3, locked: [] });
    expect((await call('POST', `/buckets/${bucket}/empty`, {})).body).toEqual({
      deleted: 0,
      uploadsAborted: 0,
      locked: [],
    });
    expect((await call('DELETE', `/buckets/${bucket}`)).status).toBe(204);
    expect(auditEvents()).toContainEqual(
      expect.objectContaining({ event: 'bucket.emptied', bucket, details: expect.objectContaining({ deleted: 4 }) }),
    );
  });

  it('leaves versions under legal hold, names them, and the bucket stays', async () => {
    const bucket = await newBucket({ objectLock: true });
    await upload({ bucket, key: 'free' }, 'x');
    await upload({ bucket, key: 'held' }, 'y');
    await hold(bucket, 'held', 'ON');
    const res = await call('POST', `/buckets/${bucket}/empty`, {});
    expect(res.body).toEqual({
      deleted: 1,
      uploadsAborted: 0,
      locked: [{ key: 'held', versionId: expect.any(String), error: 'AccessDenied', message: expect.any(String) }],
    });
    expectError(await call('DELETE', `/buckets/${bucket}`), 409, 'BucketNotEmpty');
    expect(await text(bucket, 'held')).toBe('y');
    await hold(bucket, 'held', 'OFF');
  });

  it('refuses a cursor it did not issue and an unknown bucket', async () => {
    const bucket = await newBucket();
    expectError(await call('POST', `/buckets/${bucket}/empty`, { cursor: 'garbage!' }), 400, 'ValidationError');
    expectError(await call('POST', `/buckets/${bucket}/empty`, { other: 1 }), 400, 'ValidationError');
    expectError(await call('POST', `/buckets/${uniqueBucket('nope')}/empty`, {}), 404, 'NoSuchBucket');
  });
});

describe('roles', () => {
  it('refuses every new write to a read-only admin, and lets it sum folders', async () => {
    const bucket = await newBucket();
    await upload({ bucket, key: 'k' }, 'x');
    expect(
      (await call('POST', '/users', { username: 'work-reader', role: 'read-only', password: 'quiet-observer-42' }))
        .status,
    ).toBe(201);
    const reader = await adminLogin(store.server, 'work-reader', 'quiet-observer-42');
    const as = (method: string, path: string, body?: unknown) =>
      adminCall(store.server, reader, { method, path, body });
    const writes: Array<[string, unknown]> = [
      ['objects/transfer', { items: [{ key: 'k', targetKey: 'j' }] }],
      ['objects/transfer', { move: true, items: [{ key: 'k', targetKey: 'j' }] }],
      ['objects/metadata', { keys: ['k'], headers: { cacheControl: 'x' } }],
      ['empty', {}],
    ];
    for (const [path, body] of writes)
      expectError(await as('POST', `/buckets/${bucket}/${path}`, body), 403, 'Forbidden');
    expect(await text(bucket, 'k')).toBe('x');
    expect((await as('GET', `/buckets/${bucket}/objects/summary`)).body).toMatchObject({ objectCount: 1 });
  });
});
