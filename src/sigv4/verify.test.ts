/* eslint-disable max-lines -- AWS's SigV4 test vectors and their mutations share one set of fixtures */
import { describe, expect, it } from 'vitest';
import { AppError, type ErrorCode } from '../core/errors.js';
import type { SignedRequest } from './types.js';
import { hostWithoutPort, verifyRequest } from './verify.js';
import { presignUrl, signRequest } from './sign.js';
import { canonicalRequest, credentialScope, stringToSign } from './canonical.js';
import { deriveSigningKey, signatureHex } from './signature.js';

const AKID = 'AKIAIOSFODNN7EXAMPLE';
const SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
const REGION = 'us-east-1';
const NOW = new Date('2013-05-24T00:00:00Z');
const lookup = (id: string): string | undefined => (id === AKID ? SECRET : undefined);
// SigV2 off (STORE_SIGV2=off): refused as an unsupported mechanism; sigv2.test.ts verifies it.
const opts = { lookup, region: { name: REGION, strict: true }, now: NOW, sigv2: false };
const EMPTY = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

function minutes(n: number): Date {
  return new Date(NOW.getTime() + n * 60_000);
}

/** What the server would see for a request signed by signRequest. */
function signed(
  method: string,
  url: string,
  extra: { headers?: Record<string, string>; payloadHash?: string; rawPath?: string; now?: Date; region?: string } = {},
): SignedRequest {
  const u = new URL(url);
  const headers = signRequest({
    method,
    url: u,
    accessKeyId: AKID,
    secretAccessKey: SECRET,
    region: extra.region ?? REGION,
    now: extra.now ?? NOW,
    ...(extra.headers === undefined ? {} : { headers: extra.headers }),
    ...(extra.payloadHash === undefined ? {} : { payloadHash: extra.payloadHash }),
    ...(extra.rawPath === undefined ? {} : { rawPath: extra.rawPath }),
  });
  return { method, rawPath: extra.rawPath ?? u.pathname, rawQuery: u.search.slice(1), headers };
}

function presigned(url: string, extra: { expires?: number; now?: Date; region?: string } = {}): SignedRequest {
  const u = presignUrl({
    method: 'GET',
    url: new URL(url),
    accessKeyId: AKID,
    secretAccessKey: SECRET,
    region: extra.region ?? REGION,
    expiresSeconds: extra.expires ?? 3600,
    now: extra.now ?? NOW,
  });
  return { method: 'GET', rawPath: u.pathname, rawQuery: u.search.slice(1), headers: { host: u.host } };
}

function errorOf(fn: () => unknown): AppError {
  try {
    fn();
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error('expected an AppError, nothing was thrown');
}

function expectCode(fn: () => unknown, code: ErrorCode): AppError {
  const err = errorOf(fn);
  expect(err.code).toBe(code);
  return err;
}

function withAuth(req: SignedRequest, authorization: string): SignedRequest {
  return { ...req, headers: { ...req.headers, authorization } };
}

describe('anonymous requests', () => {
  it('returns undefined without any authentication', () => {
    expect(
      verifyRequest({ method: 'GET', rawPath: '/b/k', rawQuery: '', headers: { host: 'h' } }, opts),
    ).toBeUndefined();
    expect(
      verifyRequest(
        { method: 'GET', rawPath: '/b', rawQuery: 'list-type=2&prefix=a%20b&Signature-x=1', headers: {} },
        opts,
      ),
    ).toBeUndefined();
  });
});

describe('S3 documentation examples', () => {
  it('verifies GET object with range', () => {
    const req: SignedRequest = {
      method: 'GET',
      rawPath: '/test.txt',
      rawQuery: '',
      headers: {
        host: 'examplebucket.s3.amazonaws.com',
        range: 'bytes=0-9',
        'x-amz-content-sha256': EMPTY,
        'x-amz-date': '20130524T000000Z',
        authorization:
          'AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41',
      },
    };
    const v = verifyRequest(req, opts);
    expect(v).toMatchObject({ accessKeyId: AKID, via: 'header', payload: { kind: 'signed', sha256: EMPTY } });
    expect(v?.chunkContext.scope).toBe('20130524/us-east-1/s3/aws4_request');
  });

  it('verifies PUT object (unencoded $ in the path, Date header signed) and reports the payload hash to check', () => {
    const req: SignedRequest = {
      method: 'PUT',
      rawPath: '/test$file.text',
      rawQuery: '',
      headers: {
        date: 'Fri, 24 May 2013 00:00:00 GMT',
        host: 'examplebucket.s3.amazonaws.com',
        'x-amz-content-sha256': '44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072',
        'x-amz-date': '20130524T000000Z',
        'x-amz-storage-class': 'REDUCED_REDUNDANCY',
        authorization:
          'AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, SignedHeaders=date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class, Signature=98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd',
      },
    };
    expect(verifyRequest(req, opts)?.payload).toEqual({
      kind: 'signed',
      sha256: '44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072',
    });
  });

  it('verifies the presigned URL example (signature aeeed9bb...)', () => {
    const req: SignedRequest = {
      method: 'GET',
      rawPath: '/test.txt',
      rawQuery:
        'X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404',
      headers: { host: 'examplebucket.s3.amazonaws.com' },
    };
    expect(verifyRequest(req, { ...opts, now: minutes(60 * 23) })).toMatchObject({
      via: 'presigned',
      payload: { kind: 'unsigned' },
    });
  });

  it('verifies the chunked upload seed signature and hands back the chunk context', () => {
    const req: SignedRequest = {
      method: 'PUT',
      rawPath: '/examplebucket/chunkObject.txt',
      rawQuery: '',
      headers: {
        host: 's3.amazonaws.com',
        'x-amz-date': '20130524T000000Z',
        'x-amz-storage-class': 'REDUCED_REDUNDANCY',
        'x-amz-content-sha256': 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD',
        'content-encoding': 'aws-chunked',
        'x-amz-decoded-content-length': '66560',
        'content-length': '66824',
        authorization:
          'AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,SignedHeaders=content-encoding;content-length;host;x-amz-content-sha256;x-amz-date;x-amz-decoded-content-length;x-amz-storage-class,Signature=4f232c4386841ef735655705268965c44a0e4690baa4adea153f7db9fa80a0a9',
      },
    };
    const v = verifyRequest(req, opts);
    expect(v?.payload).toEqual({ kind: 'chunked', signedChunks: true, hasTrailer: false, decodedLength: 66560 });
    expect(v?.chunkContext).toEqual({
      signingKey: deriveSigningKey(SECRET, { date: '20130524', region: REGION, service: 's3' }),
      seedSignature: '4f232c4386841ef735655705268965c44a0e4690baa4adea153f7db9fa80a0a9',
      amzDate: '20130524T000000Z',
      scope: '20130524/us-east-1/s3/aws4_request',
    });
  });
});

describe('round trips through signRequest', () => {
  it.each([
    ['plain key', 'http://127.0.0.1:9000/bucket/key.txt', undefined],
    ['dot segments', 'http://127.0.0.1:9000/bucket/x', '/bucket/a//b/../c/./d'],
    ['encoded dot segments', 'http://127.0.0.1:9000/bucket/x', '/bucket/a/%2E%2E/c'],
    ['spaces', 'http://127.0.0.1:9000/bucket/a%20b%20%20c', undefined],
    ['percent and plus', 'http://127.0.0.1:9000/bucket/100%25+a%2Bb', undefined],
    ['raw percent', 'http://127.0.0.1:9000/bucket/x', '/bucket/100%/x%zz'],
    ['unicode', 'http://127.0.0.1:9000/bucket/%C3%BC/%E6%97%A5%E6%9C%AC/%F0%9F%98%80', undefined],
    ['reserved characters', "http://127.0.0.1:9000/bucket/!$&'()*,;=:@", undefined],
    [
      'query with +, spaces and bare names',
      'http://127.0.0.1:9000/bucket?list-type=2&prefix=a+b%20c&delimiter=%2F&versions',
      undefined,
    ],
  ])('%s', (_name, url, rawPath) => {
    const req = signed('GET', url, rawPath === undefined ? {} : { rawPath });
    expect(verifyRequest(req, opts)).toMatchObject({ accessKeyId: AKID, via: 'header', payload: { kind: 'unsigned' } });
  });

  it('signs a path with .. and does not verify it once normalised', () => {
    const req = signed('GET', 'http://h/bucket/x', { rawPath: '/bucket/a/../c' });
    expectCode(() => verifyRequest({ ...req, rawPath: '/bucket/c' }, opts), 'SignatureDoesNotMatch');
  });

  it('accepts header values with extra spaces, repeated headers and the port in Host', () => {
    const req = signed('PUT', 'http://127.0.0.1:9000/b/k', {
      headers: { 'X-Amz-Meta-Note': '  a   b  ', 'Content-Type': 'text/plain' },
    });
    expect(req.headers['host']).toBe('127.0.0.1:9000');
    expect(verifyRequest({ ...req, headers: { ...req.headers, 'x-amz-meta-note': 'a b' } }, opts)).toBeDefined();
    const withList = signed('GET', 'http://h/b/k', { headers: { 'x-amz-meta-list': 'a,b' } });
    expect(
      verifyRequest({ ...withList, headers: { ...withList.headers, 'x-amz-meta-list': ['a', ' b'] } }, opts),
    ).toBeDefined();
  });

  it('accepts a signature over the Host without its port (git-annex), and nothing looser', () => {
    // Signed as if Host were "127.0.0.1", sent with "Host: 127.0.0.1:9000", as the Haskell aws library does.
    const portless = signed('PUT', 'http://127.0.0.1/b/k', { headers: { 'content-type': 'text/plain' } });
    const sent = { ...portless, headers: { ...portless.headers, host: '127.0.0.1:9000' } };
    expect(verifyRequest(sent, opts)).toMatchObject({ accessKeyId: AKID, scheme: 'sigv4' });
    const query = presigned('http://[::1]/b/k');
    expect(verifyRequest({ ...query, headers: { host: '[::1]:9000' } }, opts)).toMatchObject({ via: 'presigned' });
    // Another host name, another port signed, or a port added where none was sent: still a mismatch.
    expectCode(
      () => verifyRequest({ ...sent, headers: { ...sent.headers, host: '127.0.0.2:9000' } }, opts),
      'SignatureDoesNotMatch',
    );
    const port1 = signed('GET', 'http://127.0.0.1:9001/b/k');
    expectCode(
      () => verifyRequest({ ...port1, headers: { ...port1.headers, host: '127.0.0.1:9000' } }, opts),
      'SignatureDoesNotMatch',
    );
    const withPort = signed('GET', 'http://127.0.0.1:9000/b/k');
    expectCode(
      () => verifyRequest({ ...withPort, headers: { ...withPort.headers, host: '127.0.0.1' } }, opts),
      'SignatureDoesNotMatch',
    );
    // The rest is still bound: a changed path fails under either form.
    expectCode(() => verifyRequest({ ...sent, rawPath: '/b/other' }, opts), 'SignatureDoesNotMatch');
  });

  it.each([
    ['127.0.0.1:9000', '127.0.0.1'],
    ['[::1]:9000', '[::1]'],
    ['s3.example.com:443', 's3.example.com'],
    ['s3.example.com', undefined],
    ['[::1]', undefined],
    ['host:port', undefined],
  ])('hostWithoutPort(%s) is %s', (host, expected) => {
    expect(hostWithoutPort(host)).toBe(expected);
  });

  it('verifies a request dated only by the Date header', () => {
    const headers = { host: 'h', date: 'Fri, 24 May 2013 00:05:00 GMT', 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' };
    const names = ['date', 'host', 'x-amz-content-sha256'];
    const canonical = canonicalRequest({
      method: 'GET',
      rawPath: '/b/k',
      rawQuery: '',
      headers,
      signedHeaders: names,
      payloadHash: 'UNSIGNED-PAYLOAD',
      isPresigned: false,
    });
    const scope = credentialScope('20130524', REGION, 's3');
    const sig = signatureHex(
      deriveSigningKey(SECRET, { date: '20130524', region: REGION, service: 's3' }),
      stringToSign('20130524T000500Z', scope, canonical),
    );
    const authorization = `AWS4-HMAC-SHA256 Credential=${AKID}/${scope}, SignedHeaders=${names.join(';')}, Signature=${sig}`;
    const v = verifyRequest(
      { method: 'GET', rawPath: '/b/k', rawQuery: '', headers: { ...headers, authorization } },
      opts,
    );
    expect(v?.chunkContext.amzDate).toBe('20130524T000500Z');
  });

  it('tolerates Authorization components separated by spaces only, or by commas only', () => {
    const req = signed('GET', 'http://h/b/k');
    const auth = String(req.headers['authorization']);
    expect(verifyRequest(withAuth(req, auth.replace(/, /g, ' ')), opts)).toBeDefined();
    expect(verifyRequest(withAuth(req, auth.replace(/, /g, ',')), opts)).toBeDefined();
    expect(verifyRequest(withAuth(req, auth.replace(/, /g, ' ,  ')), opts)).toBeDefined();
  });

  it('classifies every x-amz-content-sha256 mode', () => {
    const hash = 'A'.repeat(64);
    expect(verifyRequest(signed('PUT', 'http://h/b/k', { payloadHash: hash }), opts)?.payload).toEqual({
      kind: 'signed',
      sha256: 'a'.repeat(64),
    });
    const modes: Array<[string, boolean, boolean]> = [
      ['STREAMING-AWS4-HMAC-SHA256-PAYLOAD', true, false],
      ['STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER', true, true],
      ['STREAMING-UNSIGNED-PAYLOAD-TRAILER', false, true],
    ];
    for (const [mode, signedChunks, hasTrailer] of modes) {
      const req = signed('PUT', 'http://h/b/k', {
        payloadHash: mode,
        headers: { 'x-amz-decoded-content-length': '11' },
      });
      expect(verifyRequest(req, opts)?.payload).toEqual({
        kind: 'chunked',
        signedChunks,
        hasTrailer,
        decodedLength: 11,
      });
    }
    const noLength = signed('PUT', 'http://h/b/k', { payloadHash: 'STREAMING-UNSIGNED-PAYLOAD-TRAILER' });
    expect(verifyRequest(noLength, opts)?.payload).toMatchObject({ decodedLength: undefined });
  });
});

describe('header authentication errors', () => {
  it('rejects SigV2 and other schemes with InvalidRequest', () => {
    const base: SignedRequest = { method: 'GET', rawPath: '/b/k', rawQuery: '', headers: { host: 'h' } };
    for (const auth of [
      'AWS AKIAIOSFODNN7EXAMPLE:frJIUN8DYpKDtOLCwo//yllqDzg=',
      'Bearer abc',
      'AWS4-ECDSA-P256-SHA256 Credential=x',
    ]) {
      const err = expectCode(() => verifyRequest(withAuth(base, auth), opts), 'InvalidRequest');
      expect(err.message).toContain('Please use AWS4-HMAC-SHA256');
    }
  });

  it('rejects SigV2 query authentication with InvalidRequest', () => {
    const req: SignedRequest = {
      method: 'GET',
      rawPath: '/b/k',
      rawQuery: 'AWSAccessKeyId=AKID&Expires=1141889120&Signature=vjbyPxybd',
      headers: {},
    };
    expectCode(() => verifyRequest(req, opts), 'InvalidRequest');
  });

  it('rejects header and query authentication together with InvalidArgument', () => {
    const p = presigned('http://h/b/k');
    expectCode(() => verifyRequest(withAuth(p, 'AWS4-HMAC-SHA256 Credential=a'), opts), 'InvalidArgument');
  });

  it('rejects malformed Authorization headers with AuthorizationHeaderMalformed', () => {
    const req = signed('GET', 'http://h/b/k');
    const auth = String(req.headers['authorization']);
    const variants = [
      '',
      'AWS4-HMAC-SHA256',
      auth.replace(/, Signature=[0-9a-f]+/, ''),
      auth.replace('Credential=AKIAIOSFODNN7EXAMPLE/', 'Credential='),
      auth.replace('/20130524/', '/2013052/'),
      auth.replace('SignedHeaders=', 'SignedHeaders=Host;'),
      auth.replace('SignedHeaders=', 'Foo=bar, SignedHeaders='),
      `${auth}, Signature=${'0'.repeat(64)}`,
    ];
    for (const variant of variants)
      expectCode(() => verifyRequest(withAuth(req, variant), opts), 'AuthorizationHeaderMalformed');
  });

  it('rejects a credential scope for another region, naming the expected one', () => {
    const err = expectCode(
      () => verifyRequest(signed('GET', 'http://h/b/k', { region: 'eu-west-1' }), opts),
      'AuthorizationHeaderMalformed',
    );
    expect(err.details['Region']).toBe('us-east-1');
    expect(err.message).toBe(
      "The authorization header is malformed; the region 'eu-west-1' is wrong; expecting 'us-east-1'",
    );
  });

  it('accepts any signing region when the region rule is not strict, and verifies with the region the client named', () => {
    const loose = { ...opts, region: { name: REGION, strict: false } };
    expect(verifyRequest(signed('GET', 'http://h/b/k', { region: 'eu-west-1' }), loose)?.accessKeyId).toBe(AKID);
    expect(verifyRequest(signed('GET', 'http://h/b/k', { region: 'annex.example.org' }), loose)?.accessKeyId).toBe(
      AKID,
    );
    // The claimed region is part of what was signed: naming another one than the signature used still fails.
    const req = signed('GET', 'http://h/b/k', { region: 'eu-west-1' });
    const forged = String(req.headers['authorization']).replace('/eu-west-1/', '/eu-central-1/');
    expectCode(() => verifyRequest(withAuth(req, forged), loose), 'SignatureDoesNotMatch');
  });

  it('rejects a wrong service, terminal, scope date, or host missing from SignedHeaders', () => {
    const req = signed('GET', 'http://h/b/k');
    const auth = String(req.headers['authorization']);
    for (const variant of [
      auth.replace('/s3/', '/ec2/'),
      auth.replace('aws4_request', 'aws5_request'),
      auth.replace('/20130524/', '/20130523/'),
      auth.replace('SignedHeaders=host;', 'SignedHeaders='),
    ]) {
      expectCode(() => verifyRequest(withAuth(req, variant), opts), 'AuthorizationHeaderMalformed');
    }
  });

  it('requires a valid x-amz-date or Date (AccessDenied)', () => {
    const req = signed('GET', 'http://h/b/k');
    const { 'x-amz-date': _dropped, ...noDate } = req.headers;
    expectCode(() => verifyRequest({ ...req, headers: noDate }, opts), 'AccessDenied');
    expectCode(
      () => verifyRequest({ ...req, headers: { ...req.headers, 'x-amz-date': '2013-05-24T00:00:00Z' } }, opts),
      'AccessDenied',
    );
    expectCode(
      () => verifyRequest({ ...req, headers: { ...req.headers, 'x-amz-date': '20130231T000000Z' } }, opts),
      'AccessDenied',
    );
  });

  it('requires x-amz-content-sha256 (InvalidRequest) and a valid value (InvalidArgument)', () => {
    const req = signed('GET', 'http://h/b/k');
    const { 'x-amz-content-sha256': _dropped, ...rest } = req.headers;
    const missing = expectCode(() => verifyRequest({ ...req, headers: rest }, opts), 'InvalidRequest');
    expect(missing.message).toBe('Missing required header for this request: x-amz-content-sha256');
    for (const bad of ['unsigned-payload', 'abc', 'STREAMING-AWS4-ECDSA-P256-SHA256-PAYLOAD', 'constructor']) {
      const err = expectCode(
        () => verifyRequest(signed('PUT', 'http://h/b/k', { payloadHash: bad }), opts),
        'InvalidArgument',
      );
      expect(err.details['ArgumentName']).toBe('x-amz-content-sha256');
    }
    const badLength = signed('PUT', 'http://h/b/k', {
      payloadHash: 'STREAMING-UNSIGNED-PAYLOAD-TRAILER',
      headers: { 'x-amz-decoded-content-length': '-1' },
    });
    expectCode(() => verifyRequest(badLength, opts), 'InvalidArgument');
  });

  it('rejects an unknown access key with InvalidAccessKeyId', () => {
    const err = expectCode(
      () => verifyRequest(signed('GET', 'http://h/b/k'), { ...opts, lookup: () => undefined }),
      'InvalidAccessKeyId',
    );
    expect(err.details['AWSAccessKeyId']).toBe(AKID);
  });

  it('rejects any change to what was signed with SignatureDoesNotMatch', () => {
    const req = signed('PUT', 'http://h/b/k?tagging', {
      headers: { 'x-amz-meta-a': '1' },
      payloadHash: 'f'.repeat(64),
    });
    expect(verifyRequest(req, opts)).toBeDefined();
    const sig = /Signature=([0-9a-f]{64})/.exec(String(req.headers['authorization']))?.[1] ?? '';
    const flipped = sig.slice(0, -1) + (sig.endsWith('0') ? '1' : '0');
    const tampered: SignedRequest[] = [
      { ...req, method: 'POST' },
      { ...req, rawPath: '/b/k2' },
      { ...req, rawQuery: 'acl' },
      { ...req, headers: { ...req.headers, 'x-amz-meta-a': '2' } },
      { ...req, headers: { ...req.headers, host: 'other' } },
      { ...req, headers: { ...req.headers, 'x-amz-content-sha256': 'e'.repeat(64) } },
      withAuth(req, String(req.headers['authorization']).replace(sig, flipped)),
      withAuth(req, String(req.headers['authorization']).replace(sig, sig.slice(0, 40))),
    ];
    for (const t of tampered) {
      const err = expectCode(() => verifyRequest(t, opts), 'SignatureDoesNotMatch');
      expect(err.details['CanonicalRequest']).toContain('\n');
    }
  });

  it('rejects x-amz-* headers that were not signed (AccessDenied, HeadersNotSigned)', () => {
    const req = signed('PUT', 'http://h/b/k');
    const err = expectCode(
      () =>
        verifyRequest(
          { ...req, headers: { ...req.headers, 'x-amz-copy-source': '/b/secret', 'x-amz-acl': 'public-read' } },
          opts,
        ),
      'AccessDenied',
    );
    expect(err.details['HeadersNotSigned']).toBe('x-amz-copy-source, x-amz-acl');
  });

  it('enforces the 15 minute clock skew both ways (RequestTimeTooSkewed)', () => {
    expect(verifyRequest(signed('GET', 'http://h/b/k', { now: minutes(15) }), opts)).toBeDefined();
    expect(verifyRequest(signed('GET', 'http://h/b/k', { now: minutes(-15) }), opts)).toBeDefined();
    const ahead = expectCode(
      () => verifyRequest(signed('GET', 'http://h/b/k', { now: minutes(16) }), opts),
      'RequestTimeTooSkewed',
    );
    expect(ahead.details['MaxAllowedSkewMilliseconds']).toBe('900000');
    expectCode(() => verifyRequest(signed('GET', 'http://h/b/k', { now: minutes(-16) }), opts), 'RequestTimeTooSkewed');
  });
});

describe('presigned URLs', () => {
  it("round-trips keys with special characters and keeps the URL's own query", () => {
    const req = presigned(
      'http://127.0.0.1:9000/bucket/a%20b/%C3%BC+%25?versionId=3&response-content-type=text%2Fplain',
    );
    expect(verifyRequest(req, opts)).toMatchObject({
      via: 'presigned',
      accessKeyId: AKID,
      payload: { kind: 'unsigned' },
    });
  });

  it('expires after X-Amz-Expires seconds (AccessDenied "Request has expired")', () => {
    const req = presigned('http://h/b/k', { expires: 60 });
    expect(verifyRequest(req, { ...opts, now: new Date(NOW.getTime() + 60_000) })).toBeDefined();
    const err = expectCode(
      () => verifyRequest(req, { ...opts, now: new Date(NOW.getTime() + 61_000) }),
      'AccessDenied',
    );
    expect(err.message).toBe('Request has expired');
  });

  it('is not valid more than 15 minutes before its X-Amz-Date (AccessDenied "Request is not valid yet")', () => {
    expect(verifyRequest(presigned('http://h/b/k', { now: minutes(14) }), opts)).toBeDefined();
    const err = expectCode(() => verifyRequest(presigned('http://h/b/k', { now: minutes(16) }), opts), 'AccessDenied');
    expect(err.message).toBe('Request is not valid yet');
  });

  it('rejects missing or malformed query parameters with AuthorizationQueryParametersError', () => {
    const req = presigned('http://h/b/k');
    const variants = [
      req.rawQuery.replace(/&X-Amz-SignedHeaders=host/, ''),
      req.rawQuery.replace(/X-Amz-Algorithm=[^&]+/, 'X-Amz-Algorithm=AWS4-HMAC-SHA1'),
      req.rawQuery.replace(/X-Amz-Expires=\d+/, 'X-Amz-Expires=0'),
      req.rawQuery.replace(/X-Amz-Expires=\d+/, 'X-Amz-Expires=604801'),
      req.rawQuery.replace(/X-Amz-Expires=\d+/, 'X-Amz-Expires=abc'),
      req.rawQuery.replace(/X-Amz-Date=[^&]+/, 'X-Amz-Date=2013-05-24'),
      req.rawQuery.replace(/X-Amz-Credential=[^&]+/, 'X-Amz-Credential=AKID'),
      req.rawQuery.replace(
        /X-Amz-Credential=[^&]+/,
        'X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fsqs%2Faws4_request',
      ),
      req.rawQuery.replace('X-Amz-SignedHeaders=host', 'X-Amz-SignedHeaders=x-amz-date'),
    ];
    for (const rawQuery of variants) {
      expectCode(() => verifyRequest({ ...req, rawQuery }, opts), 'AuthorizationQueryParametersError');
    }
  });

  it('accepts the maximum expiry of seven days', () => {
    const req = presigned('http://h/b/k', { expires: 604800 });
    expect(verifyRequest(req, { ...opts, now: new Date(NOW.getTime() + 604800_000) })).toBeDefined();
  });

  it('rejects a credential scope for another region, naming the expected one', () => {
    const err = expectCode(
      () => verifyRequest(presigned('http://h/b/k', { region: 'eu-west-1' }), opts),
      'AuthorizationQueryParametersError',
    );
    expect(err.details['Region']).toBe('us-east-1');
    expect(
      verifyRequest(presigned('http://h/b/k', { region: 'eu-west-1' }), {
        ...opts,
        region: { name: REGION, strict: false },
      }),
    ).toBeDefined();
  });

  it('rejects tampering and unknown keys', () => {
    const req = presigned('http://h/b/k');
    expectCode(() => verifyRequest({ ...req, rawPath: '/b/other' }, opts), 'SignatureDoesNotMatch');
    expectCode(() => verifyRequest({ ...req, rawQuery: `${req.rawQuery}&x-id=1` }, opts), 'SignatureDoesNotMatch');
    expectCode(() => verifyRequest({ ...req, method: 'PUT' }, opts), 'SignatureDoesNotMatch');
    expectCode(() => verifyRequest({ ...req, headers: { host: 'evil' } }, opts), 'SignatureDoesNotMatch');
    expectCode(() => verifyRequest(req, { ...opts, lookup: () => undefined }), 'InvalidAccessKeyId');
  });

  it('takes the payload hash from an X-Amz-Content-Sha256 query parameter (AWS SDK presigner)', () => {
    const hash = 'ab'.repeat(32);
    const scope = credentialScope('20130524', REGION, 's3');
    const rawQuery =
      `X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Content-Sha256=${hash}&X-Amz-Credential=${AKID}%2F${scope.replace(/\//g, '%2F')}` +
      '&X-Amz-Date=20130524T000000Z&X-Amz-Expires=60&X-Amz-SignedHeaders=host';
    const headers = { host: 'h' };
    const canonical = canonicalRequest({
      method: 'PUT',
      rawPath: '/b/k',
      rawQuery,
      headers,
      signedHeaders: ['host'],
      payloadHash: hash,
      isPresigned: true,
    });
    const sig = signatureHex(
      deriveSigningKey(SECRET, { date: '20130524', region: REGION, service: 's3' }),
      stringToSign('20130524T000000Z', scope, canonical),
    );
    const req: SignedRequest = {
      method: 'PUT',
      rawPath: '/b/k',
      rawQuery: `${rawQuery}&X-Amz-Signature=${sig}`,
      headers,
    };
    expect(verifyRequest(req, opts)?.payload).toEqual({ kind: 'signed', sha256: hash });
    const swapped = req.rawQuery.replace(hash, 'cd'.repeat(32));
    expectCode(() => verifyRequest({ ...req, rawQuery: swapped }, opts), 'SignatureDoesNotMatch');
  });

  it('uses a sent x-amz-content-sha256 as the payload hash, and refuses other unsigned x-amz-* headers', () => {
    const req = presigned('http://h/b/k');
    expectCode(
      () => verifyRequest({ ...req, headers: { ...req.headers, 'x-amz-content-sha256': 'a'.repeat(64) } }, opts),
      'SignatureDoesNotMatch',
    );
    expect(
      verifyRequest({ ...req, headers: { ...req.headers, 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' } }, opts),
    ).toBeDefined();
    expectCode(() => verifyRequest({ ...req, headers: { ...req.headers, 'x-amz-meta-x': '1' } }, opts), 'AccessDenied');
  });
});
