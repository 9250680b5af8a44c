// Manifest parsing: what a v2 and a v1 manifest must say, and every way an index line can be wrong. Every refusal
// is InvalidArchive.

import { describe, expect, it } from 'vitest';
import { isSafeEntryName, parseManifest, parseVersionLine, type ArchivedBucket } from './backup-manifest.js';
import { md5Hex, multipartEtag } from './etag.js';

const bucket = (over: Partial<ArchivedBucket> = {}): ArchivedBucket => ({
  name: 'photos',
  createdAt: '2026-01-01T00:00:00.000Z',
  versioning: 'Enabled',
  objectLock: false,
  config: {},
  versionCount: 1,
  ...over,
});
const v2 = (over: Record<string, unknown> = {}): string =>
  JSON.stringify({
    version: 2,
    kind: 'instance',
    createdAt: '2026-01-02T00:00:00.000Z',
    storeVersion: '0.1.0',
    buckets: [bucket()],
    indexes: ['index/000001.jsonl'],
    totals: { versions: 1, entries: 1, bytes: 3 },
    ...over,
  });
const line = (over: Record<string, unknown> = {}): string =>
  JSON.stringify({
    bucket: 'photos',
    key: 'a/b.txt',
    versionId: '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b',
    deleteMarker: false,
    lastModified: '2026-01-01T10:00:00.000Z',
    size: 3,
    etag: 'acbd18db4cc2f85cedef654fccc4a4d8',
    headers: { contentType: 'text/plain' },
    userMeta: {},
    storageClass: 'STANDARD',
    entry: 'objects/000000001',
    sha256: 'a'.repeat(64),
    ...over,
  });
const buckets = (b: ArchivedBucket = bucket()): Map<string, ArchivedBucket> => new Map([[b.name, b]]);
const PARTS = [
  { partNumber: 1, size: 2, etag: md5Hex('ab') },
  { partNumber: 2, size: 1, etag: md5Hex('c') },
];
const PARTS_ETAG = multipartEtag(PARTS.map((p) => Buffer.from(p.etag, 'hex')));
const refused = (run: () => unknown): void =>
  expect(run).toThrow(expect.objectContaining({ code: 'InvalidArchive' }) as Error);

describe('parseManifest', () => {
  it('reads a v2 manifest', () => {
    const m = parseManifest(v2());
    expect(m.version).toBe(2);
    expect(m.buckets[0]?.name).toBe('photos');
  });

  it('carries ownership, bucket ACL and public access block; an archive from before ACLs restores as BucketOwnerEnforced', () => {
    const acl = {
      canned: 'public-read',
      grants: [{ grantee: { kind: 'group', group: 'AllUsers' }, permission: 'READ' }],
    };
    const block = {
      blockPublicAcls: true,
      ignorePublicAcls: false,
      blockPublicPolicy: false,
      restrictPublicBuckets: true,
    };
    const config = { ownershipControls: 'ObjectWriter', acl, publicAccessBlock: block };
    const configOf = (text: string): unknown => {
      const m = parseManifest(text);
      return m.version === 2 ? m.buckets[0]?.config : undefined;
    };
    expect(configOf(v2({ acls: true, buckets: [bucket({ config } as never)] }))).toEqual(config);
    expect(configOf(v2({ acls: true }))).toEqual({});
    expect(configOf(v2())).toEqual({ ownershipControls: 'BucketOwnerEnforced' });
    refused(() => parseManifest(v2({ acls: 'yes' })));
    refused(() => parseManifest(v2({ buckets: [bucket({ config: { ownershipControls: 'Everyone' } } as never)] })));
    refused(() =>
      parseManifest(
        v2({
          buckets: [
            bucket({ config: { acl: { grants: [{ grantee: { kind: 'user' }, permission: 'READ' }] } } } as never),
          ],
        }),
      ),
    );
    refused(() =>
      parseManifest(v2({ buckets: [bucket({ config: { publicAccessBlock: { blockPublicAcls: 'on' } } } as never)] })),
    );
  });

  it('reads a v1 manifest (current versions, no configuration)', () => {
    const m = parseManifest(
      JSON.stringify({
        version: 1,
        createdAt: '2023-01-01T00:00:00Z',
        buckets: [
          {
            name: 'old',
            objects: [{ key: 'k', size: 1, md5: '0cc175b9c0f1b6a831c399e269772661', file: 'data/old/k' }],
          },
        ],
      }),
    );
    expect(m).toMatchObject({
      version: 1,
      kind: 'instance',
      buckets: [{ name: 'old', objects: [{ key: 'k', file: 'data/old/k' }] }],
    });
  });

  it.each([
    ['not JSON', '{'],
    ['an array', '[]'],
    ['an unknown version', v2({ version: 3 })],
    ['a bad kind', v2({ kind: 'galaxy' })],
    ['a bad bucket name', v2({ buckets: [bucket({ name: 'Bad_Name' })] })],
    ['a bucket twice', v2({ buckets: [bucket(), bucket()] })],
    ['a lifecycle the S3 API refuses', v2({ buckets: [bucket({ config: { lifecycle: { rules: [] } } as never })] })],
    [
      'a policy for another bucket',
      v2({
        buckets: [
          bucket({
            config: {
              policy: JSON.stringify({
                Version: '2012-10-17',
                Statement: [
                  { Effect: 'Allow', Principal: '*', Action: 's3:GetObject', Resource: 'arn:aws:s3:::other/*' },
                ],
              }),
            },
          }),
        ],
      }),
    ],
    [
      'object lock without versioning',
      v2({
        buckets: [bucket({ objectLock: true, versioning: 'Suspended', config: { objectLock: { enabled: true } } })],
      }),
    ],
    ['an unknown config part', v2({ buckets: [bucket({ config: { website: {} } as never })] })],
    ['an unsafe index name', v2({ indexes: ['../index'] })],
    ['a bucket archive with two buckets', v2({ kind: 'bucket', buckets: [bucket(), bucket({ name: 'other' })] })],
    [
      'a v1 object with an unsafe file',
      JSON.stringify({
        version: 1,
        createdAt: '2023-01-01T00:00:00Z',
        buckets: [{ name: 'old', objects: [{ key: 'k', size: 1, md5: '0'.repeat(32), file: '/etc/passwd' }] }],
      }),
    ],
  ])('refuses %s', (_name, text) => refused(() => parseManifest(text)));
});

describe('parseVersionLine', () => {
  it('reads a version, a delete marker and a multipart version', () => {
    expect(parseVersionLine(line(), buckets(), 'l1')).toMatchObject({
      key: 'a/b.txt',
      size: 3,
      entry: 'objects/000000001',
    });
    expect(
      parseVersionLine(
        line({ deleteMarker: true, size: 0, etag: '', entry: undefined, sha256: undefined }),
        buckets(),
        'l2',
      ).deleteMarker,
    ).toBe(true);
    expect(parseVersionLine(line({ parts: PARTS, etag: PARTS_ETAG }), buckets(), 'l3').parts).toHaveLength(2);
    const checksum = { algorithm: 'CRC32', value: 'AAAAAA==-2', type: 'COMPOSITE' };
    const withChecksums = PARTS.map((p) => ({ ...p, checksum: 'AAAAAA==' }));
    expect(
      parseVersionLine(line({ parts: withChecksums, etag: PARTS_ETAG, checksum }), buckets(), 'l4').checksum,
    ).toEqual(checksum);
  });

  // Every field a restore sends back as a header, as a PUT would have made it (restored, a bad one made every GET a
  // 500).
  it.each([
    ['an ETag with CR/LF', () => line({ etag: 'acbd18db4cc2f85cedef654fccc4a4d8\r\nX-Evil: 1' })],
    ['a quoted ETag', () => line({ etag: '"acbd18db4cc2f85cedef654fccc4a4d8"' })],
    ['an ETag that is not an MD5', () => line({ etag: 'not-an-md5' })],
    [
      'a delete marker with an ETag',
      () => line({ deleteMarker: true, size: 0, etag: 'x\r\n', entry: undefined, sha256: undefined }),
    ],
    ['a multipart ETag that does not follow from its parts', () => line({ parts: PARTS, etag: `${'0'.repeat(32)}-2` })],
    ['a part ETag that is not an MD5', () => line({ parts: [{ ...PARTS[0], etag: 'x' }, PARTS[1]], etag: PARTS_ETAG })],
    ['a checksum value with CR/LF', () => line({ checksum: { algorithm: 'CRC32', value: 'AAAAAA==\r\nX: 1' } })],
    ['a checksum value of the wrong length', () => line({ checksum: { algorithm: 'SHA256', value: 'AAAAAA==' } })],
    [
      'a COMPOSITE checksum without its part count',
      () =>
        line({
          parts: PARTS,
          etag: PARTS_ETAG,
          checksum: { algorithm: 'CRC32', value: 'AAAAAA==', type: 'COMPOSITE' },
        }),
    ],
    [
      'a COMPOSITE checksum on a single-part version',
      () => line({ checksum: { algorithm: 'CRC32', value: 'AAAAAA==-1', type: 'COMPOSITE' } }),
    ],
    [
      'a part checksum of another algorithm',
      () =>
        line({
          parts: PARTS.map((p) => ({ ...p, checksum: 'AAAAAAAAAAA=' })),
          etag: PARTS_ETAG,
          checksum: { algorithm: 'CRC32', value: 'AAAAAA==-2', type: 'COMPOSITE' },
        }),
    ],
    [
      'a part checksum with CR/LF',
      () => line({ parts: PARTS.map((p) => ({ ...p, checksum: 'AA\r\n' })), etag: PARTS_ETAG }),
    ],
    ['a metadata name in upper case', () => line({ userMeta: { Name: 'x' } })],
    ['metadata over 2 KB', () => line({ userMeta: { big: 'x'.repeat(2100) } })],
  ])('refuses %s with InvalidArchive, as a PUT would', (_name, make) =>
    refused(() => parseVersionLine(make(), buckets(), 'l')),
  );

  it.each([
    ['not JSON', () => '{oops'],
    ['an unknown bucket', () => line({ bucket: 'elsewhere' })],
    ['an empty key', () => line({ key: '' })],
    ['a key over 1024 bytes', () => line({ key: 'x'.repeat(1025) })],
    ['a malformed version id', () => line({ versionId: 'v1' })],
    ['a negative size', () => line({ size: -1 })],
    ['a delete marker with bytes', () => line({ deleteMarker: true })],
    ['a bad checksum digest', () => line({ sha256: 'abc' })],
    ['an unsafe entry name', () => line({ entry: 'objects/../../x' })],
    [
      'parts that do not add up',
      () =>
        line({ parts: [{ ...PARTS[0], size: 1 }], etag: multipartEtag([Buffer.from(PARTS[0]?.etag ?? '', 'hex')]) }),
    ],
    [
      'parts out of order',
      () =>
        line({
          parts: [
            { ...PARTS[1], partNumber: 2 },
            { ...PARTS[0], partNumber: 1 },
          ],
          etag: PARTS_ETAG,
        }),
    ],
    ['an unknown header', () => line({ headers: { 'x-evil': 'y' } })],
    ['invalid tags', () => line({ tags: [{ key: '', value: 'x' }] })],
    [
      'a retention in a bucket without object lock',
      () => line({ retention: { mode: 'COMPLIANCE', retainUntilDate: '2030-01-01T00:00:00Z' } }),
    ],
    ['a bad storage class', () => line({ storageClass: 'cheap!' })],
  ])('refuses %s', (_name, make) => refused(() => parseVersionLine(make(), buckets(), 'l')));

  it("reads a version's ACL and refuses a bad one or one on a delete marker", () => {
    const acl = {
      grants: [
        { grantee: { kind: 'owner' }, permission: 'FULL_CONTROL' },
        { grantee: { kind: 'group', group: 'AuthenticatedUsers' }, permission: 'READ' },
      ],
    };
    expect(parseVersionLine(line({ acl }), buckets(), 'l1').acl).toEqual(acl);
    refused(() =>
      parseVersionLine(
        line({ acl: { grants: [{ grantee: { kind: 'owner' }, permission: 'EVERYTHING' }] } }),
        buckets(),
        'l1',
      ),
    );
    refused(() =>
      parseVersionLine(
        line({ acl, deleteMarker: true, size: 0, etag: '', entry: undefined, sha256: undefined }),
        buckets(),
        'l1',
      ),
    );
  });

  it('refuses a non-null version in an unversioned bucket', () => {
    refused(() => parseVersionLine(line(), buckets(bucket({ versioning: 'Unversioned' })), 'l'));
    expect(
      parseVersionLine(line({ versionId: 'null' }), buckets(bucket({ versioning: 'Unversioned' })), 'l').versionId,
    ).toBe('null');
  });
});

describe('isSafeEntryName', () => {
  it.each(['objects/000000001', 'data/b/ünïcødé key.txt', 'a/b/c'])('accepts %s', (n) =>
    expect(isSafeEntryName(n)).toBe(true),
  );
  it.each(['', '../x', 'a/../b', '/abs', 'C:/x', 'a\\b', 'a//b', './a', 'a/', 'a\u0000b'])('refuses %j', (n) =>
    expect(isSafeEntryName(n)).toBe(false),
  );
});
