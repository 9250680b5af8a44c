// The objects column map agrees with the table the migrations build, and every reader of a whole row (point
// lookups, tiering's row by id, a restore's version pages) decodes a row the insert wrote to the same ObjectRow.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MetadataStore } from './metadata-store.js';
import {
  COLUMN_LISTS,
  OBJECT_INSERT,
  OBJECT_LOOKUP_SELECT,
  OBJECT_SELECT,
  type NewObjectRow,
  type ObjectRow,
} from './object-columns.js';
import { RestoreRepo } from './restore-repo.js';
import { TierRepo } from './tier-repo.js';

let dir: string;
let meta: MetadataStore;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'object-columns-'));
  meta = MetadataStore.open(join(dir, 'meta.db'));
});

afterEach(async () => {
  await meta.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Every field of an ObjectRow set to a value its column can hold apart from every other. */
const everyField: NewObjectRow = {
  bucket: 'b',
  key: 'k/ключ',
  versionId: '01a204b2-e236-7048-8cea-5d3395843281',
  isLatest: true,
  isDeleteMarker: false,
  size: 4096,
  etag: '9e107d9d372bb6826bd81d3542a419d6-2',
  lastModified: 1_700_000_000_123,
  headers: { contentType: 'text/plain', cacheControl: 'no-cache' },
  userMeta: { colour: 'blue' },
  checksumAlgorithm: 'CRC32C',
  checksumValue: 'yZRlqg==-2',
  checksumType: 'COMPOSITE',
  blobId: 'blob-1',
  partCount: 2,
  storageClass: 'STANDARD_IA',
  tags: [{ key: 'team', value: 'storage' }],
  retention: { mode: 'COMPLIANCE', retainUntilDate: '2031-02-03T04:05:06.000Z' },
  legalHold: true,
  acl: {
    canned: 'public-read',
    grants: [
      { grantee: { kind: 'owner' }, permission: 'FULL_CONTROL' },
      { grantee: { kind: 'group', group: 'AllUsers' }, permission: 'READ' },
    ],
  },
};

const FIELDS: (keyof ObjectRow)[] = [
  'id',
  'bucket',
  'key',
  'versionId',
  'isLatest',
  'isDeleteMarker',
  'size',
  'etag',
  'lastModified',
  'headers',
  'userMeta',
  'checksumAlgorithm',
  'checksumValue',
  'checksumType',
  'blobId',
  'partCount',
  'storageClass',
  'tags',
  'retention',
  'legalHold',
  'acl',
  'tierState',
  'tierKey',
  'tierRestoredUntil',
  'tierSha256',
];

describe('the objects column map', () => {
  it('lists the columns of the migrated table, in its order (so SELECT * and OBJECT_SELECT read alike)', () => {
    const columns = meta.db
      .prepare<[], { name: string }>('PRAGMA table_info(objects)')
      .all()
      .map((c) => c.name);
    expect([...COLUMN_LISTS.all]).toEqual(columns);
    expect(OBJECT_SELECT).toBe(columns.join(', '));
    // A point lookup keeps every position and reads NULL for the bucket and key it was given.
    expect(OBJECT_LOOKUP_SELECT).toBe(columns.map((c) => (c === 'bucket' || c === 'key' ? 'NULL' : c)).join(', '));
  });

  it('inserts every column but the row id and the tier columns, one parameter each', () => {
    expect([...COLUMN_LISTS.inserted]).toEqual(COLUMN_LISTS.all.filter((c) => c !== 'id' && !c.startsWith('tier_')));
    const match = /^INSERT INTO objects \(([^)]*)\) VALUES \(([^)]*)\)$/.exec(OBJECT_INSERT);
    expect(match?.[1]?.split(', ')).toEqual([...COLUMN_LISTS.inserted]);
    expect(match?.[2]?.split(', ')).toEqual(COLUMN_LISTS.inserted.map(() => '?'));
  });

  it('reads back every field the insert and the tier flip wrote, the same through every full-row reader', () => {
    const id = meta.objects.insert(everyField);
    const tier = new TierRepo(meta.db);
    tier.flipToStub(id, { storageClass: 'GLACIER', tierKey: '.store-tier/b/x', sha256: 'ab'.repeat(32) });
    const expected: ObjectRow = {
      id,
      ...everyField,
      blobId: undefined,
      storageClass: 'GLACIER',
      tierState: 'stub',
      tierKey: '.store-tier/b/x',
      tierRestoredUntil: undefined,
      tierSha256: 'ab'.repeat(32),
    };
    const latest = meta.objects.findLatest('b', everyField.key);
    expect(Object.keys(latest ?? {}).sort()).toEqual([...FIELDS].sort());
    expect(latest).toEqual(expected);
    expect(meta.objects.findVersion('b', everyField.key, everyField.versionId)).toEqual(expected);
    expect(tier.findRow(id)).toEqual(expected);
    expect(new RestoreRepo(meta.db).versions('b', 0, 10)).toEqual([expected]);
  });
});
