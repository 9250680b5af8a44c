import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  canonicalHeaderValue,
  canonicalQuery,
  canonicalRequest,
  canonicalUri,
  credentialScope,
  formatAmzDate,
  sha256Hex,
  stringToSign,
  uriEncode,
} from './canonical.js';
import { deriveSigningKey, signatureHex, signatureMatches, signatureBytes } from './signature.js';

interface Vector {
  name: string;
  method: string;
  path: string;
  query: string;
  headers: Record<string, string | string[]>;
  signedHeaders: string;
  payloadHash?: string;
  canonicalRequest?: string;
  stringToSignHash?: string;
  signature: string;
}
interface Suite {
  credentials: { secretAccessKey: string; region: string; service?: string; amzDate: string };
  headerSigned: Vector[];
  querySigned?: Vector[];
}

function load(name: string): Suite {
  return JSON.parse(readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8')) as Suite;
}

function sign(suite: Suite, v: Vector, isPresigned: boolean): { canonical: string; toSign: string; signature: string } {
  const { secretAccessKey, region, amzDate } = suite.credentials;
  const service = suite.credentials.service ?? 's3';
  const canonical = canonicalRequest({
    method: v.method,
    rawPath: v.path,
    rawQuery: v.query,
    headers: v.headers,
    signedHeaders: v.signedHeaders.split(';'),
    payloadHash: v.payloadHash ?? String(v.headers['x-amz-content-sha256']),
    isPresigned,
  });
  const toSign = stringToSign(amzDate, credentialScope(amzDate.slice(0, 8), region, service), canonical);
  const key = deriveSigningKey(secretAccessKey, { date: amzDate.slice(0, 8), region: region, service: service });
  return { canonical, toSign, signature: signatureHex(key, toSign) };
}

describe('AWS SigV4 test suite (generic service, S3 path rules)', () => {
  const suite = load('aws-sig-v4-test-suite.json');
  for (const v of suite.headerSigned) {
    it(`${v.name} computes the published signature`, () => {
      const out = sign(suite, v, false);
      if (v.canonicalRequest !== undefined) expect(out.canonical).toBe(v.canonicalRequest);
      if (v.stringToSignHash !== undefined) expect(out.toSign.split('\n')[3]).toBe(v.stringToSignHash);
      expect(out.signature).toBe(v.signature);
    });
  }
  for (const v of suite.querySigned ?? []) {
    it(`${v.name} computes the published presigned signature, X-Amz-Signature excluded`, () => {
      expect(sign(suite, v, true).signature).toBe(v.signature);
    });
  }
});

describe('S3 documentation examples', () => {
  const suite = load('s3-doc-examples.json');
  for (const v of suite.headerSigned) {
    it(`${v.name} computes the published signature`, () => {
      const out = sign(suite, v, false);
      if (v.stringToSignHash !== undefined) expect(out.toSign.split('\n')[3]).toBe(v.stringToSignHash);
      expect(out.signature).toBe(v.signature);
    });
  }
});

describe('canonicalUri (S3: decode, re-encode once, never normalise)', () => {
  it.each([
    ['/', '/'],
    ['', '/'],
    ['/bucket/a//b/../c', '/bucket/a//b/../c'],
    ['/bucket/./x', '/bucket/./x'],
    ['/test$file.text', '/test%24file.text'],
    ['/b/a%20b', '/b/a%20b'],
    ['/b/a b', '/b/a%20b'],
    ['/b/a+b', '/b/a%2Bb'],
    ['/b/a%2Bb', '/b/a%2Bb'],
    ['/b/a%2bb', '/b/a%2Bb'],
    ['/b/100%25', '/b/100%25'],
    ['/b/%zz%4', '/b/%25zz%254'],
    ['/b/a%2Fb', '/b/a%2Fb'],
    ['/b/a%2fb/c d', '/b/a%2Fb/c%20d'],
    ['/b/~-._', '/b/~-._'],
    ['/b/%7E', '/b/~'],
    ['/b/\u00e9', '/b/%E9'],
    ['/b/%C3%A9', '/b/%C3%A9'],
    ['/b/\u1234', '/b/%E1%88%B4'],
    ['/b/\u{1F600}', '/b/%F0%9F%98%80'],
    ["/b/*!'()", '/b/%2A%21%27%28%29'],
  ])('%j -> %j', (raw, expected) => {
    expect(canonicalUri(raw)).toBe(expected);
  });
});

describe('canonicalQuery', () => {
  it('sorts by name then value and gives a bare name an empty value', () => {
    expect(canonicalQuery('b=2&a=2&a=1&acl', false)).toBe('a=1&a=2&acl=&b=2');
  });
  it('decodes then re-encodes names and values, + reading as a space', () => {
    expect(canonicalQuery('prefix=a+b%2Bc*~&x=%7e', false)).toBe('prefix=a%20b%2Bc%2A~&x=~');
  });
  it('sorts after encoding (byte order of the encoded form)', () => {
    expect(canonicalQuery('z=1&%C3%A4=1&Z=1', false)).toBe('%C3%A4=1&Z=1&z=1');
  });
  it('drops X-Amz-Signature only for presigned requests', () => {
    expect(canonicalQuery('X-Amz-Signature=abc&a=1', true)).toBe('a=1');
    expect(canonicalQuery('X-Amz-Signature=abc&a=1', false)).toBe('X-Amz-Signature=abc&a=1');
  });
  it('ignores empty segments', () => {
    expect(canonicalQuery('&&a=1&', false)).toBe('a=1');
    expect(canonicalQuery('', false)).toBe('');
  });
});

describe('canonical header values', () => {
  it('trims and collapses runs of spaces', () => {
    expect(canonicalHeaderValue('  a   b \t c  ')).toBe('a b c');
  });
  it('joins repeated headers with a comma, each trimmed', () => {
    expect(canonicalHeaderValue([' a ', 'b  c'])).toBe('a,b c');
  });
  it('keeps latin1 bytes such as 0xA0 (inside a UTF-8 "à") intact', () => {
    const wire = Buffer.from('voilà', 'utf8').toString('latin1');
    expect(canonicalHeaderValue(wire)).toBe(wire);
  });
  it('hashes latin1 strings byte for byte, as they travelled', () => {
    const wire = Buffer.from('é', 'utf8').toString('latin1');
    expect(sha256Hex(wire)).toBe(sha256Hex(Buffer.from('é', 'utf8')));
  });
});

describe('helpers', () => {
  it('formats an amz date', () => {
    expect(formatAmzDate(new Date('2013-05-24T00:00:00.123Z'))).toBe('20130524T000000Z');
  });
  it('uriEncode encodes everything but unreserved characters', () => {
    expect(uriEncode('AKID/20130524/us-east-1/s3/aws4_request')).toBe(
      'AKID%2F20130524%2Fus-east-1%2Fs3%2Faws4_request',
    );
    expect(uriEncode('a b+c')).toBe('a%20b%2Bc');
  });
  it('derives the signing key of the AWS docs example and caches it', () => {
    const key = deriveSigningKey('wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', {
      date: '20130524',
      region: 'us-east-1',
      service: 's3',
    });
    expect(
      deriveSigningKey('wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', {
        date: '20130524',
        region: 'us-east-1',
        service: 's3',
      }),
    ).toBe(key);
    expect(deriveSigningKey('other', { date: '20130524', region: 'us-east-1', service: 's3' }).equals(key)).toBe(false);
  });
  it('keeps the signing key cache bounded and still correct after eviction', () => {
    const first = Buffer.from(deriveSigningKey('s-0', { date: '20200101', region: 'r', service: 's3' }));
    for (let i = 1; i < 600; i++) deriveSigningKey(`s-${i}`, { date: '20200101', region: 'r', service: 's3' });
    expect(deriveSigningKey('s-0', { date: '20200101', region: 'r', service: 's3' }).equals(first)).toBe(true);
  });
  it('signatureMatches rejects malformed, wrong and differently sized signatures', () => {
    const key = deriveSigningKey('k', { date: '20200101', region: 'r', service: 's3' });
    const good = signatureBytes(key, 'x');
    expect(signatureMatches(good, good.toString('hex'))).toBe(true);
    expect(signatureMatches(good, good.toString('hex').toUpperCase())).toBe(true);
    expect(signatureMatches(good, good.toString('hex').slice(0, 62))).toBe(false);
    expect(signatureMatches(good, `${good.toString('hex')}00`)).toBe(false);
    expect(signatureMatches(good, 'z'.repeat(64))).toBe(false);
    expect(signatureMatches(good, '0'.repeat(64))).toBe(false);
  });
});
