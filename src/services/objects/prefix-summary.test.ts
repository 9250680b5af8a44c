// summarizePrefix against a real database in a temp directory: it counts at any depth, leaves folder markers out, and
// stops at its bound with `truncated`.

import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BlobStore } from '../../storage/blobs/blob-store.js';
import { MetadataStore } from '../../storage/db/metadata-store.js';
import { BucketService } from '../bucket-service.js';
import { ListingService } from './listing-service.js';
import { ReadPins } from './object-reader.js';
import { ObjectService } from './object-service.js';
import { summarizePrefix } from './prefix-summary.js';

let dir: string;
let meta: MetadataStore;
let objects: ObjectService;
let listing: ListingService;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'prefix-summary-'));
  meta = MetadataStore.open(join(dir, 'meta.db'));
  const blobs = new BlobStore({ dataDir: dir, masterKey: randomBytes(32) });
  await blobs.init();
  objects = new ObjectService({ meta, blobs, pins: new ReadPins() });
  listing = new ListingService(meta);
  new BucketService({ meta, region: 'us-east-1' }).create('sss');
});

afterEach(async () => {
  await meta.close();
  rmSync(dir, { recursive: true, force: true });
});

async function put(key: string, size: number): Promise<void> {
  const body = Buffer.alloc(size, 97);
  await objects.put({
    bucket: 'sss',
    key,
    headers: {},
    userMeta: {},
    body: {
      source: (async function* () {
        yield body;
      })(),
      size,
    },
  });
}

describe('summarizePrefix', () => {
  it('counts and sums at any depth without folder markers, and says when it stopped at the bound', async () => {
    await put('f/', 0);
    for (let i = 0; i < 5; i += 1) await put(`f/${i}/x`, 10);
    await put('g', 7);
    const target = { bucket: 'sss', prefix: 'f/' };
    expect(await summarizePrefix(listing, target, { bound: 100 })).toEqual({
      objectCount: 5,
      totalBytes: 50,
      truncated: false,
    });
    // Exactly the bound: complete. One less: cut off (the marker is read but not counted).
    expect(await summarizePrefix(listing, target, { bound: 6 })).toMatchObject({ objectCount: 5, truncated: false });
    expect(await summarizePrefix(listing, target, { bound: 4 })).toEqual({
      objectCount: 3,
      totalBytes: 30,
      truncated: true,
    });
    const aborted = AbortSignal.abort();
    await expect(summarizePrefix(listing, target, { bound: 100, signal: aborted })).rejects.toThrow();
  });
});
