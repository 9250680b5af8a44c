// Per-bucket usage counters (the bucket_usage triggers) through the real services, checked against a full scan after
// every kind of write; and the small service methods the admin API uses (create with versioning, setObjectLock,
// deleteBatch).

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { codeOf } from '../../../test/helpers/error-code.js';
import { body, openServices, type ServiceFixture } from '../../../test/helpers/services.js';
import { AppError } from '../../core/errors.js';
import type { BucketUsage } from '../bucket-service.js';
import { ALLOW_EVERY_KEY, type DeleteTarget } from './delete-authorizer.js';

let fx: ServiceFixture;

beforeEach(async () => {
  fx = await openServices('2030-01-01T00:00:00Z');
});
afterEach(async () => {
  await fx.close();
});

/** The usage a full scan of the objects table gives: what the counters must always equal. */
function scanned(bucket: string): BucketUsage {
  const row = fx.meta.db
    .prepare<[string], { oc: number; ob: number; vc: number; vb: number }>(
      `SELECT coalesce(sum(is_latest = 1 AND is_delete_marker = 0), 0) AS oc,
            coalesce(sum(CASE WHEN is_latest = 1 AND is_delete_marker = 0 THEN size ELSE 0 END), 0) AS ob,
            count(*) AS vc, coalesce(sum(size), 0) AS vb
     FROM objects WHERE bucket = ?`,
    )
    .get(bucket);
  return {
    objectCount: row?.oc ?? -1,
    objectBytes: row?.ob ?? -1,
    versionCount: row?.vc ?? -1,
    versionBytes: row?.vb ?? -1,
  };
}

const put = (bucket: string, key: string, data: string) =>
  fx.objects.put({ bucket, key, body: body(data), headers: {}, userMeta: {} });

describe('bucket usage counters', () => {
  it('follow puts, overwrites and deletes in an unversioned bucket', async () => {
    fx.buckets.create('plain');
    expect(fx.buckets.usage('plain')).toEqual({ objectCount: 0, objectBytes: 0, versionCount: 0, versionBytes: 0 });
    await put('plain', 'a', '12345');
    await put('plain', 'b', '123');
    await put('plain', 'a', '1'); // replaces the null version
    expect(fx.buckets.usage('plain')).toEqual({ objectCount: 2, objectBytes: 4, versionCount: 2, versionBytes: 4 });
    fx.objects.delete('plain', 'a');
    expect(fx.buckets.usage('plain')).toEqual({ objectCount: 1, objectBytes: 3, versionCount: 1, versionBytes: 3 });
    expect(fx.buckets.usage('plain')).toEqual(scanned('plain'));
  });

  it('count current objects apart from every version, delete markers included, and restore on marker removal', async () => {
    fx.buckets.create('ver', { versioning: true });
    await put('ver', 'k', 'aaaa');
    await put('ver', 'k', 'bb');
    expect(fx.buckets.usage('ver')).toEqual({ objectCount: 1, objectBytes: 2, versionCount: 2, versionBytes: 6 });
    const marker = fx.objects.delete('ver', 'k');
    expect(fx.buckets.usage('ver')).toEqual({ objectCount: 0, objectBytes: 0, versionCount: 3, versionBytes: 6 });
    fx.objects.delete('ver', 'k', { versionId: marker.versionId }); // the newest real version is current again
    expect(fx.buckets.usage('ver')).toEqual({ objectCount: 1, objectBytes: 2, versionCount: 2, versionBytes: 6 });
    expect(fx.buckets.usage('ver')).toEqual(scanned('ver'));
    fx.buckets.setVersioning('ver', 'Suspended');
    await put('ver', 'k', 'c');
    fx.objects.delete('ver', 'k');
    expect(fx.buckets.usage('ver')).toEqual(scanned('ver'));
  });

  it('count a completed multipart upload once, at its full size', async () => {
    fx.buckets.create('mpu');
    const upload = fx.multipart.create({ bucket: 'mpu', key: 'big', headers: {}, userMeta: {} });
    const part = await fx.multipart.uploadPart({
      bucket: 'mpu',
      key: 'big',
      uploadId: upload.uploadId,
      partNumber: 1,
      body: body('x'.repeat(100)),
    });
    await fx.multipart.complete({
      bucket: 'mpu',
      key: 'big',
      uploadId: upload.uploadId,
      parts: [{ partNumber: 1, etag: part.etag, checksums: {} }],
    });
    expect(fx.buckets.usage('mpu')).toEqual({ objectCount: 1, objectBytes: 100, versionCount: 1, versionBytes: 100 });
  });

  it('are listed for every bucket and go with a deleted bucket', async () => {
    fx.buckets.create('one-b');
    fx.buckets.create('two-b');
    await put('two-b', 'x', 'xyz');
    const listed = fx.buckets.listWithUsage();
    expect(listed.map((b) => [b.bucket.name, b.usage.objectCount, b.usage.objectBytes])).toEqual([
      ['one-b', 0, 0],
      ['two-b', 1, 3],
    ]);
    fx.buckets.delete('one-b');
    fx.buckets.create('one-b');
    expect(fx.buckets.usage('one-b').objectCount).toBe(0);
    expect(codeOf(() => fx.buckets.usage('missing'))).toBe('NoSuchBucket');
  });
});

describe('BucketService additions', () => {
  it('creates a bucket with versioning Enabled in one step', () => {
    expect(fx.buckets.create('vvv', { versioning: true }).versioning).toBe('Enabled');
    expect(fx.buckets.get('vvv').versioning).toBe('Enabled');
    expect(fx.buckets.create('uuu').versioning).toBe('Unversioned');
  });

  it('setObjectLock validates through core and needs versioning Enabled', () => {
    fx.buckets.create('uuu');
    expect(codeOf(() => fx.buckets.setObjectLock('uuu', { enabled: true }))).toBe('InvalidBucketState');
    fx.buckets.setVersioning('uuu', 'Enabled');
    expect(
      codeOf(() => fx.buckets.setObjectLock('uuu', { enabled: true, defaultRetention: { mode: 'GOVERNANCE' } })),
    ).toBe('MalformedXML');
    expect(
      codeOf(() =>
        fx.buckets.setObjectLock('uuu', { enabled: true, defaultRetention: { mode: 'GOVERNANCE', days: 0 } }),
      ),
    ).toBe('InvalidArgument');
    expect(fx.buckets.get('uuu').objectLock).toBe(false);
    const row = fx.buckets.setObjectLock('uuu', { enabled: true, defaultRetention: { mode: 'GOVERNANCE', days: 1 } });
    expect(row.objectLock).toBe(true);
    expect(fx.buckets.get('uuu').config.objectLock).toEqual({
      enabled: true,
      defaultRetention: { mode: 'GOVERNANCE', days: 1 },
    });
    expect(codeOf(() => fx.buckets.setObjectLock('missing', { enabled: true }))).toBe('NoSuchBucket');
  });
});

describe('ObjectService.deleteBatch', () => {
  it('reports a locked version and a bad key apart and still deletes the others', async () => {
    fx.buckets.create('locked', { objectLock: true });
    const kept = await fx.objects.put({
      bucket: 'locked',
      key: 'held',
      body: body('x'),
      headers: {},
      userMeta: {},
      lock: { legalHold: 'ON' },
    });
    await put('locked', 'free', 'y');
    const outcomes = fx.objects.deleteBatch(
      'locked',
      [
        { key: 'held', versionId: kept.versionId },
        { key: 'free' },
        { key: 'k'.repeat(2000) },
        { key: 'free', versionId: 'not-a-version' },
      ],
      { authorize: ALLOW_EVERY_KEY },
    );
    expect(outcomes.map((o) => (o.ok ? 'ok' : o.code))).toEqual([
      'AccessDenied',
      'ok',
      'KeyTooLongError',
      'InvalidArgument',
    ]);
    const free = outcomes[1];
    expect(free?.ok && free.result.deleteMarker).toBe(true);
    expect(fx.objects.open('locked', 'held').row.versionId).toBe(kept.versionId);
    expect(codeOf(() => fx.objects.deleteBatch('missing', [{ key: 'a' }], { authorize: ALLOW_EVERY_KEY }))).toBe(
      'NoSuchBucket',
    );
  });

  it('asks its authorizer about each key before deleting it: a refused key is reported and kept, the others go', async () => {
    fx.buckets.create('guarded');
    await put('guarded', 'keep/a', 'x');
    await put('guarded', 'tmp/a', 'y');
    const asked: DeleteTarget[] = [];
    const outcomes = fx.objects.deleteBatch('guarded', [{ key: 'keep/a' }, { key: 'tmp/a' }], {
      bypassGovernance: true,
      authorize: (target) => {
        asked.push(target);
        if (target.key.startsWith('keep/')) throw new AppError('AccessDenied');
      },
    });
    expect(outcomes.map((o) => (o.ok ? 'ok' : o.code))).toEqual(['AccessDenied', 'ok']);
    expect(asked).toEqual([
      { bucket: 'guarded', key: 'keep/a', versionId: undefined, bypassGovernance: true },
      { bucket: 'guarded', key: 'tmp/a', versionId: undefined, bypassGovernance: true },
    ]);
    expect(fx.objects.open('guarded', 'keep/a').row.size).toBe(1);
    expect(codeOf(() => fx.objects.open('guarded', 'tmp/a'))).toBe('NoSuchKey');
  });
});
