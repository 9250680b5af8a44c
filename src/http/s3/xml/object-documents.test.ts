// ListVersionsResult and GetObjectAttributesResponse: well-formed, in listing order, encoded as asked, and only the
// elements S3 renders for each case.

import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { buildListVersionsResult, type VersionSummary } from './list-versions.js';
import { buildObjectAttributes } from './object-attributes.js';

const T = new Date(Date.UTC(2009, 9, 12, 17, 50, 30));
const owner = { id: 'owner-id', displayName: 'store' };
const parser = new XMLParser({ ignoreAttributes: true, parseTagValue: false, preserveOrder: false });

function version(key: string, versionId: string, extra: Partial<VersionSummary> = {}): VersionSummary {
  return {
    key,
    versionId,
    isLatest: false,
    lastModified: T,
    isDeleteMarker: false,
    etag: 'abc',
    size: 3,
    owner,
    ...extra,
  };
}

describe('buildListVersionsResult', () => {
  it('renders versions and delete markers in the given order, with the markers always present', () => {
    const xml = buildListVersionsResult({
      bucket: 'b',
      prefix: '',
      keyMarker: '',
      versionIdMarker: '',
      maxKeys: 1000,
      isTruncated: false,
      commonPrefixes: ['dir/'],
      versions: [
        version('a', 'v2', { isDeleteMarker: true, isLatest: true }),
        version('a', 'v1'),
        version('b', 'null', { isLatest: true }),
      ],
    });
    expect(XMLValidator.validate(xml)).toBe(true);
    expect(xml.indexOf('<DeleteMarker>')).toBeLessThan(xml.indexOf('<Version>'));
    expect(xml).toContain('<KeyMarker></KeyMarker><VersionIdMarker></VersionIdMarker><MaxKeys>1000</MaxKeys>');
    expect(xml).not.toContain('NextKeyMarker');
    const doc = parser.parse(xml) as { ListVersionsResult: Record<string, unknown> };
    const r = doc.ListVersionsResult;
    expect(r['DeleteMarker']).toEqual({
      Owner: { ID: 'owner-id', DisplayName: 'store' },
      Key: 'a',
      VersionId: 'v2',
      IsLatest: 'true',
      LastModified: '2009-10-12T17:50:30.000Z',
    });
    expect(r['Version']).toEqual([
      {
        Key: 'a',
        VersionId: 'v1',
        IsLatest: 'false',
        LastModified: '2009-10-12T17:50:30.000Z',
        ETag: '"abc"',
        Size: '3',
        StorageClass: 'STANDARD',
        Owner: { ID: 'owner-id', DisplayName: 'store' },
      },
      {
        Key: 'b',
        VersionId: 'null',
        IsLatest: 'true',
        LastModified: '2009-10-12T17:50:30.000Z',
        ETag: '"abc"',
        Size: '3',
        StorageClass: 'STANDARD',
        Owner: { ID: 'owner-id', DisplayName: 'store' },
      },
    ]);
    expect(r['CommonPrefixes']).toEqual({ Prefix: 'dir/' });
  });

  it('renders the next markers only when truncated, and URL-encodes keys and markers but never version ids', () => {
    const input = {
      bucket: 'b',
      prefix: 'a b/',
      keyMarker: 'a b/ü',
      versionIdMarker: 'v+1',
      maxKeys: 1,
      delimiter: '/',
      encodingType: 'url' as const,
      nextKeyMarker: 'a b/ü2',
      nextVersionIdMarker: 'v+2',
      versions: [version('a b/ü2', 'v+2')],
      commonPrefixes: [],
    };
    const truncated = buildListVersionsResult({ ...input, isTruncated: true });
    expect(truncated).toContain(
      '<Prefix>a+b/</Prefix><KeyMarker>a+b/%C3%BC</KeyMarker><VersionIdMarker>v+1</VersionIdMarker>',
    );
    expect(truncated).toContain(
      '<NextKeyMarker>a+b/%C3%BC2</NextKeyMarker><NextVersionIdMarker>v+2</NextVersionIdMarker>',
    );
    expect(truncated).toContain(
      '<Delimiter>/</Delimiter><EncodingType>url</EncodingType><IsTruncated>true</IsTruncated>',
    );
    expect(truncated).toContain('<Key>a+b/%C3%BC2</Key><VersionId>v+2</VersionId>');
    expect(buildListVersionsResult({ ...input, isTruncated: false })).not.toContain('Next');
  });

  it('escapes keys for XML without an encoding type', () => {
    const xml = buildListVersionsResult({
      bucket: 'b',
      prefix: '',
      keyMarker: '',
      versionIdMarker: '',
      maxKeys: 1,
      isTruncated: false,
      commonPrefixes: [],
      versions: [version('<&>', 'v')],
    });
    expect(xml).toContain('<Key>&lt;&amp;&gt;</Key>');
  });
});

describe('buildObjectAttributes', () => {
  it('renders only what was asked for: an unquoted ETag, the size, the storage class', () => {
    const xml = buildObjectAttributes({ etag: '"abc"', objectSize: 5, storageClass: 'STANDARD' });
    expect(XMLValidator.validate(xml)).toBe(true);
    expect(xml).toContain('<ETag>abc</ETag><StorageClass>STANDARD</StorageClass><ObjectSize>5</ObjectSize>');
    expect(xml).not.toContain('Checksum');
    expect(xml).not.toContain('ObjectParts');
  });

  it('renders the checksum and paged parts', () => {
    const xml = buildObjectAttributes({
      checksum: { values: { CRC32: 'AAAAAA==' }, type: 'COMPOSITE' },
      objectParts: {
        partsCount: 3,
        partNumberMarker: 0,
        nextPartNumberMarker: 1,
        maxParts: 1,
        isTruncated: true,
        parts: [{ partNumber: 1, size: 10, checksums: { CRC32: 'AQIDBA==' } }],
      },
    });
    expect(xml).toContain(
      '<Checksum><ChecksumCRC32>AAAAAA==</ChecksumCRC32><ChecksumType>COMPOSITE</ChecksumType></Checksum>',
    );
    expect(xml).toContain(
      '<ObjectParts><PartsCount>3</PartsCount><PartNumberMarker>0</PartNumberMarker><NextPartNumberMarker>1</NextPartNumberMarker>' +
        '<MaxParts>1</MaxParts><IsTruncated>true</IsTruncated><Part><ChecksumCRC32>AQIDBA==</ChecksumCRC32><PartNumber>1</PartNumber>' +
        '<Size>10</Size></Part></ObjectParts>',
    );
  });
});
