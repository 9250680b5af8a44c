// Properties of the backup manifest and index parsers on arbitrary JSON (an uploaded archive is untrusted): every
// manifest and index line is accepted or refused with InvalidArchive, never a TypeError: bucket configurations
// arrive as untyped JSON and reach the same validators the S3 API feeds typed values.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseManifest, parseVersionLine, type ArchivedBucket } from './backup-manifest.js';
import { expectCodeIn, fragmentString, outcomeOf } from '../../test/helpers/fuzz.js';

const RUNS = 600;
const junk = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.constantFrom(
    null,
    '',
    0,
    -1,
    true,
    [],
    {},
    [null],
    [{}],
    { rules: null },
    { rules: [null] },
    { rules: [{}] },
    'x',
  ),
);
const field = <T>(valid: fc.Arbitrary<T>) => fc.oneof({ weight: 3, arbitrary: valid }, { weight: 1, arbitrary: junk });

const configArb = fc.record(
  {
    tagging: field(fc.constant([{ key: 'team', value: 'storage' }])),
    encryption: field(fc.constant({ sseAlgorithm: 'AES256' })),
    lifecycle: field(
      fc.constant({ rules: [{ id: 'r', status: 'Enabled', filter: { prefix: 'tmp/' }, expiration: { days: 30 } }] }),
    ),
    cors: field(
      fc.constant({
        rules: [{ allowedOrigins: ['*'], allowedMethods: ['GET'], allowedHeaders: [], exposeHeaders: [] }],
      }),
    ),
    policy: field(
      fc.constant(
        JSON.stringify({
          Version: '2012-10-17',
          Statement: [{ Effect: 'Allow', Principal: '*', Action: 's3:GetObject', Resource: 'arn:aws:s3:::bkt/*' }],
        }),
      ),
    ),
    objectLock: field(fc.constant({ enabled: true })),
  },
  { requiredKeys: [] },
);

const bucketArb = fc.record({
  name: field(fc.constantFrom('bkt', 'other-bucket')),
  createdAt: field(fc.constant('2024-01-01T00:00:00.000Z')),
  versioning: field(fc.constantFrom('Unversioned', 'Enabled', 'Suspended')),
  objectLock: field(fc.boolean()),
  config: field(configArb),
  versionCount: field(fc.nat({ max: 5 })),
  objects: field(
    fc.array(
      fc.record({
        key: field(fc.constant('k')),
        size: field(fc.nat()),
        md5: field(fc.constant('0'.repeat(32))),
        file: field(fc.constant('data/1')),
      }),
      { maxLength: 2 },
    ),
  ),
});

const manifestArb = fc.record({
  version: field(fc.constantFrom(1, 2, 2)),
  kind: field(fc.constantFrom('instance', 'bucket')),
  createdAt: field(fc.constant('2024-01-01T00:00:00.000Z')),
  storeVersion: field(fc.constant('1.0.0')),
  buckets: field(fc.array(bucketArb, { minLength: 1, maxLength: 3 })),
  indexes: field(
    fc.array(fc.constantFrom('index/000001.jsonl', '../x', '/abs', 'manifest.json', ''), { maxLength: 2 }),
  ),
  totals: field(fc.record({ versions: field(fc.nat()), entries: field(fc.nat()), bytes: field(fc.nat()) })),
});

const BUCKETS: ReadonlyMap<string, ArchivedBucket> = new Map([
  [
    'bkt',
    {
      name: 'bkt',
      createdAt: '2024-01-01T00:00:00.000Z',
      versioning: 'Enabled',
      objectLock: true,
      config: { objectLock: { enabled: true } },
      versionCount: 1,
    },
  ],
]);
const lineArb = fc.record(
  {
    bucket: field(fc.constantFrom('bkt', 'nope')),
    key: field(fc.constantFrom('k', 'a/b', '')),
    versionId: field(fc.constantFrom('null', '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b', 'x')),
    deleteMarker: field(fc.boolean()),
    lastModified: field(fc.constant('2024-01-01T00:00:00.000Z')),
    size: field(fc.nat({ max: 10 })),
    etag: field(fc.constant('"abc"')),
    storageClass: field(fc.constantFrom('STANDARD', 'glacier')),
    headers: field(fc.constant({ contentType: 'text/plain' })),
    userMeta: field(fc.constant({ a: 'b' })),
    tags: field(fc.constant([{ key: 'k', value: 'v' }])),
    retention: field(fc.constant({ mode: 'GOVERNANCE', retainUntilDate: '2030-01-01T00:00:00Z' })),
    legalHold: field(fc.boolean()),
    entry: field(fc.constantFrom('data/1', '../evil', '')),
    sha256: field(fc.constant('0'.repeat(64))),
    checksum: field(fc.constant({ algorithm: 'CRC32', value: 'AAAAAA==' })),
    parts: field(
      fc.array(
        fc.record({
          partNumber: field(fc.nat({ max: 3 })),
          size: field(fc.nat({ max: 10 })),
          etag: field(fc.constant('e')),
        }),
        { maxLength: 3 },
      ),
    ),
  },
  { requiredKeys: [] },
);

describe('backup manifest parsing on arbitrary JSON', () => {
  it('a manifest is parsed or refused with InvalidArchive, nothing else', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          manifestArb.map((m) => JSON.stringify(m)),
          fc.jsonValue().map((v) => JSON.stringify(v)),
          fragmentString(['{', '}', '[', ']', '"version":2', ',', ':', '"buckets"']),
        ),
        (text) => {
          expectCodeIn(
            outcomeOf(() => parseManifest(text)),
            ['InvalidArchive'],
          );
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('an index line is parsed or refused with InvalidArchive, nothing else', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          lineArb.map((l) => JSON.stringify(l)),
          fc.jsonValue().map((v) => JSON.stringify(v)),
        ),
        (line) => {
          expectCodeIn(
            outcomeOf(() => parseVersionLine(line, BUCKETS, 'index/000001.jsonl:1')),
            ['InvalidArchive'],
          );
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('regression: configurations of the wrong JSON shape are InvalidArchive, not a TypeError (500)', () => {
    const base = {
      version: 2,
      kind: 'instance',
      createdAt: '2024-01-01T00:00:00Z',
      storeVersion: '1',
      indexes: [],
      totals: { versions: 0, entries: 0, bytes: 0 },
    };
    const bucket = {
      name: 'bkt',
      createdAt: '2024-01-01T00:00:00Z',
      versioning: 'Enabled',
      objectLock: false,
      versionCount: 0,
    };
    for (const config of [
      { lifecycle: {} },
      { lifecycle: { rules: [null] } },
      { cors: {} },
      { cors: { rules: [{}] } },
      { tagging: [null] },
      { encryption: null },
      { objectLock: null },
    ]) {
      const outcome = outcomeOf(() => parseManifest(JSON.stringify({ ...base, buckets: [{ ...bucket, config }] })));
      expect(outcome.ok ? 'accepted' : outcome.error.code, JSON.stringify(config)).toBe('InvalidArchive');
    }
    const line = {
      bucket: 'bkt',
      key: 'k',
      versionId: 'null',
      deleteMarker: true,
      lastModified: '2024-01-01T00:00:00Z',
      size: 0,
      etag: '',
      storageClass: 'STANDARD',
      tags: [null],
    };
    const outcome = outcomeOf(() => parseVersionLine(JSON.stringify(line), BUCKETS, 'line'));
    expect(outcome.ok ? 'accepted' : outcome.error.code).toBe('InvalidArchive');
  });

  it('regression: headers and metadata no HTTP header can carry are InvalidArchive (restored, the object could not be read)', () => {
    const line = {
      bucket: 'bkt',
      key: 'k',
      versionId: 'null',
      deleteMarker: true,
      lastModified: '2024-01-01T00:00:00Z',
      size: 0,
      etag: '',
      storageClass: 'STANDARD',
    };
    for (const extra of [
      { headers: { contentType: 'text/html\r\nX-Evil: 1' } },
      { headers: { cacheControl: '日' } },
      { userMeta: { 'a b': 'x' } },
      { userMeta: { ok: 'a\u0000' } },
    ]) {
      const outcome = outcomeOf(() => parseVersionLine(JSON.stringify({ ...line, ...extra }), BUCKETS, 'line'));
      expect(outcome.ok ? 'accepted' : outcome.error.code, JSON.stringify(extra)).toBe('InvalidArchive');
    }
    expect(
      outcomeOf(() =>
        parseVersionLine(
          JSON.stringify({ ...line, headers: { contentType: 'text/plain' }, userMeta: { name: 'rÃ©sumÃ©' } }),
          BUCKETS,
          'line',
        ),
      ).ok,
    ).toBe(true);
  });
});
