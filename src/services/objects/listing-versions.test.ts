// ListingService.listVersions against a naive reference model: every page size, prefix and delimiter walks the
// same versions (by key in UTF-8 order, newest first within a key) and common prefixes, with no repeats.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../core/errors.js';
import { MetadataStore } from '../../storage/db/metadata-store.js';
import { ListingService, type ListVersionsInput } from './listing-service.js';

let dir: string;
let meta: MetadataStore;
let listing: ListingService;
/** Every inserted row in insertion order (id order). */
const rows: { key: string; versionId: string }[] = [];

// Keys with several versions, delete markers, common prefixes, non-ASCII and U+10FFFF edges.
const WRITES: [string, number][] = [
  ['a', 3],
  ['dir/x', 2],
  ['dir/y', 1],
  ['dir/sub/z', 4],
  ['dir\u{10FFFF}', 1],
  ['é', 2],
  ['😀/1', 1],
  ['zz', 1],
  ['dir/x', 1],
  ['a', 1],
];

function insert(key: string, n: number): void {
  for (let i = 0; i < n; i++) {
    const versionId = `0190a0a0-0000-7000-8000-${String(rows.length).padStart(12, '0')}`;
    meta.objects.clearLatest('b', key);
    meta.objects.insert({
      bucket: 'b',
      key,
      versionId,
      isLatest: true,
      isDeleteMarker: rows.length % 4 === 3,
      size: 1,
      etag: 'e',
      lastModified: 1,
      headers: {},
      userMeta: {},
      checksumAlgorithm: undefined,
      checksumValue: undefined,
      checksumType: undefined,
      blobId: undefined,
      partCount: undefined,
      storageClass: 'STANDARD',
    });
    rows.push({ key, versionId });
  }
}

const bytes = (s: string): Buffer => Buffer.from(s);

/** S3's answer computed naively: entries are `key@versionId` or a common prefix. */
function model(prefix: string, delimiter: string): string[] {
  const ordered = rows
    .map((r, id) => ({ ...r, id }))
    .filter((r) => r.key.startsWith(prefix))
    .sort((x, y) => Buffer.compare(bytes(x.key), bytes(y.key)) || y.id - x.id);
  const out: string[] = [];
  for (const r of ordered) {
    const at = delimiter ? r.key.indexOf(delimiter, prefix.length) : -1;
    const entry = at < 0 ? `${r.key}@${r.versionId}` : r.key.slice(0, at + delimiter.length);
    if (!out.includes(entry)) out.push(entry);
  }
  return out;
}

function walk(prefix: string, delimiter: string, maxKeys: number): string[] {
  const out: string[] = [];
  let keyMarker = '';
  let versionIdMarker = '';
  for (let guard = 0; guard < 200; guard++) {
    const page = listing.listVersions({ bucket: 'b', prefix, delimiter, keyMarker, versionIdMarker, maxKeys });
    // Versions and prefixes interleave in key order; the model lists them that way too.
    const entries = [
      ...page.versions.map((v) => ({ sort: v.key, text: `${v.key}@${v.versionId}` })),
      ...page.commonPrefixes.map((p) => ({ sort: p, text: p })),
    ].sort((x, y) => Buffer.compare(bytes(x.sort), bytes(y.sort)));
    expect(entries.length).toBeLessThanOrEqual(maxKeys);
    out.push(...entries.map((e) => e.text));
    if (!page.isTruncated) return out;
    keyMarker = page.nextKeyMarker ?? '';
    versionIdMarker = page.nextVersionIdMarker ?? '';
  }
  throw new Error('listing did not terminate');
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'listing-versions-'));
  meta = MetadataStore.open(join(dir, 'meta.db'));
  meta.buckets.insert({
    name: 'b',
    createdAt: 1,
    region: 'us-east-1',
    versioning: 'Enabled',
    objectLock: false,
    config: {},
  });
  for (const [key, n] of WRITES) insert(key, n);
  listing = new ListingService(meta);
});

afterAll(async () => {
  await meta.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('listVersions', () => {
  it.each([
    ['', ''],
    ['', '/'],
    ['dir/', ''],
    ['dir/', '/'],
    ['dir', '/'],
    ['a', ''],
    ['nothing', '/'],
  ])('prefix %j delimiter %j: every page size walks the model exactly', (prefix, delimiter) => {
    const expected = model(prefix, delimiter);
    for (let maxKeys = 1; maxKeys <= expected.length + 1; maxKeys++) {
      expect(walk(prefix, delimiter, maxKeys)).toEqual(expected);
    }
  });

  it('marks only the newest version of each key as latest, and lists delete markers', () => {
    const page = listing.listVersions({
      bucket: 'b',
      prefix: '',
      delimiter: '',
      keyMarker: '',
      versionIdMarker: '',
      maxKeys: 1000,
    });
    expect(page.versions.filter((v) => v.key === 'a').map((v) => v.isLatest)).toEqual([true, false, false, false]);
    const latest = page.versions.filter((v) => v.isLatest).map((v) => v.key);
    expect(latest).toEqual([...new Set(page.versions.map((v) => v.key))]);
    expect(page.versions.filter((v) => v.isDeleteMarker)).toHaveLength(4);
  });

  it('a version-id marker whose version is gone restarts that key rather than skip versions', () => {
    const page = listing.listVersions({
      bucket: 'b',
      prefix: '',
      delimiter: '',
      keyMarker: 'a',
      versionIdMarker: '0190a0a0-0000-7000-8000-999999999999',
      maxKeys: 1000,
    });
    expect(page.versions.filter((v) => v.key === 'a')).toHaveLength(4);
  });

  it('refuses a version-id marker without a key marker, and a malformed one (InvalidArgument)', () => {
    const base: ListVersionsInput = {
      bucket: 'b',
      prefix: '',
      delimiter: '',
      keyMarker: '',
      versionIdMarker: 'null',
      maxKeys: 10,
    };
    expect(() => listing.listVersions(base)).toThrow(AppError);
    expect(() => listing.listVersions({ ...base, keyMarker: 'a', versionIdMarker: 'not-a-version' })).toThrow(
      expect.objectContaining({ code: 'InvalidArgument' }) as Error,
    );
  });

  it('max-keys 0 answers an empty, untruncated page; a missing bucket is NoSuchBucket', () => {
    const page = listing.listVersions({
      bucket: 'b',
      prefix: '',
      delimiter: '',
      keyMarker: '',
      versionIdMarker: '',
      maxKeys: 0,
    });
    expect(page).toMatchObject({ versions: [], commonPrefixes: [], isTruncated: false });
    expect(() =>
      listing.listVersions({
        bucket: 'nope',
        prefix: '',
        delimiter: '',
        keyMarker: '',
        versionIdMarker: '',
        maxKeys: 1,
      }),
    ).toThrow(expect.objectContaining({ code: 'NoSuchBucket' }) as Error);
  });
});
