// Fixtures for the SigV4 fuzz tests (src/sigv4/verify*.fuzz.test.ts): a request as a client would sign it, with
// arbitrary key bytes, query, headers, secret and time; its header-signed and presigned forms; and the verification
// options that know its key; and every code verification may answer with.

import fc from 'fast-check';
import { uriEncode } from '../../src/sigv4/canonical.js';
import { presignUrl, signRequest } from '../../src/sigv4/sign.js';
import type { SignedRequest } from '../../src/sigv4/types.js';
import type { ErrorCode } from '../../src/core/errors.js';

// Every code verification documents (verify.ts); never a 500.
export const VERIFY_CODES: readonly ErrorCode[] = [
  'InvalidRequest',
  'InvalidArgument',
  'AuthorizationHeaderMalformed',
  'AuthorizationQueryParametersError',
  'AccessDenied',
  'RequestTimeTooSkewed',
  'InvalidAccessKeyId',
  'SignatureDoesNotMatch',
];

/** A request as a client would sign it: any key bytes, query parameters, headers, secret, time. */
export interface Signable {
  method: string;
  segments: string[];
  params: Array<[string, string]>;
  headers: Record<string, string>;
  accessKeyId: string;
  secret: string;
  region: string;
  now: Date;
  payloadHash: string;
}

// Header values as Node hands them over: latin1 characters, no CR/LF (other control characters are refused on the
// wire).
const latin1Char = fc
  .oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.integer({ min: 0xa0, max: 0xff }), fc.constant(0x09))
  .map((c) => String.fromCharCode(c));
export const signableArb: fc.Arbitrary<Signable> = fc.record({
  method: fc.constantFrom('GET', 'PUT', 'POST', 'DELETE', 'HEAD', 'PATCH'),
  segments: fc.array(fc.string({ maxLength: 10, unit: 'binary' }), { minLength: 1, maxLength: 4 }),
  params: fc
    .array(
      fc.tuple(fc.string({ minLength: 1, maxLength: 8, unit: 'binary' }), fc.string({ maxLength: 8, unit: 'binary' })),
      { maxLength: 5 },
    )
    .map((ps) => ps.filter(([name]) => !/^(x-amz-|signature$|awsaccesskeyid$|expires$)/i.test(name))),
  headers: fc
    .dictionary(fc.stringMatching(/^x-(amz-meta-)?[a-z0-9-]{1,10}$/), fc.string({ maxLength: 20, unit: latin1Char }), {
      maxKeys: 5,
    })
    .map((h) =>
      Object.fromEntries(
        Object.entries(h).filter(
          ([name]) => !['x-amz-date', 'x-amz-content-sha256', 'x-amz-decoded-content-length'].includes(name),
        ),
      ),
    ),
  accessKeyId: fc.stringMatching(/^[A-Za-z0-9_+.=-]{1,24}$/),
  secret: fc.string({ minLength: 1, maxLength: 40, unit: 'binary' }),
  region: fc.stringMatching(/^[a-z0-9-]{1,15}$/),
  // x-amz-date has whole seconds: so must the clock the request is checked against.
  now: fc
    .integer({ min: Date.parse('2000-01-01'), max: Date.parse('2099-12-31') })
    .map((ms) => new Date(ms - (ms % 1000))),
  payloadHash: fc.oneof(fc.constant('UNSIGNED-PAYLOAD'), fc.stringMatching(/^[0-9a-f]{64}$/)),
});

function pathOf(s: Signable): string {
  return `/${s.segments.map(uriEncode).join('/')}`;
}

function queryOf(s: Signable): string {
  return s.params.map(([n, v]) => `${uriEncode(n)}=${uriEncode(v)}`).join('&');
}

export function headerSigned(s: Signable): SignedRequest {
  const rawPath = pathOf(s);
  const query = queryOf(s);
  const url = new URL(`http://store.test:9000${rawPath}${query === '' ? '' : `?${query}`}`);
  const headers = signRequest({
    method: s.method,
    url,
    rawPath,
    headers: s.headers,
    accessKeyId: s.accessKeyId,
    secretAccessKey: s.secret,
    region: s.region,
    now: s.now,
    payloadHash: s.payloadHash,
  });
  return { method: s.method, rawPath, rawQuery: url.search.slice(1), headers };
}

export function presigned(s: Signable, expires: number): SignedRequest {
  const rawPath = pathOf(s);
  const query = queryOf(s);
  const url = presignUrl({
    method: s.method,
    url: new URL(`http://store.test:9000${rawPath}${query === '' ? '' : `?${query}`}`),
    rawPath,
    accessKeyId: s.accessKeyId,
    secretAccessKey: s.secret,
    region: s.region,
    expiresSeconds: expires,
    now: s.now,
  });
  return { method: s.method, rawPath, rawQuery: url.search.slice(1), headers: { host: url.host } };
}

export const optsFor = (s: Signable, now = s.now) => ({
  lookup: (id: string) => (id === s.accessKeyId ? s.secret : undefined),
  region: { name: s.region, strict: true },
  now,
  sigv2: true,
});
