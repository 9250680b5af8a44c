import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MetadataStore } from './metadata-store.js';
import { objectRowOf, type NewObjectRow, type ObjectValues } from './objects-repo.js';

let dir: string;
let meta: MetadataStore;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'objects-repo-'));
  meta = MetadataStore.open(join(dir, 'meta.db'));
});

afterEach(async () => {
  await meta.close();
  rmSync(dir, { recursive: true, force: true });
});

const version: NewObjectRow = {
  bucket: 'b',
  key: 'dir/ключ.txt',
  versionId: '01a204b2-e236-7048-8cea-5d3395843281',
  isLatest: true,
  isDeleteMarker: false,
  size: 4096,
  etag: '9e107d9d372bb6826bd81d3542a419d6-2',
  lastModified: 1_700_000_000_123,
  headers: {
    contentType: 'text/plain; charset=utf-8',
    cacheControl: 'no-cache',
    expires: 'Wed, 21 Oct 2026 07:28:00 GMT',
  },
  userMeta: { colour: 'blue', 'x-y': 'z' },
  checksumAlgorithm: 'CRC64NVME',
  checksumValue: 'AAAAAAAAAAA=',
  checksumType: 'FULL_OBJECT',
  blobId: '0123456789abcdef0123456789abcdef',
  partCount: 2,
  storageClass: 'STANDARD_IA',
  tags: [{ key: 'team', value: 'storage' }],
  retention: { mode: 'GOVERNANCE', retainUntilDate: '2030-01-01T00:00:00.000Z' },
  legalHold: true,
};

/** The row as `SELECT *` reads it: what the point lookups (read positionally) must agree with. */
function rowById(id: number) {
  const values = meta.db.prepare<[number], ObjectValues>('SELECT * FROM objects WHERE id = ?').raw(true).get(id);
  return values && objectRowOf(values);
}

describe('ObjectsRepo point lookups', () => {
  it('read every column of the latest version and of a named version', () => {
    const id = meta.objects.insert(version);
    const expected = { id, ...version };
    expect(rowById(id)).toEqual(expected);
    expect(meta.objects.findLatest('b', version.key)).toEqual(expected);
    expect(meta.objects.findVersion('b', version.key, version.versionId)).toEqual(expected);
  });

  it('read the tier columns of a tiered version', () => {
    const id = meta.objects.insert({ ...version, retention: undefined, legalHold: false, tags: undefined });
    meta.db
      .prepare(
        `UPDATE objects SET tier_state = 'restored', tier_key = '.store-tier/k', tier_restored_until = 1700000009999,
         tier_sha256 = 'ab' WHERE id = ?`,
      )
      .run(id);
    const latest = meta.objects.findLatest('b', version.key);
    expect(latest).toEqual(rowById(id));
    expect(latest).toMatchObject({
      tierState: 'restored',
      tierKey: '.store-tier/k',
      tierRestoredUntil: 1700000009999,
      tierSha256: 'ab',
    });
  });

  it('read a delete marker with its empty columns, and find nothing where there is nothing', () => {
    const id = meta.objects.insert({
      ...version,
      isDeleteMarker: true,
      size: 0,
      etag: '',
      headers: {},
      userMeta: {},
      checksumAlgorithm: undefined,
      checksumValue: undefined,
      checksumType: undefined,
      blobId: undefined,
      partCount: undefined,
      storageClass: 'STANDARD',
      tags: undefined,
      retention: undefined,
      legalHold: false,
    });
    const latest = meta.objects.findLatest('b', version.key);
    expect(latest).toEqual(rowById(id));
    expect(latest).toMatchObject({
      isDeleteMarker: true,
      headers: {},
      userMeta: {},
      blobId: undefined,
      legalHold: false,
    });
    expect(meta.objects.findLatest('b', 'other')).toBeUndefined();
    expect(meta.objects.findLatest('other', version.key)).toBeUndefined();
    expect(meta.objects.findVersion('b', version.key, 'no-such-version')).toBeUndefined();
  });
});
