// encoding-type=url on every listing, byte for byte as AWS writes it: UTF-8 percent-encoding that keeps only
// letters, digits, `-_.*` and `/`, writes a space as `+` (measured against AWS; botocore and the Java SDK decode it
// with unquote_plus / URLDecoder) and a literal `+` as %2B, control characters included. Checked on ListObjects
// (Key, Prefix, Marker, NextMarker, Delimiter, CommonPrefixes), ListObjectsV2 (Key, Prefix, StartAfter, Delimiter,
// CommonPrefixes), ListObjectVersions (Key, Prefix, KeyMarker, NextKeyMarker, Delimiter, CommonPrefixes) and
// ListMultipartUploads (the same).

import {
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  PutBucketVersioningCommand,
  PutObjectCommand,
} from '@aws-sdk/client-s3';
import { beforeAll, describe, expect, it } from 'vitest';
import { uniqueBucket } from '../helpers/clients.js';
import { useStore } from '../helpers/store.js';
import { rawRequest } from '../helpers/signed-http.js';

const store = useStore({ tmpfs: true });
let bucket: string;

/** Under `p/`: a space, a plus, a percent, UTF-8, control characters and every punctuation mark AWS encodes. */
const KEYS = [
  'p/a b+c.txt',
  'p/100%.csv',
  'p/한글 x',
  'p/ctl\u0001\t\n\u001f\u007f.bin',
  "p/!'()*~=:,;@&$?#[].-_",
  'p/sub dir/inner',
  'p/z',
];
const PREFIX = 'p/';
/** A marker and a delimiter that need encoding too. */
const MARKER = 'p/!\u0001 m';
const DELIMITER = ' ';

/** The reference: Java's URLEncoder (space as '+', keeps `A-Za-z0-9.-*_`), with '/' kept literal, as S3 does. */
function awsUrlEncode(text: string): string {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const c = String.fromCharCode(byte);
    if (/[A-Za-z0-9.\-*_/]/.test(c)) out += c;
    else if (c === ' ') out += '+';
    else out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

beforeAll(async () => {
  bucket = uniqueBucket('enc');
  await store.s3.send(new CreateBucketCommand({ Bucket: bucket }));
  await store.s3.send(
    new PutBucketVersioningCommand({ Bucket: bucket, VersioningConfiguration: { Status: 'Enabled' } }),
  );
  for (const key of KEYS) {
    await store.s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: 'x' }));
    await store.s3.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: key }));
  }
});

const q = (value: string): string => encodeURIComponent(value);

async function list(query: string): Promise<string> {
  const res = await rawRequest(store.server, {
    method: 'GET',
    path: `/${bucket}?${query}&encoding-type=url`,
    sign: true,
  });
  expect(res.status).toBe(200);
  expect(res.text).toContain('<EncodingType>url</EncodingType>');
  return res.text;
}

/** Every text of `<name>` in the document, in order (none of them hold markup). */
function texts(xml: string, name: string): string[] {
  return [...xml.matchAll(new RegExp(`<${name}>([^<]*)</${name}>`, 'g'))].map((m) => m[1] ?? '');
}

function commonPrefixes(xml: string): string[] {
  return [...xml.matchAll(/<CommonPrefixes><Prefix>([^<]*)<\/Prefix><\/CommonPrefixes>/g)].map((m) => m[1] ?? '');
}

const sorted = [...KEYS].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
/**
 * What a listing under PREFIX with DELIMITER ' ' answers: keys without a space after the prefix, and the rest rolled
 * up.
 */
const plainKeys = sorted.filter((k) => !k.slice(PREFIX.length).includes(' '));
const rolledUp = [
  ...new Set(
    sorted
      .filter((k) => k.slice(PREFIX.length).includes(' '))
      .map((k) => k.slice(0, k.indexOf(' ', PREFIX.length) + 1)),
  ),
];

describe('encoding-type=url', () => {
  it('the reference encoder is the one AWS uses', () => {
    expect(awsUrlEncode('a b+c/100%/한')).toBe('a+b%2Bc/100%25/%ED%95%9C');
    expect(awsUrlEncode("~!'()*\u0001\n")).toBe('%7E%21%27%28%29*%01%0A');
  });

  it('ListObjects encodes Key, Prefix, Marker, NextMarker, Delimiter and CommonPrefixes', async () => {
    const xml = await list(`prefix=${q(PREFIX)}&delimiter=${q(DELIMITER)}`);
    expect(texts(xml, 'Key')).toEqual(plainKeys.map(awsUrlEncode));
    expect(commonPrefixes(xml)).toEqual(rolledUp.map(awsUrlEncode));
    expect(texts(xml, 'Delimiter')).toEqual(['+']);
    const marked = await list(`prefix=${q(PREFIX)}&delimiter=${q(DELIMITER)}&marker=${q(MARKER)}&max-keys=1`);
    expect(texts(marked, 'Marker')).toEqual([awsUrlEncode(MARKER)]);
    const first = plainKeys.find((k) => k > MARKER) ?? '';
    expect(texts(marked, 'Key')).toEqual([awsUrlEncode(first)]);
    expect(texts(marked, 'NextMarker')).toEqual([awsUrlEncode(first)]);
    expect(texts(marked, 'Prefix')[0]).toBe(awsUrlEncode(PREFIX));
  });

  it('ListObjectsV2 encodes Key, Prefix, StartAfter, Delimiter and CommonPrefixes', async () => {
    const xml = await list(`list-type=2&prefix=${q(PREFIX)}&delimiter=${q(DELIMITER)}&start-after=${q(MARKER)}`);
    expect(texts(xml, 'StartAfter')).toEqual([awsUrlEncode(MARKER)]);
    expect(texts(xml, 'Key')).toEqual(plainKeys.filter((k) => k > MARKER).map(awsUrlEncode));
    expect(commonPrefixes(xml)).toEqual(rolledUp.filter((p) => p > MARKER).map(awsUrlEncode));
    expect(texts(xml, 'Delimiter')).toEqual(['+']);
  });

  it('ListObjectVersions encodes Key, Prefix, KeyMarker, NextKeyMarker, Delimiter and CommonPrefixes', async () => {
    const xml = await list(`versions&prefix=${q(PREFIX)}&delimiter=${q(DELIMITER)}`);
    expect(texts(xml, 'Key')).toEqual(plainKeys.map(awsUrlEncode));
    expect(commonPrefixes(xml)).toEqual(rolledUp.map(awsUrlEncode));
    const paged = await list(`versions&prefix=${q(PREFIX)}&key-marker=${q(MARKER)}&max-keys=1`);
    const first = sorted.find((k) => k > MARKER) ?? '';
    expect(texts(paged, 'KeyMarker')).toEqual([awsUrlEncode(MARKER)]);
    expect(texts(paged, 'NextKeyMarker')).toEqual([awsUrlEncode(first)]);
    expect(texts(paged, 'Key')).toEqual([awsUrlEncode(first)]);
  });

  it('ListMultipartUploads encodes Key, Prefix, KeyMarker, NextKeyMarker, Delimiter and CommonPrefixes', async () => {
    const xml = await list(`uploads&prefix=${q(PREFIX)}&delimiter=${q(DELIMITER)}`);
    expect(texts(xml, 'Key')).toEqual(plainKeys.map(awsUrlEncode));
    expect(commonPrefixes(xml)).toEqual(rolledUp.map(awsUrlEncode));
    expect(texts(xml, 'Delimiter')).toEqual(['+']);
    const paged = await list(`uploads&prefix=${q(PREFIX)}&key-marker=${q(MARKER)}&max-uploads=1`);
    const first = sorted.find((k) => k > MARKER) ?? '';
    expect(texts(paged, 'KeyMarker')).toEqual([awsUrlEncode(MARKER)]);
    expect(texts(paged, 'NextKeyMarker')).toEqual([awsUrlEncode(first)]);
  });
});
