// Properties of SigV4 verification on arbitrary input: parsing the Authorization header and the presigned query
// never fails with anything but AppError, and whatever the client signs (keys with any bytes, any headers, any query)
// verifies. That no single-character change to a signed request verifies is verify-mutations.fuzz.test.ts.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SignedRequest } from './types.js';
import { verifyRequest } from './verify.js';
import { expectCodeIn, fraction, fragmentString, outcomeOf } from '../../test/helpers/fuzz.js';
import { headerSigned, optsFor, presigned, signableArb, VERIFY_CODES } from '../../test/helpers/sigv4-signable.js';

const RUNS = 400;
const AKID = 'AKIAFUZZEXAMPLE';
const SECRET = 'fuzz/secret+KEY';
const REGION = 'us-east-1';
const NOW = new Date('2024-02-29T12:34:56Z');
const fixedOpts = {
  lookup: (id: string) => (id === AKID ? SECRET : undefined),
  region: { name: REGION, strict: true },
  now: NOW,
  sigv2: true,
};

// ----- arbitrary, mostly malformed, requests -----

const AUTH_FRAGMENTS = [
  'AWS4-HMAC-SHA256',
  'AWS4-HMAC-SHA256 ',
  ' ',
  ',',
  ', ',
  '=',
  '/',
  ';',
  'Credential=',
  'SignedHeaders=',
  'Signature=',
  `${AKID}/20240229/us-east-1/s3/aws4_request`,
  '20240229',
  'us-east-1',
  's3',
  'aws4_request',
  'host',
  'host;x-amz-date',
  'x-amz-content-sha256',
  '0'.repeat(64),
  'AWS ',
  'Bearer ',
  '\t',
  'é',
  '\u0000',
];
const QUERY_FRAGMENTS = [
  '&',
  '=',
  '%',
  '%2F',
  '%zz',
  '+',
  'X-Amz-Algorithm=',
  'AWS4-HMAC-SHA256',
  'X-Amz-Credential=',
  `${AKID}%2F20240229%2Fus-east-1%2Fs3%2Faws4_request`,
  'X-Amz-Date=',
  '20240229T123456Z',
  '99999999T999999Z',
  'X-Amz-Expires=',
  '604801',
  '0',
  '-1',
  '1e3',
  'X-Amz-SignedHeaders=',
  'host',
  'X-Amz-Signature=',
  'a'.repeat(64),
  'X-Amz-Content-Sha256=',
  'Signature=',
  'Expires=',
  'AWSAccessKeyId=',
  'X-Amz-Security-Token=',
];
const headerValue = fc.oneof(
  fc.constantFrom(
    '20240229T123456Z',
    'UNSIGNED-PAYLOAD',
    'STREAMING-AWS4-HMAC-SHA256-PAYLOAD',
    'e'.repeat(64),
    '',
    ' ',
    'Thu, 29 Feb 2024 12:34:56 GMT',
  ),
  fc.string({ maxLength: 30 }),
  fc.string({ maxLength: 10, unit: 'binary' }),
);
const headersArb = fc.record(
  {
    authorization: fragmentString(AUTH_FRAGMENTS),
    host: headerValue,
    'x-amz-date': headerValue,
    'x-amz-content-sha256': headerValue,
    'x-amz-decoded-content-length': headerValue,
    date: headerValue,
    'x-amz-meta-a': fc.oneof(headerValue, fc.array(headerValue, { maxLength: 3 })),
  },
  { requiredKeys: [] },
);
const piece = (valid: string, fragments: string[]): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 2, arbitrary: fc.constant(valid) },
    { weight: 1, arbitrary: fragmentString([valid, ...fragments], 4) },
  );
// Well-formed in outline, each component valid or broken: these get past the parser to scope, time, key and
// signature checks.
const structuredAuth = fc
  .tuple(
    piece(`${AKID}/20240229/us-east-1/s3/aws4_request`, [
      '/',
      'AKIA',
      '20240230',
      'eu-west-1',
      's4',
      'aws4_request',
      '',
    ]),
    piece('host;x-amz-content-sha256;x-amz-date', [';', 'host', 'Host', 'x-amz-date', '', ' ']),
    piece('0'.repeat(64), ['0', 'f', 'F', 'g', '']),
    fc.constantFrom(', ', ',', ' ', ',,'),
  )
  .map(
    ([cred, signed, sig, sep]) =>
      `AWS4-HMAC-SHA256 Credential=${cred}${sep}SignedHeaders=${signed}${sep}Signature=${sig}`,
  );
const requestArb: fc.Arbitrary<SignedRequest> = fc.record({
  method: fc.constantFrom('GET', 'PUT', 'POST', 'DELETE', 'HEAD', 'get', ''),
  rawPath: fragmentString(['/', 'b', 'k', '%', '%2F', '..', '%zz', 'é']),
  rawQuery: fragmentString(QUERY_FRAGMENTS),
  headers: headersArb,
});
const structuredArb: fc.Arbitrary<SignedRequest> = fc.record({
  method: fc.constantFrom('GET', 'PUT'),
  rawPath: fc.constantFrom('/b/k', '/', '/b/%2F'),
  rawQuery: fc.constantFrom('', 'a=1'),
  headers: fc.record({
    authorization: structuredAuth,
    host: fc.constant('store.test'),
    'x-amz-date': piece('20240229T123456Z', ['20240229T123456', '20241329T123456Z', '2024']),
    'x-amz-content-sha256': piece('UNSIGNED-PAYLOAD', ['STREAMING-AWS4-HMAC-SHA256-PAYLOAD', 'e'.repeat(64), '']),
  }),
});

describe('verifyRequest on arbitrary requests', () => {
  it('answers undefined, a verified request or an AppError of its documented codes: never anything else', () => {
    fc.assert(
      fc.property(
        fc.oneof(requestArb, structuredArb),
        fc.date({ min: new Date('1970-01-01'), max: new Date('2200-01-01'), noInvalidDate: true }),
        (req, now) => {
          expectCodeIn(
            outcomeOf(() => verifyRequest(req, { ...fixedOpts, now })),
            VERIFY_CODES,
          );
          expectCodeIn(
            outcomeOf(() => verifyRequest(req, fixedOpts)),
            VERIFY_CODES,
          );
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe('sign then verify', () => {
  it('a header-signed request verifies, whatever its key, query, headers and secret', () => {
    fc.assert(
      fc.property(signableArb, fc.integer({ min: -14 * 60, max: 14 * 60 }), (s, skewSeconds) => {
        const verified = verifyRequest(headerSigned(s), optsFor(s, new Date(s.now.getTime() + skewSeconds * 1000)));
        expect(verified?.accessKeyId).toBe(s.accessKeyId);
        expect(verified?.via).toBe('header');
        expect(verified?.payload).toEqual(
          s.payloadHash === 'UNSIGNED-PAYLOAD' ? { kind: 'unsigned' } : { kind: 'signed', sha256: s.payloadHash },
        );
      }),
      { numRuns: RUNS },
    );
  });

  it('a presigned URL verifies until it expires, and not after', () => {
    fc.assert(
      fc.property(signableArb, fc.integer({ min: 1, max: 604800 }), fraction, (s, expires, at) => {
        const req = presigned(s, expires);
        const within = new Date(s.now.getTime() + Math.floor(at * expires) * 1000);
        expect(verifyRequest(req, optsFor(s, within))?.accessKeyId).toBe(s.accessKeyId);
        const after = outcomeOf(() => verifyRequest(req, optsFor(s, new Date(s.now.getTime() + (expires + 1) * 1000))));
        expect(after.ok ? 'verified' : after.error.code).toBe('AccessDenied');
      }),
      { numRuns: RUNS },
    );
  });
});
