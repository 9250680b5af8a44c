// The bounds of a zip download, against a stand-in snapshot (a real one is exercised by
// test/integration/admin-zip-download.test.ts): the object limit is checked before any byte is sent, and the
// snapshot and the GC holds are released whether the download opens or is refused.

import { describe, expect, it } from 'vitest';
import type { MetadataSnapshot } from '../../storage/db/metadata-snapshot.js';
import type { ObjectRow } from '../../storage/db/objects-repo.js';
import type { ReadPins } from '../objects/object-reader.js';
import type { BlobStore } from '../../storage/blobs/blob-store.js';
import { Readable } from 'node:stream';
import { ZIP_LIMITS, ZipDownloads, type ZipDownloadOptions } from './zip-download.js';

/** Rows of `size` bytes: empty ones are stored from a buffer, others (tiered stubs) read through the stub reader. */
function fakeSnapshot(keys: string[], size = 0): { snapshot: MetadataSnapshot; closed: () => boolean } {
  let closed = false;
  const tierState = size > 0 ? 'stub' : undefined;
  const row = (key: string, id: number) => ({ id, key, size, tierState, lastModified: 0, bucket: 'b' }) as ObjectRow;
  const sorted = [...keys].sort();
  const fake = {
    buckets: () => [{ name: 'b' }],
    current: (_bucket: string, key: string) => (keys.includes(key) ? row(key, 1) : undefined),
    currentFrom: (_bucket: string, from: { key: string; inclusive: boolean }, limit: number) =>
      sorted
        .filter((k) => (from.inclusive ? k >= from.key : k > from.key))
        .slice(0, limit)
        .map((k, i) => row(k, i + 1)),
    close: () => (closed = true),
  };
  return { snapshot: fake as unknown as MetadataSnapshot, closed: () => closed };
}

function downloads(keys: string[], stub?: { size: number; reader: ZipDownloadOptions['stubReader'] }) {
  const { snapshot, closed } = fakeSnapshot(keys, stub?.size);
  let holds = 0;
  const pins = {
    holdAll: () => {
      holds++;
      return () => holds--;
    },
  } as unknown as ReadPins;
  const zips = new ZipDownloads({
    openSnapshot: () => snapshot,
    blobs: {} as BlobStore,
    pins,
    stubReader: stub?.reader,
  });
  return { zips, closed, holds: () => holds };
}

describe('ZipDownloads', () => {
  const many = Array.from({ length: ZIP_LIMITS.objects + 1 }, (_, i) => `d/${String(i).padStart(6, '0')}`);

  it('refuses a folder past the object limit, before any byte, releasing what it held', () => {
    const d = downloads(many);
    expect(() => d.zips.plan({ bucket: 'b', base: '', items: ['d/'] })).toThrow(/more than 10000 objects/);
    expect(d.closed()).toBe(true);
    const o = downloads(many);
    expect(() => o.zips.open({ bucket: 'b', base: '', items: ['d/'] })).toThrow(/more than 10000 objects/);
    expect([o.closed(), o.holds()]).toEqual([true, 0]);
  });

  it('takes exactly the limit, walking a folder page by page, each key once', () => {
    const d = downloads(many.slice(1));
    expect(d.zips.plan({ bucket: 'b', base: '', items: ['d/', many[1]!, many[2]!] })).toEqual({
      objects: ZIP_LIMITS.objects,
      bytes: 0,
    });
  });

  it('releases the snapshot and the holds when the stream ends or is destroyed', async () => {
    const d = downloads(['x', 'y']);
    const download = d.zips.open({ bucket: 'b', base: '', items: ['x', 'y'] });
    expect(d.holds()).toBe(1);
    for await (const _chunk of download.stream) void _chunk;
    expect([d.closed(), d.holds()]).toEqual([true, 0]);
    const e = downloads(['x']);
    e.zips.open({ bucket: 'b', base: '', items: ['x'] }).stream.destroy();
    await new Promise((resolve) => setImmediate(resolve));
    expect([e.closed(), e.holds()]).toEqual([true, 0]);
  });

  it('ends the download with the error of an entry that fails mid-way, and releases what it held', async () => {
    const failing = new Readable({
      read() {
        this.push(Buffer.from('half'));
        this.destroy(new Error('blob corrupt'));
      },
    });
    const d = downloads(['x'], { size: 10, reader: { stream: () => failing } });
    const download = d.zips.open({ bucket: 'b', base: '', items: ['x'] });
    await expect(
      (async () => {
        for await (const _chunk of download.stream) void _chunk;
      })(),
    ).rejects.toThrow('blob corrupt');
    expect([d.closed(), d.holds(), failing.destroyed]).toEqual([true, 0, true]);
  });
});
