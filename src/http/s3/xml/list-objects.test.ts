import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { type ObjectSummary, buildListObjectsV1Result, buildListObjectsV2Result } from './list-objects.js';
import { readXml } from './reader.js';

const NS = 'http://s3.amazonaws.com/doc/2006-03-01/';
const T = new Date(Date.UTC(2009, 9, 12, 17, 50, 30, 5));
const TS = '2009-10-12T17:50:30.005Z';
const owner = { id: 'oid', displayName: 'me' };

type Doc = Record<string, unknown>;
const parser = new XMLParser({
  ignoreAttributes: false,
  parseTagValue: false,
  trimValues: false,
  htmlEntities: true,
  isArray: (name) => name === 'Contents' || name === 'CommonPrefixes',
});
const result = (xml: string): Doc => (parser.parse(xml) as Doc).ListBucketResult as Doc;
/** What lenient clients (the JS SDK's parser) do with raw element text: decode every reference. */
function lenientDecode(raw: string): string {
  const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
  return raw.replace(/&(?:#x([0-9A-Fa-f]+)|([a-z]+));/g, (_m, hex: string | undefined, name: string | undefined) =>
    hex === undefined ? (named[name ?? ''] ?? '') : String.fromCodePoint(parseInt(hex, 16)),
  );
}
/** XML 1.0 legal: the validator and our strict reader (which refuses &#x1;) both accept it. */
function isLegalXml(xml: string): boolean {
  if (XMLValidator.validate(xml) !== true) return false;
  try {
    return readXml(xml) !== undefined;
  } catch {
    return false;
  }
}

const summary = (key: string, extra: Partial<ObjectSummary> = {}): ObjectSummary => ({
  key,
  lastModified: T,
  etag: 'abc',
  size: 3,
  owner,
  ...extra,
});
const base = {
  bucket: 'bkt',
  maxKeys: 1000,
  isTruncated: false,
  contents: [] as ObjectSummary[],
  commonPrefixes: [] as string[],
};

describe('buildListObjectsV1Result', () => {
  it('renders Name, empty Prefix and Marker, contents with owner and STANDARD storage class', () => {
    const xml = buildListObjectsV1Result({
      ...base,
      contents: [summary('a.txt', { checksumAlgorithm: 'CRC64NVME', checksumType: 'FULL_OBJECT' })],
    });
    expect(xml.startsWith(`<?xml version="1.0" encoding="UTF-8"?>\n<ListBucketResult xmlns="${NS}">`)).toBe(true);
    expect(isLegalXml(xml)).toBe(true);
    const doc = result(xml);
    expect(doc).toMatchObject({ Name: 'bkt', Prefix: '', Marker: '', MaxKeys: '1000', IsTruncated: 'false' });
    expect(doc.Delimiter).toBeUndefined();
    expect(doc.NextMarker).toBeUndefined();
    expect(doc.Contents).toEqual([
      {
        Key: 'a.txt',
        LastModified: TS,
        ETag: '"abc"',
        ChecksumAlgorithm: 'CRC64NVME',
        ChecksumType: 'FULL_OBJECT',
        Size: '3',
        Owner: { ID: 'oid', DisplayName: 'me' },
        StorageClass: 'STANDARD',
      },
    ]);
  });

  it('renders NextMarker only when truncated with a delimiter', () => {
    const truncated = { ...base, isTruncated: true, nextMarker: 'b/' };
    expect(result(buildListObjectsV1Result({ ...truncated, delimiter: '/' })).NextMarker).toBe('b/');
    expect(result(buildListObjectsV1Result(truncated)).NextMarker).toBeUndefined();
    expect(
      result(buildListObjectsV1Result({ ...truncated, delimiter: '/', isTruncated: false })).NextMarker,
    ).toBeUndefined();
  });

  it('URL-encodes Key, Prefix, Delimiter, Marker, NextMarker and CommonPrefixes with encoding-type=url', () => {
    const xml = buildListObjectsV1Result({
      ...base,
      bucket: 'b.k',
      prefix: 'a b/',
      delimiter: '+',
      marker: 'a b/0 0',
      nextMarker: 'a b/x y',
      isTruncated: true,
      encodingType: 'url',
      contents: [summary('a b/x y')],
      commonPrefixes: ['a b/c+'],
    });
    const doc = result(xml);
    expect(doc).toMatchObject({
      Name: 'b.k',
      Prefix: 'a+b/',
      Delimiter: '%2B',
      Marker: 'a+b/0+0',
      NextMarker: 'a+b/x+y',
      EncodingType: 'url',
    });
    expect((doc.Contents as Doc[])[0]!.Key).toBe('a+b/x+y');
    expect(doc.CommonPrefixes).toEqual([{ Prefix: 'a+b/c%2B' }]);
  });

  it('escapes keys with markup characters and round-trips them', () => {
    const keys = ['<a>', 'x&y', `q"u'o`, 'tab\tkey', '日本/😀'];
    const xml = buildListObjectsV1Result({ ...base, contents: keys.map((k) => summary(k)), commonPrefixes: ['p&q/'] });
    expect(isLegalXml(xml)).toBe(true);
    const doc = result(xml);
    expect((doc.Contents as Doc[]).map((c) => c.Key)).toEqual(keys);
    expect(doc.CommonPrefixes).toEqual([{ Prefix: 'p&q/' }]);
  });
});

describe('buildListObjectsV2Result', () => {
  it('computes KeyCount and omits Owner without fetch-owner', () => {
    const xml = buildListObjectsV2Result({
      ...base,
      delimiter: '/',
      contents: [summary('a'), summary('b')],
      commonPrefixes: ['c/'],
    });
    expect(isLegalXml(xml)).toBe(true);
    const doc = result(xml);
    expect(doc).toMatchObject({
      Name: 'bkt',
      Prefix: '',
      KeyCount: '3',
      MaxKeys: '1000',
      Delimiter: '/',
      IsTruncated: 'false',
    });
    expect((doc.Contents as Doc[])[0]!.Owner).toBeUndefined();
    expect(doc.Marker).toBeUndefined();
    expect(doc.ContinuationToken).toBeUndefined();
    expect(doc.StartAfter).toBeUndefined();
  });

  it('renders Owner with fetch-owner, tokens, and StartAfter', () => {
    const doc = result(
      buildListObjectsV2Result({
        ...base,
        fetchOwner: true,
        isTruncated: true,
        continuationToken: 'tok+/=',
        nextContinuationToken: 'next+/=',
        startAfter: 'm',
        maxKeys: 1,
        contents: [summary('n')],
      }),
    );
    expect(doc).toMatchObject({
      ContinuationToken: 'tok+/=',
      NextContinuationToken: 'next+/=',
      StartAfter: 'm',
      KeyCount: '1',
      IsTruncated: 'true',
    });
    expect((doc.Contents as Doc[])[0]!.Owner).toEqual({ ID: 'oid', DisplayName: 'me' });
  });

  it('omits NextContinuationToken when not truncated', () => {
    expect(
      result(buildListObjectsV2Result({ ...base, nextContinuationToken: 'x' })).NextContinuationToken,
    ).toBeUndefined();
  });

  it('URL-encodes Key, Prefix, Delimiter, StartAfter and CommonPrefixes but never the tokens', () => {
    const doc = result(
      buildListObjectsV2Result({
        ...base,
        prefix: 'dir one/',
        delimiter: ' ',
        startAfter: 'dir one/(a)',
        continuationToken: 'a+b',
        encodingType: 'url',
        contents: [summary('dir one/a+b')],
        commonPrefixes: ['dir one/x '],
      }),
    );
    expect(doc).toMatchObject({
      Prefix: 'dir+one/',
      Delimiter: '+',
      StartAfter: 'dir+one/%28a%29',
      ContinuationToken: 'a+b',
      EncodingType: 'url',
    });
    expect((doc.Contents as Doc[])[0]!.Key).toBe('dir+one/a%2Bb');
    expect(doc.CommonPrefixes).toEqual([{ Prefix: 'dir+one/x+' }]);
  });

  it('renders control characters as S3 does, and encoding-type=url makes the document legal XML 1.0', () => {
    const keys = ['ctl\u0001key', 'cr\rlf\nkey', 'crlf\r\nkey'];
    const raw = buildListObjectsV2Result({ ...base, contents: keys.map((k) => summary(k)) });
    expect(raw).toContain('<Key>ctl&#x1;key</Key>');
    expect(raw).toContain('<Key>cr&#xD;lf&#xA;key</Key>');
    // A lenient parser (the JS SDK's decodes every character reference) gets the keys back exactly...
    const rawKeys = [...raw.matchAll(/<Key>(.*?)<\/Key>/g)].map((m) => lenientDecode(m[1]!));
    expect(rawKeys).toEqual(keys);
    // ...but &#x1; is not legal XML 1.0, so strict parsers refuse it:
    expect(isLegalXml(raw)).toBe(false);
    const encoded = buildListObjectsV2Result({ ...base, encodingType: 'url', contents: keys.map((k) => summary(k)) });
    expect(isLegalXml(encoded)).toBe(true);
    expect(
      (result(encoded).Contents as Doc[]).map((c) => decodeURIComponent(String(c.Key).replace(/\+/g, ' '))),
    ).toEqual(keys);
  });

  it('builds a 1000-key page quickly', () => {
    const contents = Array.from({ length: 1000 }, (_, i) =>
      summary(`photos/2024/${String(i).padStart(6, '0')}-image.jpg`),
    );
    const start = performance.now();
    for (let i = 0; i < 20; i++) buildListObjectsV2Result({ ...base, contents });
    const perPage = (performance.now() - start) / 20;
    expect(result(buildListObjectsV2Result({ ...base, contents })).KeyCount).toBe('1000');
    expect(perPage).toBeLessThan(50);
  });
});
