// The lifecycle worker's rules, driven through LifecycleService.runOnce with an injected clock over the real
// services and storage in a temp directory; plus one end-to-end pass of the real server's worker.
// Run bounds, resumption, races and failures are in lifecycle-runs.test.ts.

import { HeadObjectCommand, PutBucketLifecycleConfigurationCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { body } from '../helpers/services.js';
import { useStore } from '../helpers/store.js';
import { DAY, openHarness, rule, type LifecycleHarness } from './lifecycle-fixture.js';
import { failure } from './s3-assert.js';
import { INLINE_MAX_BYTES } from '../../src/services/objects/body-ingest.js';

let h: LifecycleHarness;

beforeEach(async () => {
  h = await openHarness();
});
afterEach(() => h.fx.close());

describe('Expiration', () => {
  it('removes an object in an unversioned bucket at the first midnight UTC after creation + Days, not before', async () => {
    const b = h.bucketWith('exp-days', [rule({ expiration: { days: 3 } })]);
    await h.put(b, 'k'); // 2025-01-15T10:30Z: due 2025-01-19T00:00Z (AWS's own example)
    expect((await h.run('2025-01-18T23:59:59.999Z')).expired).toBe(0);
    expect(h.exists(b, 'k')).toBe(true);
    const result = await h.run('2025-01-19T00:00:00.000Z');
    expect(result).toMatchObject({ expired: 1, complete: true });
    expect(h.versions(b, 'k')).toEqual([]);
  });

  it("queues the expired object's blob file for garbage collection and drops inline bytes at once", async () => {
    const b = h.bucketWith('exp-gc', [rule({ expiration: { days: 1 } })]);
    const file = await h.put(b, 'large', 'x'.repeat(INLINE_MAX_BYTES + 1));
    const inline = await h.put(b, 'small');
    await h.run('2025-01-20T00:00:00Z');
    const count = (sql: string, id: string): number =>
      h.fx.meta.db.prepare<[string], number>(sql).pluck().get(id) as number;
    expect(count('SELECT count(*) FROM blob_gc WHERE blob_id = ?', file.blobId as string)).toBe(1);
    expect(count('SELECT count(*) FROM inline_blobs WHERE blob_id = ?', inline.blobId as string)).toBe(0);
  });

  it('expires by Date: nothing before it, then every matching object, including ones written after the date', async () => {
    const b = h.bucketWith('exp-date', [rule({ expiration: { date: '2025-02-01T00:00:00.000Z' } })]);
    await h.put(b, 'early');
    expect((await h.run('2025-01-31T23:59:59Z')).expired).toBe(0);
    expect((await h.run('2025-02-01T00:00:00Z')).expired).toBe(1);
    h.fx.clock.set('2025-03-01T12:00:00Z');
    await h.put(b, 'late');
    expect((await h.run('2025-03-01T12:00:01Z')).expired).toBe(1);
    expect(h.exists(b, 'late')).toBe(false);
  });

  it('adds a delete marker in a versioned bucket, keeps the version, and does not add a second marker later', async () => {
    const b = h.bucketWith('exp-ver', [rule({ expiration: { days: 1 } })], 'Enabled');
    const v1 = await h.put(b, 'k');
    await h.run('2025-01-17T00:00:00Z');
    const after = h.versions(b, 'k');
    expect(after).toHaveLength(2);
    expect(after[0]).toMatchObject({ isLatest: true, isDeleteMarker: true });
    expect(after[1]).toEqual({ versionId: v1.versionId, isLatest: false, isDeleteMarker: false });
    expect((await h.run('2025-02-17T00:00:00Z')).expired).toBe(0);
    expect(h.versions(b, 'k')).toHaveLength(2);
  });

  it('in a suspended bucket replaces the null current version with a null delete marker', async () => {
    const b = h.bucketWith('exp-susp', [rule({ expiration: { days: 1 } })], 'Enabled');
    const v1 = await h.put(b, 'k');
    h.fx.buckets.setVersioning(b, 'Suspended');
    await h.put(b, 'k'); // the null version, current
    await h.run('2025-01-17T00:00:00Z');
    expect(h.versions(b, 'k')).toEqual([
      { versionId: 'null', isLatest: true, isDeleteMarker: true },
      { versionId: v1.versionId, isLatest: false, isDeleteMarker: false },
    ]);
  });

  it('ignores Disabled rules', async () => {
    const b = h.bucketWith('exp-disabled', [rule({ status: 'Disabled', expiration: { days: 1 } })]);
    await h.put(b, 'k');
    expect((await h.run('2026-01-01T00:00:00Z')).expired).toBe(0);
    expect(h.exists(b, 'k')).toBe(true);
  });

  it('leaves buckets without a lifecycle configuration alone', async () => {
    h.fx.buckets.create('no-rules');
    await h.put('no-rules', 'k');
    h.bucketWith('other', [rule({ expiration: { days: 1 } })]);
    await h.run('2030-01-01T00:00:00Z');
    expect(h.exists('no-rules', 'k')).toBe(true);
  });
});

describe('filters', () => {
  it('applies a rule only to keys under its prefix (and the deprecated rule-level Prefix too)', async () => {
    const b = h.bucketWith('f-prefix', [rule({ filter: { prefix: 'logs/' }, expiration: { days: 1 } })]);
    for (const key of ['logs/a', 'logs/b/c', 'logs', 'logsx', 'data/logs/a', 'a']) await h.put(b, key);
    await h.run('2025-02-01T00:00:00Z');
    const left = ['logs/a', 'logs/b/c', 'logs', 'logsx', 'data/logs/a', 'a'].filter((k) => h.exists(b, k));
    expect(left).toEqual(['logs', 'logsx', 'data/logs/a', 'a']);

    const v1 = h.bucketWith('f-v1', [{ id: 'v1', status: 'Enabled', prefix: 'tmp/', expiration: { days: 1 } }]);
    await h.put(v1, 'tmp/x');
    await h.put(v1, 'keep');
    await h.run('2025-03-01T00:00:00Z');
    expect([h.exists(v1, 'tmp/x'), h.exists(v1, 'keep')]).toEqual([false, true]);
  });

  it('requires every filter tag to match', async () => {
    const b = h.bucketWith('f-tags', [
      rule({
        filter: {
          tags: [
            { key: 'env', value: 'dev' },
            { key: 'team', value: 'a' },
          ],
        },
        expiration: { days: 1 },
      }),
    ]);
    const both = await h.put(b, 'both');
    const one = await h.put(b, 'one');
    const wrong = await h.put(b, 'wrong');
    await h.put(b, 'none');
    h.fx.meta.objects.setTags(both.id, [
      { key: 'team', value: 'a' },
      { key: 'env', value: 'dev' },
      { key: 'x', value: 'y' },
    ]);
    h.fx.meta.objects.setTags(one.id, [{ key: 'env', value: 'dev' }]);
    h.fx.meta.objects.setTags(wrong.id, [
      { key: 'env', value: 'prod' },
      { key: 'team', value: 'a' },
    ]);
    await h.run('2025-02-01T00:00:00Z');
    expect(['both', 'one', 'wrong', 'none'].filter((k) => h.exists(b, k))).toEqual(['one', 'wrong', 'none']);
  });

  it('applies the size bounds exclusively', async () => {
    const b = h.bucketWith('f-size', [
      rule({ filter: { objectSizeGreaterThan: 2, objectSizeLessThan: 5 }, expiration: { days: 1 } }),
    ]);
    for (const n of [2, 3, 4, 5]) await h.put(b, `s${n}`, 'x'.repeat(n));
    await h.run('2025-02-01T00:00:00Z');
    expect(['s2', 's3', 's4', 's5'].filter((k) => h.exists(b, k))).toEqual(['s2', 's5']);
  });

  it('combines rules: each key gets the rule that is due for it', async () => {
    const b = h.bucketWith('f-multi', [
      rule({ filter: { prefix: 'a/' }, expiration: { days: 1 } }),
      rule({ filter: { prefix: 'b/' }, expiration: { days: 30 } }),
      rule({ filter: { prefix: 'a/deep/' }, expiration: { days: 30 } }),
    ]);
    for (const key of ['a/1', 'a/deep/2', 'b/3', 'c/4']) await h.put(b, key);
    await h.run('2025-01-20T00:00:00Z');
    expect(['a/1', 'a/deep/2', 'b/3', 'c/4'].filter((k) => h.exists(b, k))).toEqual(['b/3', 'c/4']);
    await h.run('2025-03-01T00:00:00Z');
    expect(['a/1', 'a/deep/2', 'b/3', 'c/4'].filter((k) => h.exists(b, k))).toEqual(['c/4']);
  });
});

describe('NoncurrentVersionExpiration', () => {
  it("counts NoncurrentDays from when the successor was written, not from the version's own creation", async () => {
    const b = h.bucketWith('nc-days', [rule({ noncurrentVersionExpiration: { noncurrentDays: 2 } })], 'Enabled');
    const v1 = await h.put(b, 'k'); // 2025-01-15T10:30
    h.fx.clock.set('2025-01-20T10:30:00Z');
    const v2 = await h.put(b, 'k'); // v1 noncurrent since 01-20 10:30: due 2025-01-23T00:00
    expect((await h.run('2025-01-22T23:59:59Z')).noncurrentDeleted).toBe(0);
    expect((await h.run('2025-01-23T00:00:00Z')).noncurrentDeleted).toBe(1);
    expect(h.versions(b, 'k').map((v) => v.versionId)).toEqual([v2.versionId]);
    expect(v1.versionId).not.toBe(v2.versionId);
  });

  it('keeps the NewerNoncurrentVersions newest noncurrent versions and deletes older due ones', async () => {
    const b = h.bucketWith(
      'nc-newer',
      [rule({ noncurrentVersionExpiration: { noncurrentDays: 1, newerNoncurrentVersions: 2 } })],
      'Enabled',
    );
    const ids: string[] = [];
    for (let day = 0; day < 5; day++) {
      h.fx.clock.ms = Date.parse('2025-01-01T12:00:00Z') + day * DAY;
      ids.push((await h.put(b, 'k')).versionId);
    }
    const result = await h.run('2025-02-01T00:00:00Z');
    expect(result.noncurrentDeleted).toBe(2);
    expect(h.versions(b, 'k').map((v) => v.versionId)).toEqual([ids[4], ids[3], ids[2]]);
    // A second pass finds nothing more to do: the retained ones stay retained.
    expect((await h.run('2025-03-01T00:00:00Z')).noncurrentDeleted).toBe(0);
  });

  it('never touches the current version', async () => {
    const b = h.bucketWith('nc-current', [rule({ noncurrentVersionExpiration: { noncurrentDays: 1 } })], 'Enabled');
    const v = await h.put(b, 'k');
    await h.run('2030-01-01T00:00:00Z');
    expect(h.versions(b, 'k').map((x) => x.versionId)).toEqual([v.versionId]);
  });
});

describe('expired delete markers', () => {
  it('removes a delete marker once it is the only version left (after its noncurrent versions expire)', async () => {
    const b = h.bucketWith(
      'dm-only',
      [rule({ noncurrentVersionExpiration: { noncurrentDays: 1 }, expiration: { expiredObjectDeleteMarker: true } })],
      'Enabled',
    );
    await h.put(b, 'k');
    h.fx.buckets.setVersioning(b, 'Enabled');
    await h.fx.objects.delete(b, 'k');
    const first = await h.run('2025-01-20T00:00:00Z');
    expect(first).toMatchObject({ noncurrentDeleted: 1, deleteMarkersRemoved: 0 });
    expect(h.versions(b, 'k')).toEqual([expect.objectContaining({ isDeleteMarker: true, isLatest: true })]);
    const second = await h.run('2025-01-20T00:00:01Z');
    expect(second.deleteMarkersRemoved).toBe(1);
    expect(h.versions(b, 'k')).toEqual([]);
  });

  it('keeps a delete marker that still has versions under it', async () => {
    const b = h.bucketWith('dm-keep', [rule({ expiration: { expiredObjectDeleteMarker: true } })], 'Enabled');
    await h.put(b, 'k');
    await h.fx.objects.delete(b, 'k');
    expect((await h.run('2030-01-01T00:00:00Z')).deleteMarkersRemoved).toBe(0);
    expect(h.versions(b, 'k')).toHaveLength(2);
  });

  it('removes a lone delete marker when an Expiration Days rule has passed since the marker was written', async () => {
    const b = h.bucketWith('dm-days', [rule({ expiration: { days: 5 } })], 'Enabled');
    await h.fx.objects.delete(b, 'k'); // a marker with nothing under it, 2025-01-15T10:30: due 01-21
    expect((await h.run('2025-01-20T23:59:59Z')).deleteMarkersRemoved).toBe(0);
    expect((await h.run('2025-01-21T00:00:00Z')).deleteMarkersRemoved).toBe(1);
  });
});

describe('AbortIncompleteMultipartUpload', () => {
  it('aborts uploads under the prefix DaysAfterInitiation after they began and frees their parts', async () => {
    const b = h.bucketWith('mpu', [
      rule({ filter: { prefix: 'tmp/' }, abortIncompleteMultipartUpload: { daysAfterInitiation: 2 } }),
    ]);
    const doomed = h.fx.multipart.create({ bucket: b, key: 'tmp/big', headers: {}, userMeta: {} });
    const part = await h.fx.multipart.uploadPart({
      bucket: b,
      key: 'tmp/big',
      uploadId: doomed.uploadId,
      partNumber: 1,
      body: body('part'),
    });
    const kept = h.fx.multipart.create({ bucket: b, key: 'other/big', headers: {}, userMeta: {} });
    h.fx.clock.set('2025-01-16T10:30:00Z');
    const young = h.fx.multipart.create({ bucket: b, key: 'tmp/young', headers: {}, userMeta: {} });
    const result = await h.run('2025-01-18T00:00:00Z'); // 01-15T10:30 + 2 days -> 01-18T00:00
    expect(result.uploadsAborted).toBe(1);
    expect(() => h.fx.multipart.getUpload(b, 'tmp/big', doomed.uploadId)).toThrow(
      expect.objectContaining({ code: 'NoSuchUpload' }),
    );
    expect(h.fx.multipart.getUpload(b, 'other/big', kept.uploadId).uploadId).toBe(kept.uploadId);
    expect(h.fx.multipart.getUpload(b, 'tmp/young', young.uploadId).uploadId).toBe(young.uploadId);
    const queued = h.fx.meta.db
      .prepare<[string], { n: number }>('SELECT count(*) AS n FROM blob_gc WHERE blob_id = ?')
      .get(part.blobId);
    expect(queued?.n).toBe(1);
  });
});

describe('object lock', () => {
  const future = '2099-01-01T00:00:00.000Z';

  it('never deletes a noncurrent version under GOVERNANCE retention or legal hold, and deletes it once released', async () => {
    const b = h.bucketWith('lock-nc', [rule({ noncurrentVersionExpiration: { noncurrentDays: 1 } })], 'objectLock');
    const governed = await h.put(b, 'k');
    const held = await h.put(b, 'k');
    const free = await h.put(b, 'k');
    const current = await h.put(b, 'k');
    h.fx.meta.objects.setRetention(governed.id, { mode: 'GOVERNANCE', retainUntilDate: '2025-06-01T00:00:00.000Z' });
    h.fx.meta.objects.setLegalHold(held.id, true);
    const first = await h.run('2025-03-01T00:00:00Z');
    expect(first).toMatchObject({ noncurrentDeleted: 1, skippedLocked: 2, failed: 0 });
    expect(h.versions(b, 'k').map((v) => v.versionId)).toEqual([current.versionId, held.versionId, governed.versionId]);
    expect(free.versionId).not.toBe(current.versionId);

    // The retention date passes; the legal hold stays until it is removed.
    const second = await h.run('2025-06-01T00:00:00Z');
    expect(second).toMatchObject({ noncurrentDeleted: 1, skippedLocked: 1 });
    h.fx.meta.objects.setLegalHold(held.id, false);
    expect((await h.run('2025-06-02T00:00:00Z')).noncurrentDeleted).toBe(1);
    expect(h.versions(b, 'k').map((v) => v.versionId)).toEqual([current.versionId]);
  });

  it('expires a locked current version by adding a delete marker (S3 allows markers) while the version stays', async () => {
    const b = h.bucketWith(
      'lock-cur',
      [rule({ expiration: { days: 1 }, noncurrentVersionExpiration: { noncurrentDays: 1 } })],
      'objectLock',
    );
    const v = await h.put(b, 'k');
    h.fx.meta.objects.setRetention(v.id, { mode: 'GOVERNANCE', retainUntilDate: future });
    await h.run('2025-02-01T00:00:00Z');
    await h.run('2025-03-01T00:00:00Z'); // now noncurrent and due, but locked
    const left = h.versions(b, 'k');
    expect(left[0]).toMatchObject({ isLatest: true, isDeleteMarker: true });
    expect(left.map((x) => x.versionId)).toContain(v.versionId);
  });

  it('does not remove a legally held object even where expiring would delete it outright', async () => {
    const b = h.bucketWith('lock-unver', [rule({ expiration: { days: 1 } })]);
    const v = await h.put(b, 'k');
    h.fx.meta.objects.setLegalHold(v.id, true);
    const result = await h.run('2025-02-01T00:00:00Z');
    expect(result).toMatchObject({ expired: 0, skippedLocked: 1 });
    expect(h.exists(b, 'k')).toBe(true);
  });
});

describe("the server's lifecycle worker", () => {
  const store = useStore({ env: { STORE_LIFECYCLE_INTERVAL_MS: '500' } });

  it('expires an object end to end on its interval (STORE_LIFECYCLE_INTERVAL_MS)', async () => {
    const s3 = store.s3;
    const bucket = await store.bucket('lc');
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'keep/me', Body: 'x' }));
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'old/doc', Body: 'x' }));
    await s3.send(
      new PutBucketLifecycleConfigurationCommand({
        Bucket: bucket,
        LifecycleConfiguration: {
          Rules: [
            {
              ID: 'past',
              Status: 'Enabled',
              Filter: { Prefix: 'old/' },
              Expiration: { Date: new Date('2020-01-01T00:00:00Z') },
            },
          ],
        },
      }),
    );
    const deadline = Date.now() + 10_000;
    let gone = false;
    while (!gone && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
      const head = await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'old/doc' })).then(
        () => undefined,
        (err: unknown) => err,
      );
      gone = head !== undefined;
    }
    const err = await failure(s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'old/doc' })));
    expect(err.$metadata?.httpStatusCode).toBe(404);
    const kept = await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'keep/me' }));
    expect(kept.$metadata.httpStatusCode).toBe(200);
  });
});
