// Per-bucket quotas through the real services (docs/quotas.md): the limit is exact, overwrites count their net
// growth, every version's bytes and open uploads' parts count, deletes free room, and writes in flight hold their
// growth so concurrent writers cannot overshoot (held at admission by the test seam, never by timing).

import { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { body, openServices, type ServiceFixture } from '../../../test/helpers/services.js';
import { AppError } from '../../core/errors.js';
import type { BucketQuota } from '../../core/quota.js';

let fx: ServiceFixture;
afterEach(async () => {
  await fx.close();
});

async function open(quota: BucketQuota, opts: { versioning?: boolean; hook?: (bucket: string) => Promise<void> } = {}) {
  fx = await openServices('2030-01-01T00:00:00Z', { onQuotaAdmitted: opts.hook });
  fx.buckets.create('qbk', { versioning: opts.versioning ?? false });
  fx.buckets.setQuota('qbk', quota);
}

const put = (key: string, data: string | Buffer) =>
  fx.objects.put({ bucket: 'qbk', key, body: body(data), headers: {}, userMeta: {} });

/** The code of the AppError a promise rejects with (undefined when it resolves). */
async function failure(p: Promise<unknown>): Promise<string | undefined> {
  try {
    await p;
    return undefined;
  } catch (err) {
    return err instanceof AppError ? err.code : String(err);
  }
}

describe('bucket quotas', () => {
  it('allow a write that ends exactly at the byte limit and refuse one byte more', async () => {
    await open({ maxBytes: 10 });
    await put('a', '123456');
    await put('b', '1234');
    expect(await failure(put('c', '1'))).toBe('QuotaExceeded');
    expect(fx.buckets.quota('qbk').usage).toEqual({ bytes: 10, objects: 2 });
    expect(fx.quotas.held('qbk')).toEqual({ bytes: 0, objects: 0 });
  });

  it('count an overwrite by its net growth in an unversioned bucket', async () => {
    await open({ maxBytes: 10 });
    await put('a', '12345678');
    await put('a', '1234567890'); // 8 -> 10 bytes: grows by 2
    expect(await failure(put('a', '12345678901'))).toBe('QuotaExceeded');
    await put('a', '1'); // shrinking is always allowed
    expect(fx.buckets.quota('qbk').usage).toEqual({ bytes: 1, objects: 1 });
  });

  it("count every version's bytes in a versioned bucket, and a delete marker frees no bytes", async () => {
    await open({ maxBytes: 10 }, { versioning: true });
    await put('k', '123456');
    await put('k', '1234');
    expect(await failure(put('k', '1'))).toBe('QuotaExceeded');
    fx.objects.delete('qbk', 'k'); // a delete marker: both versions remain
    expect(await failure(put('other', '1'))).toBe('QuotaExceeded');
    const versions = fx.meta.db
      .prepare<[], { version_id: string; size: number }>(
        "SELECT version_id, size FROM objects WHERE bucket = 'qbk' AND key = 'k' AND size = 6",
      )
      .all();
    fx.objects.delete('qbk', 'k', { versionId: versions[0]?.version_id });
    await put('other', '123456');
    expect(fx.buckets.quota('qbk').usage.bytes).toBe(10);
  });

  it('limit current objects, where an overwrite adds none and a delete frees one', async () => {
    await open({ maxObjects: 2 });
    await put('a', 'x');
    await put('b', 'x');
    expect(await failure(put('c', 'x'))).toBe('QuotaExceeded');
    await put('a', 'overwrite');
    fx.objects.delete('qbk', 'b');
    await put('c', 'x');
    expect(fx.buckets.quota('qbk').usage.objects).toBe(2);
  });

  it('applies a changed quota to the next write, and never deletes what a lowered one leaves over', async () => {
    await open({ maxBytes: 100 });
    await put('a', 'x'.repeat(50));
    fx.buckets.setQuota('qbk', { maxBytes: 10 });
    expect(await failure(put('b', 'x'))).toBe('QuotaExceeded');
    expect(fx.buckets.quota('qbk').usage.bytes).toBe(50);
    await put('a', 'x'.repeat(5)); // an overwrite that shrinks usage passes even over the quota
    await put('b', 'x'.repeat(5));
    fx.buckets.clearQuota('qbk');
    await put('c', 'x'.repeat(1000));
    expect(fx.buckets.quota('qbk')).toEqual({ quota: undefined, usage: { bytes: 1010, objects: 3 } });
  });

  it('charge a body of unknown length chunk by chunk and cut it at the quota, keeping nothing', async () => {
    await open({ maxBytes: 10 });
    const chunks = ['1234', '5678', '9012'].map((c) => Buffer.from(c));
    const unknown = { source: Readable.from(chunks), size: undefined };
    const err = await failure(fx.objects.put({ bucket: 'qbk', key: 'u', body: unknown, headers: {}, userMeta: {} }));
    expect(err).toBe('QuotaExceeded');
    expect(fx.buckets.quota('qbk').usage).toEqual({ bytes: 0, objects: 0 });
    expect(fx.quotas.held('qbk')).toEqual({ bytes: 0, objects: 0 });
    const fits = { source: Readable.from(chunks.slice(0, 2)), size: undefined };
    await fx.objects.put({ bucket: 'qbk', key: 'u', body: fits, headers: {}, userMeta: {} });
    expect(fx.buckets.quota('qbk').usage.bytes).toBe(8);
  });

  it('release what a failed write held', async () => {
    await open({ maxBytes: 10 });
    const bad = { ...body('12345'), contentMd5: Buffer.alloc(16) };
    expect(await failure(fx.objects.put({ bucket: 'qbk', key: 'a', body: bad, headers: {}, userMeta: {} }))).toBe(
      'BadDigest',
    );
    expect(fx.quotas.held('qbk')).toEqual({ bytes: 0, objects: 0 });
    await put('a', '1234567890');
  });

  it('let exactly as many concurrent writes succeed as fit, holding them all admitted before any commits', async () => {
    const waiting: (() => void)[] = [];
    let admitted = 0;
    let gate!: () => void;
    const allAdmitted = new Promise<void>((resolve) => (gate = resolve));
    await open(
      { maxBytes: 10 },
      {
        hook: () => {
          admitted++;
          return new Promise<void>((resolve) => waiting.push(resolve));
        },
      },
    );
    const writes = Array.from({ length: 5 }, (_, i) => failure(put(`k${i}`, '1234')));
    // Admission is synchronous up to the hook: by now every write was admitted (held) or refused.
    await new Promise((resolve) => setImmediate(resolve));
    expect(admitted).toBe(2);
    expect(fx.quotas.held('qbk')).toEqual({ bytes: 8, objects: 2 });
    gate();
    await allAdmitted;
    for (const release of waiting) release();
    const outcomes = await Promise.all(writes);
    expect(outcomes.filter((o) => o === undefined)).toHaveLength(2);
    expect(outcomes.filter((o) => o === 'QuotaExceeded')).toHaveLength(3);
    expect(fx.buckets.quota('qbk').usage).toEqual({ bytes: 8, objects: 2 });
    expect(fx.quotas.held('qbk')).toEqual({ bytes: 0, objects: 0 });
  });

  it('refuse at commit a write admitted under a quota lowered while it was in flight', async () => {
    let release!: () => void;
    await open({ maxBytes: 100 }, { hook: () => new Promise<void>((resolve) => (release = resolve)) });
    const write = failure(put('a', '12345'));
    await new Promise((resolve) => setImmediate(resolve));
    fx.buckets.setQuota('qbk', { maxBytes: 4 });
    release();
    expect(await write).toBe('QuotaExceeded');
    expect(fx.buckets.quota('qbk').usage).toEqual({ bytes: 0, objects: 0 });
  });

  it('count the parts of open multipart uploads, free them on abort, and count the object once on completion', async () => {
    await open({ maxBytes: 10, maxObjects: 1 });
    const create = (key: string) => fx.multipart.create({ bucket: 'qbk', key, headers: {}, userMeta: {} });
    const part = (key: string, uploadId: string, data: string) =>
      fx.multipart.uploadPart({ bucket: 'qbk', key, uploadId, partNumber: 1, body: body(data) });
    const one = create('one');
    const two = create('two');
    await part('one', one.uploadId, '123456');
    expect(await failure(part('two', two.uploadId, '12345'))).toBe('QuotaExceeded');
    await part('one', one.uploadId, '1234567'); // uploading part 1 again replaces its 6 bytes
    expect(fx.buckets.quota('qbk').usage).toEqual({ bytes: 7, objects: 0 });
    fx.multipart.abort('qbk', 'two', two.uploadId);
    const stored = fx.meta.multipart.parts(one.uploadId);
    await fx.multipart.complete({
      bucket: 'qbk',
      key: 'one',
      uploadId: one.uploadId,
      parts: stored.map((p) => ({ partNumber: p.partNumber, etag: p.etag, checksums: {} })),
    });
    expect(fx.buckets.quota('qbk').usage).toEqual({ bytes: 7, objects: 1 });
    // A second object cannot be completed under maxObjects 1, though its bytes fit.
    const three = create('three');
    await part('three', three.uploadId, '12');
    const parts = fx.meta.multipart.parts(three.uploadId);
    const completion = fx.multipart.complete({
      bucket: 'qbk',
      key: 'three',
      uploadId: three.uploadId,
      parts: parts.map((p) => ({ partNumber: p.partNumber, etag: p.etag, checksums: {} })),
    });
    expect(await failure(completion)).toBe('QuotaExceeded');
    expect(fx.meta.multipart.find(three.uploadId)).toBeDefined();
  });

  it('refuse a copy that would pass the quota', async () => {
    await open({ maxBytes: 10 });
    await put('a', '123456');
    const copy = fx.objects.copy({
      bucket: 'qbk',
      key: 'copy',
      source: { bucket: 'qbk', key: 'a' },
      metadataDirective: 'COPY',
      headers: {},
      userMeta: {},
    });
    expect(await failure(copy)).toBe('QuotaExceeded');
    expect(fx.quotas.held('qbk')).toEqual({ bytes: 0, objects: 0 });
  });
});
