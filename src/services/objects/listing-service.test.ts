import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MetadataStore } from '../../storage/db/metadata-store.js';
import { ListingService, type ListInput } from './listing-service.js';

let dir: string;
let meta: MetadataStore;
let listing: ListingService;

const KEYS = [
  'a.txt',
  'photos/2024/a.jpg',
  'photos/2024/b.jpg',
  'photos/2025/c.jpg',
  'photos/x.jpg',
  'photos/y/z',
  'readme',
  'z/1',
  'z/2',
  'é/1',
  '日本/1',
  '😀',
  'photos/2024/\u{10FFFF}edge',
];

function insert(key: string, opts: { deleted?: boolean } = {}): void {
  meta.objects.insert({
    bucket: 'b',
    key,
    versionId: 'null',
    isLatest: true,
    isDeleteMarker: opts.deleted ?? false,
    size: 1,
    etag: 'e',
    lastModified: 1,
    headers: {},
    userMeta: {},
    checksumAlgorithm: undefined,
    checksumValue: undefined,
    checksumType: undefined,
    blobId: `blob-${key}`,
    partCount: undefined,
    storageClass: 'STANDARD',
  });
}

/** The reference model: S3's semantics computed naively over the whole key set, in UTF-8 byte order. */
function model(input: Omit<ListInput, 'bucket'>, keys: string[]): { entries: string[] } {
  const sorted = [...keys].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y)));
  const entries: string[] = [];
  for (const key of sorted) {
    if (!key.startsWith(input.prefix)) continue;
    const at = input.delimiter ? key.indexOf(input.delimiter, input.prefix.length) : -1;
    const entry = at < 0 ? key : key.slice(0, at + input.delimiter.length);
    if (entries[entries.length - 1] === entry) continue;
    if (Buffer.compare(Buffer.from(entry), Buffer.from(input.after)) <= 0) continue;
    entries.push(entry);
  }
  return { entries };
}

function pageAll(input: Omit<ListInput, 'bucket' | 'after'>): string[] {
  const out: string[] = [];
  let after = '';
  for (let guard = 0; guard < 100; guard++) {
    const page = listing.list({ ...input, bucket: 'b', after });
    out.push(...page.objects.map((o) => o.key), ...page.commonPrefixes);
    expect(page.objects.length + page.commonPrefixes.length).toBeLessThanOrEqual(input.maxKeys);
    if (!page.isTruncated) return out.sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y)));
    after = page.last as string;
  }
  throw new Error('listing did not terminate');
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'listing-'));
  meta = MetadataStore.open(join(dir, 'meta.db'));
  meta.buckets.insert({
    name: 'b',
    createdAt: 1,
    region: 'us-east-1',
    versioning: 'Unversioned',
    objectLock: false,
    config: {},
  });
  for (const key of KEYS) insert(key);
  insert('photos/deleted', { deleted: true });
  listing = new ListingService(meta);
});

afterAll(async () => {
  await meta.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('ListingService', () => {
  it('lists every current key in UTF-8 byte order and skips delete markers', () => {
    const page = listing.list({ bucket: 'b', prefix: '', delimiter: '', after: '', maxKeys: 1000 });
    expect(page.objects.map((o) => o.key)).toEqual(
      model({ prefix: '', delimiter: '', after: '', maxKeys: 1000 }, KEYS).entries,
    );
    expect(page.isTruncated).toBe(false);
  });

  it('rolls keys up into common prefixes at the delimiter, under a prefix', () => {
    const page = listing.list({ bucket: 'b', prefix: 'photos/', delimiter: '/', after: '', maxKeys: 1000 });
    expect(page.commonPrefixes).toEqual(['photos/2024/', 'photos/2025/', 'photos/y/']);
    expect(page.objects.map((o) => o.key)).toEqual(['photos/x.jpg']);
  });

  it('pages through every combination of prefix, delimiter and page size exactly like the model', () => {
    for (const prefix of ['', 'photos/', 'photos/2024/', 'z', 'nothing']) {
      for (const delimiter of ['', '/', '.', '2']) {
        for (const maxKeys of [1, 2, 3, 1000]) {
          const expected = model({ prefix, delimiter, after: '', maxKeys }, KEYS).entries;
          expect(pageAll({ prefix, delimiter, maxKeys }), `${prefix}|${delimiter}|${maxKeys}`).toEqual(
            [...expected].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y))),
          );
        }
      }
    }
  });

  it('resumes after a marker that is a common prefix without listing its keys again', () => {
    const page = listing.list({ bucket: 'b', prefix: 'photos/', delimiter: '/', after: 'photos/2024/', maxKeys: 1000 });
    expect(page.commonPrefixes).toEqual(['photos/2025/', 'photos/y/']);
  });

  it('answers an empty, untruncated page for max-keys 0 and a missing bucket with NoSuchBucket', () => {
    expect(listing.list({ bucket: 'b', prefix: '', delimiter: '', after: '', maxKeys: 0 })).toMatchObject({
      objects: [],
      isTruncated: false,
    });
    expect(() => listing.list({ bucket: 'nope', prefix: '', delimiter: '', after: '', maxKeys: 10 })).toThrow(
      expect.objectContaining({ code: 'NoSuchBucket' }),
    );
  });
});
