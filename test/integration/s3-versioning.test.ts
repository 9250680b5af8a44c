/* eslint-disable max-lines -- one server fixture for the whole versioning contract */
// Versioning through @aws-sdk/client-s3 and minio-js: version ids on PUT, COPY and multipart completion, reads and
// deletes by version, delete markers, the null version's overwrite rules, ListObjectVersions paging, DeleteObjects
// with version ids, and unversioned buckets behaving exactly as before.

import {
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  DeleteBucketCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectVersionsCommand,
  PutBucketVersioningCommand,
  PutObjectCommand,
  UploadPartCommand,
  type ListObjectVersionsCommandOutput,
} from '@aws-sdk/client-s3';
import { beforeAll, describe, expect, it } from 'vitest';
import { uniqueBucket } from '../helpers/clients.js';
import { useStore } from '../helpers/store.js';
import { bodyBytes, errorHeaders, expectBodilessError, expectS3Error } from './s3-assert.js';

const store = useStore({ tmpfs: true });

const UNKNOWN_VERSION = '0190a0a0-0000-7000-8000-000000000000';

async function bucketWith(status?: 'Enabled' | 'Suspended'): Promise<string> {
  const bucket = await store.bucket('ver');
  if (status)
    await store.s3.send(
      new PutBucketVersioningCommand({ Bucket: bucket, VersioningConfiguration: { Status: status } }),
    );
  return bucket;
}

async function setVersioning(bucket: string, status: 'Enabled' | 'Suspended'): Promise<void> {
  await store.s3.send(new PutBucketVersioningCommand({ Bucket: bucket, VersioningConfiguration: { Status: status } }));
}

async function put(bucket: string, key: string, body: string): Promise<string | undefined> {
  return (await store.s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body }))).VersionId;
}

async function text(bucket: string, key: string, versionId?: string): Promise<string> {
  const got = await store.s3.send(new GetObjectCommand({ Bucket: bucket, Key: key, VersionId: versionId }));
  return (await bodyBytes(got.Body)).toString();
}

/** `key:versionId` (or `key:marker:versionId`) with `*` for the latest, in listing order. */
function stack(out: ListObjectVersionsCommandOutput, ids: Record<string, string> = {}): string[] {
  const name = (id: string | undefined): string => Object.entries(ids).find(([, v]) => v === id)?.[0] ?? String(id);
  const entries = [
    ...(out.Versions ?? []).map((v) => ({
      key: v.Key,
      at: v.LastModified,
      text: `${v.Key}:${name(v.VersionId)}${v.IsLatest ? '*' : ''}`,
    })),
    ...(out.DeleteMarkers ?? []).map((d) => ({
      key: d.Key,
      at: d.LastModified,
      text: `${d.Key}:marker:${name(d.VersionId)}${d.IsLatest ? '*' : ''}`,
    })),
  ];
  // The SDK splits versions and markers into two lists: put them back in key order, newest first within a key.
  return entries
    .sort((a, b) =>
      a.key === b.key
        ? (b.at as Date).getTime() - (a.at as Date).getTime()
        : (a.key as string) < (b.key as string)
          ? -1
          : 1,
    )
    .map((e) => e.text);
}

async function versions(bucket: string, prefix?: string): Promise<ListObjectVersionsCommandOutput> {
  return store.s3.send(new ListObjectVersionsCommand({ Bucket: bucket, Prefix: prefix }));
}

describe('an unversioned bucket', () => {
  it('answers no version ids on PUT or GET, lists its objects as the null version, and really deletes', async () => {
    const bucket = await bucketWith();
    expect(await put(bucket, 'k', 'one')).toBeUndefined();
    expect(await put(bucket, 'k', 'two')).toBeUndefined();
    const head = await store.s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'k' }));
    expect(head.VersionId).toBeUndefined();
    const listed = await versions(bucket);
    expect(listed.Versions?.map((v) => [v.Key, v.VersionId, v.IsLatest])).toEqual([['k', 'null', true]]);
    expect(listed.DeleteMarkers).toBeUndefined();
    const del = await store.s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: 'k' }));
    expect(del.DeleteMarker).toBeUndefined();
    expect(del.VersionId).toBeUndefined();
    expect((await versions(bucket)).Versions).toBeUndefined();
    await store.s3.send(new DeleteBucketCommand({ Bucket: bucket }));
  });

  it('reads the null version by id', async () => {
    const bucket = await bucketWith();
    await put(bucket, 'k', 'null body');
    expect(await text(bucket, 'k', 'null')).toBe('null body');
    await expectS3Error(
      store.s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'k', VersionId: UNKNOWN_VERSION })),
      'NoSuchVersion',
      404,
    );
  });
});

describe('an Enabled bucket', () => {
  let bucket: string;
  const ids: Record<string, string> = {};
  beforeAll(async () => {
    bucket = await bucketWith('Enabled');
    ids['v1'] = (await put(bucket, 'doc', 'first')) as string;
    ids['v2'] = (await put(bucket, 'doc', 'second')) as string;
  });

  it('gives every PUT a new version id and keeps the older versions readable by id', async () => {
    expect(ids['v1']).toMatch(/^[0-9a-f-]{36}$/);
    expect(ids['v2']).not.toBe(ids['v1']);
    expect(await text(bucket, 'doc')).toBe('second');
    expect(await text(bucket, 'doc', ids['v1'])).toBe('first');
    const head = await store.s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'doc', VersionId: ids['v1'] }));
    expect(head.VersionId).toBe(ids['v1']);
    expect(head.ContentLength).toBe(5);
    expect(stack(await versions(bucket, 'doc'), ids)).toEqual(['doc:v2*', 'doc:v1']);
  });

  it('answers NoSuchVersion for an unknown id and InvalidArgument for a malformed one', async () => {
    await expectS3Error(
      store.s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'doc', VersionId: UNKNOWN_VERSION })),
      'NoSuchVersion',
      404,
    );
    await expectS3Error(
      store.s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'doc', VersionId: 'not-a-version' })),
      'InvalidArgument',
      400,
    );
    await expectS3Error(
      store.s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: 'doc', VersionId: 'not-a-version' })),
      'InvalidArgument',
      400,
    );
    await expectBodilessError(
      store.s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'doc', VersionId: UNKNOWN_VERSION })),
      404,
    );
  });

  it('a DELETE adds a delete marker: GET is 404 with x-amz-delete-marker, GET of the marker by id is 405', async () => {
    await put(bucket, 'gone', 'x');
    const del = await store.s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: 'gone' }));
    expect(del.DeleteMarker).toBe(true);
    expect(del.VersionId).toMatch(/^[0-9a-f-]{36}$/);
    const err = await expectS3Error(
      store.s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'gone' })),
      'NoSuchKey',
      404,
    );
    expect(errorHeaders(err)['x-amz-delete-marker']).toBe('true');
    expect(errorHeaders(err)['x-amz-version-id']).toBe(del.VersionId);
    const head = await expectBodilessError(store.s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'gone' })), 404);
    expect(errorHeaders(head)['x-amz-delete-marker']).toBe('true');
    const byId = await expectS3Error(
      store.s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'gone', VersionId: del.VersionId })),
      'MethodNotAllowed',
      405,
    );
    expect(errorHeaders(byId)['x-amz-delete-marker']).toBe('true');
    // The key no longer lists as an object, but its versions remain.
    const listed = await versions(bucket, 'gone');
    expect(listed.DeleteMarkers?.map((d) => [d.VersionId, d.IsLatest])).toEqual([[del.VersionId, true]]);
    expect(listed.Versions?.map((v) => v.IsLatest)).toEqual([false]);
  });

  it('deleting the delete marker by its version id restores the previous version', async () => {
    const v = await put(bucket, 'restore', 'back again');
    const marker = await store.s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: 'restore' }));
    const undo = await store.s3.send(
      new DeleteObjectCommand({ Bucket: bucket, Key: 'restore', VersionId: marker.VersionId }),
    );
    expect(undo.DeleteMarker).toBe(true);
    expect(undo.VersionId).toBe(marker.VersionId);
    expect(await text(bucket, 'restore')).toBe('back again');
    expect((await store.s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'restore' }))).VersionId).toBe(v);
  });

  it('deleting the current version by id promotes the next newest; an unknown version id deletes nothing', async () => {
    const a = await put(bucket, 'promote', 'a');
    const b = await put(bucket, 'promote', 'b');
    const out = await store.s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: 'promote', VersionId: b }));
    expect(out.VersionId).toBe(b);
    expect(out.DeleteMarker).toBeUndefined();
    expect(await text(bucket, 'promote')).toBe('a');
    await store.s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: 'promote', VersionId: UNKNOWN_VERSION }));
    expect(stack(await versions(bucket, 'promote'), { a: a as string })).toEqual(['promote:a*']);
  });

  it('gives a COPY a new version id and copies a source version named by id', async () => {
    const out = await store.s3.send(
      new CopyObjectCommand({
        Bucket: bucket,
        Key: 'copy-of-v1',
        CopySource: `${bucket}/doc?versionId=${ids['v1']}`,
      }),
    );
    expect(out.CopySourceVersionId).toBe(ids['v1']);
    expect(out.VersionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(await text(bucket, 'copy-of-v1')).toBe('first');
  });

  it('restores an older version by copying it over the current one (no REPLACE needed)', async () => {
    const out = await store.s3.send(
      new CopyObjectCommand({ Bucket: bucket, Key: 'doc', CopySource: `${bucket}/doc?versionId=${ids['v1']}` }),
    );
    expect(await text(bucket, 'doc')).toBe('first');
    expect((await versions(bucket, 'doc')).Versions).toHaveLength(3);
    await store.s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: 'doc', VersionId: out.VersionId }));
  });

  it('refuses to copy from a delete marker: InvalidRequest by id, NoSuchKey as the current version', async () => {
    await put(bucket, 'marked', 'x');
    const marker = await store.s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: 'marked' }));
    await expectS3Error(
      store.s3.send(
        new CopyObjectCommand({
          Bucket: bucket,
          Key: 'c2',
          CopySource: `${bucket}/marked?versionId=${marker.VersionId}`,
        }),
      ),
      'InvalidRequest',
      400,
    );
    await expectS3Error(
      store.s3.send(new CopyObjectCommand({ Bucket: bucket, Key: 'c2', CopySource: `${bucket}/marked` })),
      'NoSuchKey',
      404,
    );
  });

  it('gives a completed multipart upload a version id', async () => {
    const { UploadId } = await store.s3.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: 'mp' }));
    const part = await store.s3.send(
      new UploadPartCommand({ Bucket: bucket, Key: 'mp', UploadId, PartNumber: 1, Body: 'one part' }),
    );
    const done = await store.s3.send(
      new CompleteMultipartUploadCommand({
        Bucket: bucket,
        Key: 'mp',
        UploadId,
        MultipartUpload: { Parts: [{ PartNumber: 1, ETag: part.ETag }] },
      }),
    );
    expect(done.VersionId).toMatch(/^[0-9a-f-]{36}$/);
    expect((await store.s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'mp' }))).VersionId).toBe(done.VersionId);
  });

  it('a DELETE of a key that never existed still adds a delete marker (as S3)', async () => {
    const out = await store.s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: 'never' }));
    expect(out.DeleteMarker).toBe(true);
    expect((await versions(bucket, 'never')).DeleteMarkers).toHaveLength(1);
  });
});

describe('the null version', () => {
  it('survives as a noncurrent version once versioning is enabled, and stays readable as null', async () => {
    const bucket = await bucketWith();
    await put(bucket, 'k', 'before');
    await setVersioning(bucket, 'Enabled');
    const v = (await put(bucket, 'k', 'after')) as string;
    expect(stack(await versions(bucket), { v })).toEqual(['k:v*', 'k:null']);
    expect(await text(bucket, 'k', 'null')).toBe('before');
  });

  it('a Suspended PUT answers no version id, replaces the null version and keeps real versions', async () => {
    const bucket = await bucketWith();
    await put(bucket, 'k', 'old null');
    await setVersioning(bucket, 'Enabled');
    const v = (await put(bucket, 'k', 'versioned')) as string;
    await setVersioning(bucket, 'Suspended');
    const out = await store.s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'k', Body: 'new null' }));
    expect(out.VersionId).toBeUndefined();
    // GET reports the null version id in a bucket that was versioned.
    const head = await store.s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'k' }));
    expect(head.VersionId).toBe('null');
    expect(stack(await versions(bucket), { v })).toEqual(['k:null*', 'k:v']);
    expect(await text(bucket, 'k', 'null')).toBe('new null');
    expect(await text(bucket, 'k', v)).toBe('versioned');
  });

  it('a Suspended DELETE replaces the null version with a null delete marker', async () => {
    const bucket = await bucketWith('Enabled');
    const v = (await put(bucket, 'k', 'kept')) as string;
    await setVersioning(bucket, 'Suspended');
    await put(bucket, 'k', 'null body');
    const del = await store.s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: 'k' }));
    expect(del).toMatchObject({ DeleteMarker: true, VersionId: 'null' });
    expect(stack(await versions(bucket), { v })).toEqual(['k:marker:null*', 'k:v']);
    // Deleting the null marker brings the versioned object back.
    await store.s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: 'k', VersionId: 'null' }));
    expect(await text(bucket, 'k')).toBe('kept');
  });
});

describe('ListObjectVersions', () => {
  let bucket: string;
  beforeAll(async () => {
    bucket = await bucketWith('Enabled');
    for (const key of ['a', 'a', 'a', 'b/1', 'b/2', 'c', 'c']) await put(bucket, key, key);
    await store.s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: 'c' }));
  });

  it('lists every version newest first per key, with the latest marked and delete markers apart', async () => {
    const out = await versions(bucket);
    expect(out.Versions?.map((v) => `${v.Key}${v.IsLatest ? '*' : ''}`)).toEqual([
      'a*',
      'a',
      'a',
      'b/1*',
      'b/2*',
      'c',
      'c',
    ]);
    expect(out.DeleteMarkers?.map((d) => [d.Key, d.IsLatest])).toEqual([['c', true]]);
    expect(out.Versions?.[0]).toMatchObject({
      ETag: expect.stringMatching(/^"[0-9a-f]{32}"$/),
      Size: 1,
      StorageClass: 'STANDARD',
    });
    expect(out.Versions?.[0]?.Owner?.ID).toBeDefined();
    expect(out.IsTruncated).toBe(false);
    const lastModified =
      out.Versions?.filter((v) => v.Key === 'a').map((v) => (v.LastModified as Date).getTime()) ?? [];
    expect([...lastModified].sort((x, y) => y - x)).toEqual(lastModified);
  });

  it('pages with MaxKeys through NextKeyMarker and NextVersionIdMarker, splitting a key across pages', async () => {
    const all = await versions(bucket);
    const expected = stack(all);
    const seen: string[] = [];
    let KeyMarker: string | undefined;
    let VersionIdMarker: string | undefined;
    for (let page = 0; page < 10; page++) {
      const out = await store.s3.send(
        new ListObjectVersionsCommand({ Bucket: bucket, MaxKeys: 2, KeyMarker, VersionIdMarker }),
      );
      expect((out.Versions?.length ?? 0) + (out.DeleteMarkers?.length ?? 0)).toBeLessThanOrEqual(2);
      seen.push(...stack(out));
      if (!out.IsTruncated) break;
      expect(out.NextKeyMarker).toBeDefined();
      expect(out.NextVersionIdMarker).toBeDefined();
      KeyMarker = out.NextKeyMarker;
      VersionIdMarker = out.NextVersionIdMarker;
    }
    expect(seen).toEqual(expected);
  });

  it('rolls keys up into CommonPrefixes with a delimiter and continues past a prefix that ended a page', async () => {
    const out = await store.s3.send(new ListObjectVersionsCommand({ Bucket: bucket, Delimiter: '/', MaxKeys: 4 }));
    expect(out.Versions?.map((v) => v.Key)).toEqual(['a', 'a', 'a']);
    expect(out.CommonPrefixes?.map((p) => p.Prefix)).toEqual(['b/']);
    expect(out).toMatchObject({ IsTruncated: true, NextKeyMarker: 'b/' });
    expect(out.NextVersionIdMarker).toBeUndefined();
    const next = await store.s3.send(
      new ListObjectVersionsCommand({ Bucket: bucket, Delimiter: '/', KeyMarker: 'b/' }),
    );
    expect(stack(next).map((e) => e.replace(/:.*?(\*?)$/, '$1'))).toEqual(['c*', 'c', 'c']);
    expect(next.CommonPrefixes).toBeUndefined();
  });

  it('filters by prefix and echoes the markers', async () => {
    const out = await store.s3.send(new ListObjectVersionsCommand({ Bucket: bucket, Prefix: 'b/', KeyMarker: 'b/1' }));
    expect(out.Versions?.map((v) => v.Key)).toEqual(['b/2']);
    expect(out).toMatchObject({ Prefix: 'b/', KeyMarker: 'b/1' });
  });

  it('URL-encodes keys with encoding-type=url (the SDK hands them over still encoded)', async () => {
    const b = await bucketWith('Enabled');
    await put(b, 'sp ace/ü+x', 'x');
    const out = await store.s3.send(new ListObjectVersionsCommand({ Bucket: b, EncodingType: 'url' }));
    expect(out.EncodingType).toBe('url');
    expect(out.Versions?.[0]?.Key).toBe('sp+ace/%C3%BC%2Bx');
  });

  it('refuses a version-id marker without a key marker, and a malformed one, with InvalidArgument', async () => {
    await expectS3Error(
      store.s3.send(new ListObjectVersionsCommand({ Bucket: bucket, VersionIdMarker: UNKNOWN_VERSION })),
      'InvalidArgument',
      400,
    );
    await expectS3Error(
      store.s3.send(new ListObjectVersionsCommand({ Bucket: bucket, KeyMarker: 'a', VersionIdMarker: 'bogus' })),
      'InvalidArgument',
      400,
    );
    await expectS3Error(
      store.s3.send(new ListObjectVersionsCommand({ Bucket: uniqueBucket('none') })),
      'NoSuchBucket',
      404,
    );
  });
});

describe('DeleteObjects with version ids', () => {
  it('deletes named versions, removes a delete marker by id, and adds markers for keys without ids', async () => {
    const bucket = await bucketWith('Enabled');
    const v1 = await put(bucket, 'x', '1');
    const v2 = await put(bucket, 'x', '2');
    await put(bucket, 'y', 'y');
    const marker = await store.s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: 'z' }));
    const out = await store.s3.send(
      new DeleteObjectsCommand({
        Bucket: bucket,
        Delete: {
          Objects: [
            { Key: 'x', VersionId: v2 },
            { Key: 'y' },
            { Key: 'z', VersionId: marker.VersionId },
            { Key: 'x', VersionId: 'bad-id' },
          ],
        },
      }),
    );
    const byKey = Object.fromEntries((out.Deleted ?? []).map((d) => [`${d.Key}`, d]));
    expect(byKey['x']).toMatchObject({ VersionId: v2 });
    expect(byKey['x']?.DeleteMarker).toBeUndefined();
    expect(byKey['y']).toMatchObject({
      DeleteMarker: true,
      DeleteMarkerVersionId: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    expect(byKey['z']).toMatchObject({
      VersionId: marker.VersionId,
      DeleteMarker: true,
      DeleteMarkerVersionId: marker.VersionId,
    });
    expect(out.Errors?.map((e) => [e.Key, e.VersionId, e.Code])).toEqual([['x', 'bad-id', 'InvalidArgument']]);
    expect(await text(bucket, 'x')).toBe('1');
    expect((await store.s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'x' }))).VersionId).toBe(v1);
    await expectS3Error(store.s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'y' })), 'NoSuchKey', 404);
  });

  it('a bucket with any version or delete marker left cannot be deleted; emptied of versions, it can', async () => {
    const bucket = await bucketWith('Enabled');
    const v = await put(bucket, 'k', 'x');
    const marker = await store.s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: 'k' }));
    await expectS3Error(store.s3.send(new DeleteBucketCommand({ Bucket: bucket })), 'BucketNotEmpty', 409);
    await store.s3.send(
      new DeleteObjectsCommand({
        Bucket: bucket,
        Delete: {
          Objects: [
            { Key: 'k', VersionId: v },
            { Key: 'k', VersionId: marker.VersionId },
          ],
        },
      }),
    );
    await store.s3.send(new DeleteBucketCommand({ Bucket: bucket }));
  });
});

describe('minio-js', () => {
  it('reads versioning state, lists versions, stats and removes by version id', async () => {
    const bucket = uniqueBucket('vminio');
    await store.minio.makeBucket(bucket);
    expect(await store.minio.getBucketVersioning(bucket)).not.toMatchObject({ Status: 'Enabled' });
    await store.minio.setBucketVersioning(bucket, { Status: 'Enabled' });
    expect(await store.minio.getBucketVersioning(bucket)).toMatchObject({ Status: 'Enabled' });
    const first = await store.minio.putObject(bucket, 'm/obj', Buffer.from('one'));
    const second = await store.minio.putObject(bucket, 'm/obj', Buffer.from('two!'));
    expect(first.versionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(second.versionId).not.toBe(first.versionId);
    const stat = await store.minio.statObject(bucket, 'm/obj', { versionId: first.versionId as string });
    expect(stat.size).toBe(3);
    expect(stat.versionId).toBe(first.versionId);

    const listed: { name?: string; versionId?: string | null; isLatest?: boolean; isDeleteMarker?: boolean }[] = [];
    await new Promise<void>((resolve, reject) => {
      const stream = store.minio.listObjects(bucket, 'm/', true, { IncludeVersion: true });
      stream.on('data', (item) => listed.push(item as (typeof listed)[number]));
      stream.on('end', resolve);
      stream.on('error', reject);
    });
    expect(listed.map((o) => [o.name, o.versionId, o.isLatest])).toEqual([
      ['m/obj', second.versionId, true],
      ['m/obj', first.versionId, false],
    ]);

    await store.minio.removeObject(bucket, 'm/obj', { versionId: second.versionId as string });
    expect((await store.minio.statObject(bucket, 'm/obj')).versionId).toBe(first.versionId);
    await store.minio.removeObject(bucket, 'm/obj');
    await expect(store.minio.statObject(bucket, 'm/obj')).rejects.toMatchObject({ code: 'NotFound' });
  });
});
