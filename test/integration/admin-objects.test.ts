/* eslint-disable max-lines -- one server fixture and seeded objects for every admin object route */
// The admin object routes against the real server: browse and versions with cursors, object info, batch delete
// with object lock, tagging, retention and legal hold, raw GET (Range) / PUT (streamed) / DELETE; objects written
// here are read by the S3 SDK and the other way round. Presigned URLs: admin-objects-presign.test.ts.

import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { GetObjectCommand, GetObjectTaggingCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { uniqueBucket } from '../helpers/clients.js';
import { useStore } from '../helpers/store.js';
import { adminFixture, expectError, keyQuery as q, type Json } from './admin-storage-fixture.js';

const store = useStore();

const { call, auditEvents, newBucket, upload, download } = adminFixture(store);

const md5 = (data: Uint8Array): string => createHash('md5').update(data).digest('hex');

describe('browse and versions', () => {
  it('pages through keys with a delimiter and an opaque cursor, prefixes and objects in S3 order', async () => {
    const bucket = await newBucket();
    const keys = ['a.txt', 'b/1', 'b/2', 'c/x/y', 'd', 'e/', 'f', 'g/1', 'h'];
    for (const key of keys) await store.s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: key }));
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const res = await call(
        'GET',
        `/buckets/${bucket}/objects?delimiter=/&limit=2${cursor ? `&cursor=${cursor}` : ''}`,
      );
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const page = res.body as { objects: Json[]; prefixes: string[]; nextCursor?: string };
      seen.push(...page.objects.map((o) => o['key'] as string), ...page.prefixes);
      cursor = page.nextCursor;
      pages += 1;
    } while (cursor !== undefined);
    expect(seen.sort()).toEqual(['a.txt', 'b/', 'c/', 'd', 'e/', 'f', 'g/', 'h']);
    expect(pages).toBe(4);
    const prefixed = await call('GET', `/buckets/${bucket}/objects?prefix=b/`);
    expect(prefixed.body).toEqual({
      objects: [
        {
          key: 'b/1',
          size: 3,
          etag: md5(Buffer.from('b/1')),
          lastModified: expect.any(String),
          storageClass: 'STANDARD',
        },
        {
          key: 'b/2',
          size: 3,
          etag: md5(Buffer.from('b/2')),
          lastModified: expect.any(String),
          storageClass: 'STANDARD',
        },
      ],
      prefixes: [],
    });
  });

  it('refuses a cursor it did not issue, a bad limit, and an unknown bucket', async () => {
    const bucket = await newBucket();
    expect(
      expectError(await call('GET', `/buckets/${bucket}/objects?cursor=garbage`), 400, 'ValidationError'),
    ).toContain('cursor');
    expect(expectError(await call('GET', `/buckets/${bucket}/objects?limit=0`), 400, 'ValidationError')).toContain(
      'limit',
    );
    expect(expectError(await call('GET', `/buckets/${bucket}/objects?limit=1001`), 400, 'ValidationError')).toContain(
      'limit',
    );
    expectError(await call('GET', `/buckets/${uniqueBucket('nope')}/objects`), 404, 'NoSuchBucket');
    expectError(await call('GET', `/buckets/${uniqueBucket('nope')}/objects/versions`), 404, 'NoSuchBucket');
  });

  it('lists every version and delete marker, newest first, across pages', async () => {
    const bucket = await newBucket({ versioning: true });
    const ids: string[] = [];
    for (const body of ['one', 'two', 'three']) {
      const res = await upload({ bucket, key: 'doc' }, body);
      ids.push(((await res.json()) as { versionId: string }).versionId);
    }
    await upload({ bucket, key: 'other' }, 'x');
    const marker = await fetch(`${store.server.url}/api/admin/buckets/${bucket}/objects/content?key=doc`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${await store.admin()}` },
    });
    expect(marker.status).toBe(204);
    expect(marker.headers.get('x-amz-delete-marker')).toBe('true');
    const markerId = marker.headers.get('x-amz-version-id');
    const all: Json[] = [];
    let cursor: string | undefined;
    do {
      const res = await call('GET', `/buckets/${bucket}/objects/versions?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const page = res.body as { versions: Json[]; nextCursor?: string };
      all.push(...page.versions);
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    expect(all.map((v) => [v['key'], v['versionId'], v['isLatest'], v['isDeleteMarker']])).toEqual([
      ['doc', markerId, true, true],
      ['doc', ids[2], false, false],
      ['doc', ids[1], false, false],
      ['doc', ids[0], false, false],
      ['other', expect.any(String), true, false],
    ]);
    const older = await download({ bucket, key: 'doc' }, {}, `&versionId=${ids[0]}`);
    expect(await older.text()).toBe('one');
    expectError(await call('GET', `/buckets/${bucket}/objects/info?key=doc`), 404, 'NoSuchKey');
    // Removing the marker by its version id brings the object back.
    expect((await call('DELETE', `/buckets/${bucket}/objects/content?key=doc&versionId=${markerId}`)).status).toBe(204);
    expect(await (await download({ bucket, key: 'doc' })).text()).toBe('three');
  });

  it("reports one version's metadata, tags and lock state", async () => {
    const bucket = await newBucket({ objectLock: true });
    await store.s3.send(
      new PutObjectCommand({
        Bucket: bucket,
        Key: 'k',
        Body: 'body',
        ContentType: 'text/plain',
        Metadata: { owner: 'me' },
        Tagging: 'a=1',
        ObjectLockLegalHoldStatus: 'ON',
      }),
    );
    const info = await call('GET', `/buckets/${bucket}/objects/info?key=k`);
    expect(info.body).toMatchObject({
      key: 'k',
      isLatest: true,
      size: 4,
      etag: md5(Buffer.from('body')),
      contentType: 'text/plain',
      userMetadata: { owner: 'me' },
      tags: [{ key: 'a', value: '1' }],
      legalHold: true,
    });
    expectError(await call('GET', `/buckets/${bucket}/objects/info?key=missing`), 404, 'NoSuchKey');
    expect(expectError(await call('GET', `/buckets/${bucket}/objects/info`), 400, 'ValidationError')).toContain('key');
    await call('PUT', `/buckets/${bucket}/objects/legal-hold?key=k`, { status: 'OFF' });
  });
});

describe('batch delete', () => {
  it('deletes what it may and reports a locked version as AccessDenied, as DeleteObjects does', async () => {
    const bucket = await newBucket({ objectLock: true });
    const held = (await (await upload({ bucket, key: 'held' }, 'x')).json()) as { versionId: string };
    expect(
      (
        await call('PUT', `/buckets/${bucket}/objects/legal-hold?${q('held', `&versionId=${held.versionId}`)}`, {
          status: 'ON',
        })
      ).status,
    ).toBe(200);
    await upload({ bucket, key: 'free' }, 'y');
    const res = await call('POST', `/buckets/${bucket}/objects/delete`, {
      keys: [
        { key: 'held', versionId: held.versionId },
        { key: 'free' },
        { key: 'never-existed' },
        { key: 'free', versionId: 'bad-id' },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      deleted: 2,
      failed: 2,
      results: [
        { key: 'held', versionId: held.versionId, ok: false, error: 'AccessDenied' },
        { key: 'free', ok: true, deleteMarker: true, deleteMarkerVersionId: expect.any(String) },
        { key: 'never-existed', ok: true, deleteMarker: true },
        { key: 'free', versionId: 'bad-id', ok: false, error: 'InvalidArgument' },
      ],
    });
    expect((await download({ bucket, key: 'held' })).status).toBe(200);
    expect(auditEvents()).toContainEqual(
      expect.objectContaining({
        event: 'object.batch_deleted',
        bucket,
        details: expect.objectContaining({ count: 2 }),
      }),
    );
    await call('PUT', `/buckets/${bucket}/objects/legal-hold?${q('held', `&versionId=${held.versionId}`)}`, {
      status: 'OFF',
    });
  });

  it('refuses an empty or oversized batch and an unknown bucket', async () => {
    const bucket = await newBucket();
    expect(
      expectError(await call('POST', `/buckets/${bucket}/objects/delete`, { keys: [] }), 400, 'ValidationError'),
    ).toContain('keys');
    const tooMany = Array.from({ length: 1001 }, (_, i) => ({ key: `k${i}` }));
    expectError(await call('POST', `/buckets/${bucket}/objects/delete`, { keys: tooMany }), 400, 'ValidationError');
    expectError(
      await call('POST', `/buckets/${uniqueBucket('nope')}/objects/delete`, { keys: [{ key: 'a' }] }),
      404,
      'NoSuchBucket',
    );
  });
});

describe('tagging, retention and legal hold', () => {
  it('tags a version (seen by the S3 plane), refuses bad tags, removes them', async () => {
    const bucket = await newBucket();
    await upload({ bucket, key: 'dir/t' }, 'x');
    const path = `/buckets/${bucket}/objects/tagging?${q('dir/t')}`;
    expect((await call('GET', path)).body).toEqual({ versionId: 'null', tags: [] });
    const tags = [{ key: 'kind', value: 'report' }];
    expect((await call('PUT', path, { tags })).body).toEqual({ versionId: 'null', tags });
    const fromS3 = await store.s3.send(new GetObjectTaggingCommand({ Bucket: bucket, Key: 'dir/t' }));
    expect(fromS3.TagSet).toEqual([{ Key: 'kind', Value: 'report' }]);
    const eleven = Array.from({ length: 11 }, (_, i) => ({ key: `k${i}`, value: 'v' }));
    expectError(await call('PUT', path, { tags: eleven }), 400, 'InvalidTag');
    expectError(
      await call('PUT', path, {
        tags: [
          { key: 'a', value: 'b' },
          { key: 'a', value: 'c' },
        ],
      }),
      400,
      'InvalidTag',
    );
    expectError(await call('PUT', `/buckets/${bucket}/objects/tagging?key=missing`, { tags }), 404, 'NoSuchKey');
    expect((await call('DELETE', path)).status).toBe(204);
    expect((await call('GET', path)).body).toEqual({ versionId: 'null', tags: [] });
    expect(auditEvents()).toContainEqual(
      expect.objectContaining({
        event: 'object.tagging_updated',
        bucket,
        details: expect.objectContaining({ key: 'dir/t' }),
      }),
    );
  });

  it('retention: set, extend, refuse shortening without bypass, allow it with bypass, remove', async () => {
    const bucket = await newBucket({ objectLock: true });
    await upload({ bucket, key: 'r' }, 'x');
    const path = `/buckets/${bucket}/objects/retention?key=r`;
    expectError(await call('GET', path), 404, 'NoSuchObjectLockConfiguration');
    const far = new Date(Date.now() + 10 * 86_400_000).toISOString();
    const near = new Date(Date.now() + 86_400_000).toISOString();
    const set = await call('PUT', path, { mode: 'GOVERNANCE', retainUntilDate: far });
    expect(set.body).toEqual({ versionId: expect.any(String), mode: 'GOVERNANCE', retainUntilDate: far });
    expect((await call('GET', path)).body).toEqual({ mode: 'GOVERNANCE', retainUntilDate: far });
    expectError(
      await call(
        'DELETE',
        `/buckets/${bucket}/objects/content?key=r&versionId=${(set.body as Json)['versionId'] as string}`,
      ),
      403,
      'AccessDenied',
    );
    expectError(await call('PUT', path, { mode: 'GOVERNANCE', retainUntilDate: near }), 403, 'AccessDenied');
    expect(
      (await call('PUT', path, { mode: 'GOVERNANCE', retainUntilDate: near, bypassGovernance: true })).status,
    ).toBe(200);
    expect(expectError(await call('PUT', path, { mode: 'GOVERNANCE' }), 400, 'ValidationError')).toContain(
      'retainUntilDate',
    );
    expect(
      expectError(
        await call('PUT', path, { mode: 'GOVERNANCE', retainUntilDate: 'next tuesday' }),
        400,
        'ValidationError',
      ),
    ).toContain('retainUntilDate');
    expectError(
      await call('PUT', path, { mode: 'GOVERNANCE', retainUntilDate: '2001-01-01T00:00:00Z' }),
      400,
      'InvalidArgument',
    );
    expect(
      expectError(await call('PUT', path, { mode: 'FOREVER', retainUntilDate: far }), 400, 'ValidationError'),
    ).toContain('mode');
    expectError(await call('PUT', path, {}), 403, 'AccessDenied');
    expect((await call('PUT', path, { bypassGovernance: true })).body).toEqual({ versionId: expect.any(String) });
    expectError(await call('GET', path), 404, 'NoSuchObjectLockConfiguration');
    expect(auditEvents()).toContainEqual(expect.objectContaining({ event: 'object.retention_updated', bucket }));
    const plain = await newBucket();
    await upload({ bucket: plain, key: 'p' }, 'x');
    expectError(await call('GET', `/buckets/${plain}/objects/retention?key=p`), 400, 'InvalidRequest');
  });

  it('legal hold blocks the delete of that version until released', async () => {
    const bucket = await newBucket({ objectLock: true });
    const { versionId } = (await (await upload({ bucket, key: 'h' }, 'x')).json()) as { versionId: string };
    const path = `/buckets/${bucket}/objects/legal-hold?key=h`;
    expect((await call('GET', path)).body).toEqual({ status: 'OFF' });
    expect((await call('PUT', path, { status: 'ON' })).body).toEqual({ versionId, status: 'ON' });
    expectError(
      await call('DELETE', `/buckets/${bucket}/objects/content?key=h&versionId=${versionId}`),
      403,
      'AccessDenied',
    );
    expect(expectError(await call('PUT', path, { status: 'MAYBE' }), 400, 'ValidationError')).toContain('status');
    expect((await call('PUT', path, { status: 'OFF' })).body).toEqual({ versionId, status: 'OFF' });
    expect((await call('DELETE', `/buckets/${bucket}/objects/content?key=h&versionId=${versionId}`)).status).toBe(204);
    expect(auditEvents()).toContainEqual(
      expect.objectContaining({
        event: 'object.legal_hold_updated',
        bucket,
        details: expect.objectContaining({ status: 'ON' }),
      }),
    );
  });
});

describe('raw content', () => {
  it('serves ranges (206), refuses unsatisfiable ones (416), and never lets content render', async () => {
    const bucket = await newBucket();
    await store.s3.send(
      new PutObjectCommand({ Bucket: bucket, Key: 'page.html', Body: '0123456789', ContentType: 'text/html' }),
    );
    const whole = await download({ bucket, key: 'page.html' });
    expect(whole.status).toBe(200);
    expect(await whole.text()).toBe('0123456789');
    expect(whole.headers.get('content-type')).toBe('text/html');
    expect(whole.headers.get('etag')).toBe(`"${md5(Buffer.from('0123456789'))}"`);
    expect(Date.parse(whole.headers.get('last-modified') ?? '')).toBeGreaterThan(0);
    expect(whole.headers.get('content-disposition')).toMatch(/^attachment; filename="page.html"/);
    expect(whole.headers.get('x-content-type-options')).toBe('nosniff');
    const part = await download({ bucket, key: 'page.html' }, { range: 'bytes=2-4' });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe('bytes 2-4/10');
    expect(await part.text()).toBe('234');
    const suffix = await download({ bucket, key: 'page.html' }, { range: 'bytes=-3' });
    expect([suffix.status, await suffix.text()]).toEqual([206, '789']);
    const beyond = await download({ bucket, key: 'page.html' }, { range: 'bytes=10-' });
    expect(beyond.status).toBe(416);
    expect(beyond.headers.get('content-range')).toBe('bytes */10');
    expect(await beyond.json()).toMatchObject({ error: 'InvalidRange', statusCode: 416 });
    const head = await fetch(`${store.server.url}/api/admin/buckets/${bucket}/objects/content?key=page.html`, {
      method: 'HEAD',
      headers: { authorization: `Bearer ${await store.admin()}` },
    });
    expect([head.status, head.headers.get('content-length'), await head.text()]).toEqual([200, '10', '']);
    const missing = await download({ bucket, key: 'nope' });
    expect([missing.status, ((await missing.json()) as Json)['error']]).toEqual([404, 'NoSuchKey']);
  });

  it('round-trips keys with slashes, spaces, dots, percent signs and Unicode, both ways with the S3 SDK', async () => {
    const bucket = await newBucket();
    const fromSdk = await newBucket();
    const keys = [
      'a/b/c.txt',
      'sp ace',
      'a/../b',
      '.',
      '100%',
      'plus+sign',
      'q?x=1&y=2#frag',
      'ünïcödé/日本語 😀',
      'trailing/',
      'k'.repeat(1024),
    ];
    for (const key of keys) {
      const res = await upload({ bucket, key }, `admin:${key}`, { 'content-type': 'text/plain; charset=utf-8' });
      expect(res.status, key).toBe(200);
      const got = await store.s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
      expect(await got.Body?.transformToString(), key).toBe(`admin:${key}`);
      expect(got.ContentType).toBe('text/plain; charset=utf-8');
      await store.s3.send(new PutObjectCommand({ Bucket: fromSdk, Key: key, Body: `sdk:${key}` }));
      expect(await (await download({ bucket: fromSdk, key })).text(), key).toBe(`sdk:${key}`);
    }
    const listed = await call('GET', `/buckets/${bucket}/objects?limit=1000`);
    const listedKeys = (listed.body as { objects: Json[] }).objects.map((o) => o['key']);
    for (const key of keys) expect(listedKeys).toContain(key);
    const tooLong = await upload({ bucket, key: 'k'.repeat(1025) }, 'x');
    expect([tooLong.status, ((await tooLong.json()) as Json)['error']]).toEqual([400, 'KeyTooLongError']);
  });

  it('streams a 20 MiB upload without a length into the store and reads it back byte-identical with its MD5 etag', async () => {
    const bucket = await newBucket();
    const data = randomBytes(20 * 1024 * 1024);
    const chunks = Readable.from(
      (function* () {
        for (let at = 0; at < data.length; at += 256 * 1024) yield data.subarray(at, at + 256 * 1024);
      })(),
    );
    const res = await upload({ bucket, key: 'big.bin' }, Readable.toWeb(chunks) as ReadableStream, {
      'content-type': 'application/x-big',
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ etag: md5(data), size: data.length });
    const back = Buffer.from(await (await download({ bucket, key: 'big.bin' })).arrayBuffer());
    expect(back.equals(data)).toBe(true);
    const got = await store.s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'big.bin' }));
    expect(got.ETag).toBe(`"${md5(data)}"`);
    expect(got.ContentType).toBe('application/x-big');
    const tail = await download({ bucket, key: 'big.bin' }, { range: `bytes=${data.length - 5}-` });
    expect(Buffer.from(await tail.arrayBuffer()).equals(data.subarray(data.length - 5))).toBe(true);
  });

  it('stores any content type (JSON bodies are not parsed), verifies Content-MD5, answers empty objects', async () => {
    const bucket = await newBucket({ versioning: true });
    const json = await upload({ bucket, key: 'x.json' }, '{"not":"parsed"}', { 'content-type': 'application/json' });
    expect(json.status).toBe(200);
    expect(await (await download({ bucket, key: 'x.json' })).text()).toBe('{"not":"parsed"}');
    const noType = await upload({ bucket, key: 'raw' }, new Uint8Array([1, 2, 3]));
    expect(((await noType.json()) as Json)['versionId']).toEqual(expect.any(String));
    expect((await download({ bucket, key: 'raw' })).headers.get('content-type')).toBe('application/octet-stream');
    const good = createHash('md5').update('abc').digest('base64');
    expect((await upload({ bucket, key: 'md5' }, 'abc', { 'content-md5': good })).status).toBe(200);
    const bad = await upload({ bucket, key: 'md5' }, 'abd', { 'content-md5': good });
    expect([bad.status, ((await bad.json()) as Json)['error']]).toEqual([400, 'BadDigest']);
    const malformed = await upload({ bucket, key: 'md5' }, 'abc', { 'content-md5': 'nope' });
    expect([malformed.status, ((await malformed.json()) as Json)['error']]).toEqual([400, 'InvalidDigest']);
    expect((await upload({ bucket, key: 'empty' }, '')).status).toBe(200);
    const empty = await download({ bucket, key: 'empty' });
    expect([empty.status, await empty.text(), empty.headers.get('content-length')]).toEqual([200, '', '0']);
    expect(auditEvents()).toContainEqual(
      expect.objectContaining({
        event: 'object.uploaded',
        bucket,
        details: expect.objectContaining({ key: 'x.json', size: 16 }),
      }),
    );
    const unknown = await upload({ bucket: uniqueBucket('nope'), key: 'k' }, 'x');
    expect([unknown.status, ((await unknown.json()) as Json)['error']]).toEqual([404, 'NoSuchBucket']);
  });

  it('deletes: a delete marker in a versioned bucket, audited', async () => {
    const bucket = await newBucket({ versioning: true });
    await upload({ bucket, key: 'gone' }, 'x');
    const res = await call('DELETE', `/buckets/${bucket}/objects/content?key=gone`);
    expect(res.status).toBe(204);
    expect(res.headers.get('x-amz-delete-marker')).toBe('true');
    expect((await download({ bucket, key: 'gone' })).status).toBe(404);
    expect(auditEvents()).toContainEqual(
      expect.objectContaining({
        event: 'object.deleted',
        bucket,
        details: expect.objectContaining({ key: 'gone', deleteMarker: true }),
      }),
    );
    expectError(await call('DELETE', `/buckets/${uniqueBucket('nope')}/objects/content?key=a`), 404, 'NoSuchBucket');
  });
});
