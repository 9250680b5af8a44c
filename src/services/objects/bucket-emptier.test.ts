// emptyBucketPage against a real database and blob store in a temp directory, with pages of 3: it removes every
// version, delete marker and upload over repeated calls, reports each locked version once, and is safe to repeat.

import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BlobStore } from '../../storage/blobs/blob-store.js';
import { MetadataStore } from '../../storage/db/metadata-store.js';
import { BucketService } from '../bucket-service.js';
import { emptyBucketPage, type BucketEmptierDeps, type EmptyCursor } from './bucket-emptier.js';
import { ListingService } from './listing-service.js';
import { MultipartService } from './multipart-service.js';
import { ReadPins } from './object-reader.js';
import { ObjectService } from './object-service.js';

let dir: string;
let meta: MetadataStore;
let deps: BucketEmptierDeps;
let buckets: BucketService;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'bucket-emptier-'));
  meta = MetadataStore.open(join(dir, 'meta.db'));
  const blobs = new BlobStore({ dataDir: dir, masterKey: randomBytes(32) });
  await blobs.init();
  const objects = new ObjectService({ meta, blobs, pins: new ReadPins() });
  buckets = new BucketService({ meta, region: 'us-east-1' });
  deps = { objects, listing: new ListingService(meta), multipart: new MultipartService({ meta, blobs, objects }) };
});

afterEach(async () => {
  await meta.close();
  rmSync(dir, { recursive: true, force: true });
});

async function put(bucket: string, key: string, legalHold = false): Promise<void> {
  const body = Buffer.from(key);
  await deps.objects.put({
    bucket,
    key,
    headers: {},
    userMeta: {},
    body: {
      source: (async function* () {
        yield body;
      })(),
      size: body.length,
    },
    ...(legalHold ? { lock: { legalHold: 'ON' as const } } : {}),
  });
}

function remaining(bucket: string): number {
  const page = deps.listing.listVersions({
    bucket,
    prefix: '',
    delimiter: '',
    keyMarker: '',
    versionIdMarker: '',
    maxKeys: 1000,
  });
  return page.versions.length;
}

/** Calls until there is no next cursor; returns every call's page. */
function drain(bucket: string): ReturnType<typeof emptyBucketPage>[] {
  const pages = [];
  let cursor: EmptyCursor | undefined;
  for (let i = 0; i < 100; i += 1) {
    const page = emptyBucketPage(deps, { bucket, cursor, pageSize: 3 });
    pages.push(page);
    if (page.next === undefined) return pages;
    cursor = page.next;
  }
  throw new Error('emptying did not finish in 100 calls');
}

describe('emptyBucketPage', () => {
  it('removes versions, delete markers and uploads a page at a time', async () => {
    buckets.create('vvv', { versioning: true });
    for (const key of ['a', 'b', 'c', 'd']) {
      await put('vvv', key);
      await put('vvv', key);
    }
    deps.objects.delete('vvv', 'a');
    for (let i = 0; i < 5; i += 1) deps.multipart.create({ bucket: 'vvv', key: `up${i}`, headers: {}, userMeta: {} });
    const pages = drain('vvv');
    expect(pages).toHaveLength(3); // 9 versions and 5 uploads, 3 of each per call
    expect(pages.reduce((n, p) => n + p.deleted, 0)).toBe(9);
    expect(pages.reduce((n, p) => n + p.uploadsAborted, 0)).toBe(5);
    expect(pages.flatMap((p) => p.locked)).toEqual([]);
    expect(remaining('vvv')).toBe(0);
    expect(() => buckets.delete('vvv')).not.toThrow();
  });

  it('leaves locked versions, reports each once, and finishes; a repeat reports them again and removes nothing', async () => {
    buckets.create('lll', { objectLock: true });
    for (const key of ['a', 'b', 'c', 'd', 'e', 'f', 'g']) await put('lll', key, key === 'b' || key === 'f');
    const pages = drain('lll');
    expect(pages.reduce((n, p) => n + p.deleted, 0)).toBe(5);
    expect(pages.flatMap((p) => p.locked.map((l) => `${l.key}:${l.error}`))).toEqual([
      'b:AccessDenied',
      'f:AccessDenied',
    ]);
    expect(remaining('lll')).toBe(2);
    const again = drain('lll');
    expect(again.reduce((n, p) => n + p.deleted, 0)).toBe(0);
    expect(again.flatMap((p) => p.locked.map((l) => l.key))).toEqual(['b', 'f']);
  });
});
