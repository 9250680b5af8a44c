// Per-bucket usage for the gauges stays exact through every write path (put, overwrite, versions, delete markers,
// version deletes, copies, multipart completion, bucket deletion), checked against a full scan of the objects table.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { body, openServices, type ServiceFixture } from '../../test/helpers/services.js';
import { UsageService } from './usage-service.js';

let fx: ServiceFixture;
let usage: UsageService;

beforeEach(async () => {
  fx = await openServices('2026-01-01T00:00:00Z');
  usage = new UsageService(fx.buckets);
});

afterEach(() => fx.close());

/** The ground truth: bytes of every version row, and current objects that are not delete markers, by bucket. */
function scanned(): { bucket: string; bytes: number; objects: number }[] {
  return fx.meta.db
    .prepare<[], { bucket: string; bytes: number; objects: number }>(
      `SELECT b.name AS bucket, COALESCE(SUM(o.size), 0) AS bytes,
            COALESCE(SUM(o.is_latest = 1 AND o.is_delete_marker = 0), 0) AS objects
     FROM buckets b LEFT JOIN objects o ON o.bucket = b.name GROUP BY b.name ORDER BY b.name`,
    )
    .all();
}

const put = (bucket: string, key: string, data: string) =>
  fx.objects.put({ bucket, key, body: body(data), headers: {}, userMeta: {} });

describe('UsageService.snapshot', () => {
  it('reads 0 for an empty bucket and nothing for no buckets', () => {
    expect(usage.snapshot()).toEqual([]);
    fx.buckets.create('empty');
    expect(usage.snapshot()).toEqual([{ bucket: 'empty', bytes: 0, objects: 0 }]);
  });

  it('counts puts and overwrites in an unversioned bucket (an overwrite replaces, it does not add)', async () => {
    fx.buckets.create('plain');
    await put('plain', 'a', '12345');
    await put('plain', 'b', '1234567890');
    expect(usage.snapshot()).toEqual([{ bucket: 'plain', bytes: 15, objects: 2 }]);
    await put('plain', 'a', '1');
    expect(usage.snapshot()).toEqual([{ bucket: 'plain', bytes: 11, objects: 2 }]);
    fx.objects.delete('plain', 'b');
    expect(usage.snapshot()).toEqual([{ bucket: 'plain', bytes: 1, objects: 1 }]);
    expect(usage.snapshot()).toEqual(scanned());
  });

  it('counts the bytes of every version and the current objects, and drops a version deleted by id', async () => {
    fx.buckets.create('vers');
    fx.buckets.setVersioning('vers', 'Enabled');
    const v1 = await put('vers', 'k', 'one');
    await put('vers', 'k', 'three');
    expect(usage.snapshot()).toEqual([{ bucket: 'vers', bytes: 8, objects: 1 }]);
    const marker = fx.objects.delete('vers', 'k');
    expect(marker.deleteMarker).toBe(true);
    expect(usage.snapshot()).toEqual([{ bucket: 'vers', bytes: 8, objects: 0 }]);
    expect(usage.snapshot()).toEqual(scanned());
    fx.objects.delete('vers', 'k', { versionId: marker.versionId });
    fx.objects.delete('vers', 'k', { versionId: v1.versionId });
    expect(usage.snapshot()).toEqual([{ bucket: 'vers', bytes: 5, objects: 1 }]);
    expect(usage.snapshot()).toEqual(scanned());
  });

  it('counts copies and completed multipart uploads, and keeps buckets apart', async () => {
    fx.buckets.create('src');
    fx.buckets.create('dst');
    await put('src', 'a', 'abcdef');
    await fx.objects.copy({
      bucket: 'dst',
      key: 'copy',
      source: { bucket: 'src', key: 'a' },
      metadataDirective: 'COPY',
      headers: {},
      userMeta: {},
    });
    const upload = fx.multipart.create({ bucket: 'dst', key: 'mp', headers: {}, userMeta: {} });
    const part = await fx.multipart.uploadPart({
      bucket: 'dst',
      key: 'mp',
      uploadId: upload.uploadId,
      partNumber: 1,
      body: body('part-one'),
    });
    expect(usage.snapshot()).toEqual([
      { bucket: 'dst', bytes: 6, objects: 1 },
      { bucket: 'src', bytes: 6, objects: 1 },
    ]);
    await fx.multipart.complete({
      bucket: 'dst',
      key: 'mp',
      uploadId: upload.uploadId,
      parts: [{ partNumber: 1, etag: part.etag, checksums: {} }],
    });
    expect(usage.snapshot()).toEqual([
      { bucket: 'dst', bytes: 14, objects: 2 },
      { bucket: 'src', bytes: 6, objects: 1 },
    ]);
    expect(usage.snapshot()).toEqual(scanned());
  });

  it('forgets a deleted bucket, and a bucket re-created under the same name starts from zero', async () => {
    fx.buckets.create('gone');
    await put('gone', 'k', 'data');
    fx.objects.delete('gone', 'k');
    fx.buckets.delete('gone');
    expect(usage.snapshot()).toEqual([]);
    expect(fx.meta.db.prepare('SELECT COUNT(*) FROM bucket_usage').pluck().get()).toBe(0);
    fx.buckets.create('gone');
    expect(usage.snapshot()).toEqual([{ bucket: 'gone', bytes: 0, objects: 0 }]);
  });

  it('carries each bucket quota limit for the quota gauges, and none once it is removed', () => {
    fx.buckets.create('limited');
    fx.buckets.setQuota('limited', { maxBytes: 2048 });
    expect(usage.snapshot()).toStrictEqual([
      { bucket: 'limited', bytes: 0, objects: 0, quotaBytes: 2048, quotaObjects: undefined },
    ]);
    fx.buckets.clearQuota('limited');
    expect(usage.snapshot()[0]?.quotaBytes).toBeUndefined();
  });
});
