import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../../core/errors.js';
import { buildListAllMyBucketsResult, buildLocationConstraint } from './buckets.js';
import { buildAppErrorXml, buildErrorXml } from './error.js';
import {
  buildInitiateMultipartUploadResult,
  buildCompleteMultipartUploadResult,
  buildListMultipartUploadsResult,
  buildListPartsResult,
} from './multipart.js';
import { buildCopyObjectResult, buildCopyPartResult, buildDeleteResult } from './objects.js';
import { readXml } from './reader.js';

const NS = 'http://s3.amazonaws.com/doc/2006-03-01/';
const PROLOG = '<?xml version="1.0" encoding="UTF-8"?>';
const T = new Date(Date.UTC(2009, 9, 12, 17, 50, 30));
const TS = '2009-10-12T17:50:30.000Z';
const owner = { id: 'owner-id', displayName: 'owner & co' };

type Doc = Record<string, unknown>;
const ARRAYS = new Set([
  'ListAllMyBucketsResult.Buckets.Bucket',
  'ListPartsResult.Part',
  'ListMultipartUploadsResult.Upload',
  'ListMultipartUploadsResult.CommonPrefixes',
  'DeleteResult.Deleted',
  'DeleteResult.Error',
]);
const parser = new XMLParser({
  ignoreAttributes: false,
  parseTagValue: false,
  trimValues: false,
  htmlEntities: true, // decodes character references such as &#xD;
  isArray: (_name, jpath) => ARRAYS.has(String(jpath)),
});

/** What lenient clients (the JS SDK's parser) do with the raw text: decode every reference. */
function lenientDecode(raw: string): string {
  const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
  return raw.replace(/&(?:#x([0-9A-Fa-f]+)|([a-z]+));/g, (_m, hex: string | undefined, name: string | undefined) =>
    hex === undefined ? (named[name ?? ''] ?? '') : String.fromCodePoint(parseInt(hex, 16)),
  );
}

/** Parses a builder's output; also asserts it is one well-formed document our own strict reader accepts. */
function parse(xml: string): Doc {
  expect(xml.startsWith(PROLOG)).toBe(true);
  expect(XMLValidator.validate(xml)).toBe(true);
  expect(readXml(xml)).toBeDefined();
  return parser.parse(xml) as Doc;
}

describe('buildErrorXml', () => {
  it('renders Code, Message, details, Resource, RequestId without a namespace', () => {
    const xml = buildErrorXml({
      code: 'NoSuchKey',
      message: 'The specified key does not exist.',
      details: { Key: 'a<b>&"c"', 'bad name': 'x', Code: 'spoof' },
      resource: '/bucket/a<b>',
      requestId: 'req-1',
      hostId: 'host',
    });
    expect(xml).not.toContain('xmlns');
    expect(xml).not.toContain('spoof');
    expect(xml).toMatch(/<Error><Code>NoSuchKey<\/Code><Message>.*<\/Message><Key>/);
    expect(parse(xml)).toMatchObject({
      Error: {
        Code: 'NoSuchKey',
        Message: 'The specified key does not exist.',
        Key: 'a<b>&"c"',
        Resource: '/bucket/a<b>',
        RequestId: 'req-1',
        HostId: 'host',
      },
    });
  });
  it('renders an AppError with its details', () => {
    const err = new AppError('InvalidArgument', {
      message: 'bad <range>',
      details: { ArgumentName: 'x-amz-copy-source-range' },
    });
    const doc = parse(buildAppErrorXml(err, { requestId: 'r' }));
    expect(doc).toMatchObject({
      Error: {
        Code: 'InvalidArgument',
        Message: 'bad <range>',
        ArgumentName: 'x-amz-copy-source-range',
        RequestId: 'r',
      },
    });
    expect((doc.Error as Doc).Resource).toBeUndefined();
  });
});

describe('buildListAllMyBucketsResult', () => {
  it('renders owner and buckets with millisecond timestamps', () => {
    const xml = buildListAllMyBucketsResult({
      owner,
      buckets: [
        { name: 'alpha', creationDate: T, region: 'us-east-1' },
        { name: 'beta', creationDate: T },
      ],
    });
    expect(xml).toContain(`<ListAllMyBucketsResult xmlns="${NS}">`);
    const doc = parse(xml).ListAllMyBucketsResult as Doc;
    expect(doc.Owner).toEqual({ ID: 'owner-id', DisplayName: 'owner & co' });
    expect(doc.Buckets).toEqual({
      Bucket: [
        { Name: 'alpha', CreationDate: TS, BucketRegion: 'us-east-1' },
        { Name: 'beta', CreationDate: TS },
      ],
    });
    expect(doc.ContinuationToken).toBeUndefined();
  });
  it('renders the continuation token and prefix when given, and an empty bucket list', () => {
    const doc = parse(
      buildListAllMyBucketsResult({ owner: { id: 'i' }, buckets: [], continuationToken: 'tok', prefix: 'al' }),
    ).ListAllMyBucketsResult as Doc;
    expect(doc).toMatchObject({ Owner: { ID: 'i' }, Buckets: '', ContinuationToken: 'tok', Prefix: 'al' });
  });
});

describe('buildLocationConstraint', () => {
  it('is empty for us-east-1 and the region otherwise', () => {
    for (const region of [undefined, '', 'us-east-1']) {
      expect(buildLocationConstraint(region)).toBe(
        `${PROLOG}\n<LocationConstraint xmlns="${NS}"></LocationConstraint>`,
      );
    }
    expect(parse(buildLocationConstraint('eu-west-1'))).toMatchObject({ LocationConstraint: { '#text': 'eu-west-1' } });
  });
});

describe('multipart builders', () => {
  it('InitiateMultipartUploadResult', () => {
    const doc = parse(buildInitiateMultipartUploadResult({ bucket: 'b', key: 'dir/a&b.txt', uploadId: 'u-1' }));
    expect(doc.InitiateMultipartUploadResult).toMatchObject({ Bucket: 'b', Key: 'dir/a&b.txt', UploadId: 'u-1' });
  });

  it('CompleteMultipartUploadResult with checksums and type', () => {
    const xml = buildCompleteMultipartUploadResult({
      location: 'http://host/b/k?x=1&y=2',
      bucket: 'b',
      key: 'k',
      etag: 'abc-2',
      checksums: { SHA256: 'sha=-2', CRC32: 'crc=-2' },
      checksumType: 'COMPOSITE',
    });
    expect(xml).toContain('<ETag>&quot;abc-2&quot;</ETag><ChecksumCRC32>crc=-2</ChecksumCRC32><ChecksumSHA256>');
    expect(parse(xml).CompleteMultipartUploadResult).toMatchObject({
      Location: 'http://host/b/k?x=1&y=2',
      ETag: '"abc-2"',
      ChecksumCRC32: 'crc=-2',
      ChecksumSHA256: 'sha=-2',
      ChecksumType: 'COMPOSITE',
    });
  });

  it('ListPartsResult', () => {
    const doc = parse(
      buildListPartsResult({
        bucket: 'b',
        key: 'k',
        uploadId: 'u',
        nextPartNumberMarker: 2,
        maxParts: 2,
        isTruncated: true,
        parts: [
          { partNumber: 1, lastModified: T, etag: '"e1"', size: 5_242_880, checksums: { CRC32C: 'c1' } },
          { partNumber: 2, lastModified: T, etag: 'e2', size: 1 },
        ],
        initiator: owner,
        owner,
        checksumAlgorithm: 'CRC32C',
        checksumType: 'COMPOSITE',
      }),
    ).ListPartsResult as Doc;
    expect(doc).toMatchObject({
      PartNumberMarker: '0',
      NextPartNumberMarker: '2',
      MaxParts: '2',
      IsTruncated: 'true',
      Initiator: { ID: 'owner-id' },
      StorageClass: 'STANDARD',
      ChecksumAlgorithm: 'CRC32C',
    });
    expect(doc.Part).toEqual([
      { PartNumber: '1', LastModified: TS, ETag: '"e1"', Size: '5242880', ChecksumCRC32C: 'c1' },
      { PartNumber: '2', LastModified: TS, ETag: '"e2"', Size: '1' },
    ]);
  });

  it('ListMultipartUploadsResult, plain and with encoding-type=url', () => {
    const input = {
      bucket: 'b',
      keyMarker: 'a b',
      prefix: 'p+q/',
      delimiter: '/',
      maxUploads: 1,
      isTruncated: true,
      nextKeyMarker: 'p+q/x y',
      nextUploadIdMarker: 'u1',
      uploads: [{ key: 'p+q/x y', uploadId: 'u1', initiated: T, owner }],
      commonPrefixes: ['p+q/sub dir/'],
    };
    const plain = parse(buildListMultipartUploadsResult(input)).ListMultipartUploadsResult as Doc;
    expect(plain).toMatchObject({
      KeyMarker: 'a b',
      Prefix: 'p+q/',
      NextKeyMarker: 'p+q/x y',
      NextUploadIdMarker: 'u1',
      IsTruncated: 'true',
    });
    expect(plain.EncodingType).toBeUndefined();
    expect(plain.Upload).toEqual([
      {
        Key: 'p+q/x y',
        UploadId: 'u1',
        Initiator: { ID: 'owner-id', DisplayName: 'owner & co' },
        Owner: { ID: 'owner-id', DisplayName: 'owner & co' },
        StorageClass: 'STANDARD',
        Initiated: TS,
      },
    ]);
    const encoded = parse(buildListMultipartUploadsResult({ ...input, encodingType: 'url' }))
      .ListMultipartUploadsResult as Doc;
    expect(encoded).toMatchObject({
      KeyMarker: 'a+b',
      Prefix: 'p%2Bq/',
      NextKeyMarker: 'p%2Bq/x+y',
      Delimiter: '/',
      EncodingType: 'url',
      UploadIdMarker: '',
    });
    expect((encoded.Upload as Doc[])[0]).toMatchObject({ Key: 'p%2Bq/x+y', UploadId: 'u1' });
    expect(encoded.CommonPrefixes).toEqual([{ Prefix: 'p%2Bq/sub+dir/' }]);
  });

  it('omits next markers when not truncated', () => {
    const doc = parse(
      buildListMultipartUploadsResult({
        bucket: 'b',
        maxUploads: 1000,
        isTruncated: false,
        nextKeyMarker: 'x',
        uploads: [],
        commonPrefixes: [],
      }),
    ).ListMultipartUploadsResult as Doc;
    expect(doc.NextKeyMarker).toBeUndefined();
    expect(doc.Delimiter).toBeUndefined();
  });
});

describe('object builders', () => {
  it('CopyObjectResult and CopyPartResult', () => {
    const copy = parse(
      buildCopyObjectResult({ etag: 'e', lastModified: T, checksums: { CRC64NVME: 'c' }, checksumType: 'FULL_OBJECT' }),
    );
    expect(copy.CopyObjectResult).toMatchObject({
      ETag: '"e"',
      LastModified: TS,
      ChecksumCRC64NVME: 'c',
      ChecksumType: 'FULL_OBJECT',
    });
    const part = parse(buildCopyPartResult({ etag: '"p"', lastModified: T }));
    expect(part.CopyPartResult).toMatchObject({ ETag: '"p"', LastModified: TS });
    expect(Object.keys(part.CopyPartResult as Doc).filter((k) => k.startsWith('Checksum'))).toEqual([]);
  });

  it('DeleteResult lists deleted keys and errors', () => {
    const xml = buildDeleteResult({
      quiet: false,
      deleted: [{ key: 'a&b' }, { key: 'v', versionId: 'v1', deleteMarker: true, deleteMarkerVersionId: 'm1' }],
      errors: [{ key: 'x\u0001', code: 'AccessDenied', message: 'Access Denied' }],
    });
    expect(xml).toContain('<Error><Key>x&#x1;</Key><Code>AccessDenied</Code><Message>Access Denied</Message></Error>');
    expect(lenientDecode(/<Error><Key>(.*?)<\/Key>/.exec(xml)![1]!)).toBe('x\u0001');
    const result = parse(xml.replace('&#x1;', '')).DeleteResult as Doc;
    expect(result.Deleted).toEqual([
      { Key: 'a&b' },
      { Key: 'v', VersionId: 'v1', DeleteMarker: 'true', DeleteMarkerVersionId: 'm1' },
    ]);
    expect(result.Error).toEqual([{ Key: 'x', Code: 'AccessDenied', Message: 'Access Denied' }]);
  });

  it('DeleteResult in quiet mode reports only errors', () => {
    const doc = parse(buildDeleteResult({ quiet: true, deleted: [{ key: 'a' }], errors: [] }));
    expect(doc.DeleteResult).toMatchObject({ '@_xmlns': NS });
    expect((doc.DeleteResult as Doc).Deleted).toBeUndefined();
  });
});
