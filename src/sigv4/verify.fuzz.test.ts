/* eslint-disable max-lines -- TEMPORARY: split pending */
// Properties of SigV4 verification on arbitrary input: parsing the Authorization header and the presigned query
// never fails with anything but AppError; whatever the client signs (keys with any bytes, any headers, any query)
// verifies; and no single-character change to a signed request verifies.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SignedRequest } from './types.js';
import { verifyRequest } from './verify.js';
import { presignUrl, signRequest } from './sign.js';
import { uriEncode } from './canonical.js';
import { expectCodeIn, fraction, fragmentString, outcomeOf } from '../../test/helpers/fuzz.js';
import type { ErrorCode } from '../core/errors.js';

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

// Every code verification documents (verify.ts); never a 500.
const VERIFY_CODES: readonly ErrorCode[] = [
  'InvalidRequest',
  'InvalidArgument',
  'AuthorizationHeaderMalformed',
  'AuthorizationQueryParametersError',
  'AccessDenied',
  'RequestTimeTooSkewed',
  'InvalidAccessKeyId',
  'SignatureDoesNotMatch',
];

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

// ----- round trips: what a client signs verifies -----

/** A request as a client would sign it: any key bytes, query parameters, headers, secret, time. */
interface Signable {
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
const signableArb: fc.Arbitrary<Signable> = fc.record({
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

function headerSigned(s: Signable): SignedRequest {
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

function presigned(s: Signable, expires: number): SignedRequest {
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

const optsFor = (s: Signable, now = s.now) => ({
  lookup: (id: string) => (id === s.accessKeyId ? s.secret : undefined),
  region: { name: s.region, strict: true },
  now,
  sigv2: true,
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

// ----- single-character mutations never verify -----

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/**
 * Replaces the character at `pick` (a fraction of the text) with another alphanumeric one that is not the same
 * letter in another case: case is meaningful nearly everywhere in a signed request, but not in hex escapes or
 * signature digits, and a neutral change must not count as a failure to detect.
 */
function substitute(
  text: string,
  { pick, choice }: { pick: number; choice: number },
  eligible: (i: number) => boolean = () => true,
): string | undefined {
  const positions = [...text].map((_, i) => i).filter(eligible);
  if (positions.length === 0) return undefined;
  const i = positions[Math.floor(pick * positions.length) % positions.length] as number;
  const old = text[i] as string;
  const candidates = [...ALNUM].filter((c) => c.toLowerCase() !== old.toLowerCase());
  return text.slice(0, i) + (candidates[choice % candidates.length] as string) + text.slice(i + 1);
}

type Target =
  | 'method'
  | 'path'
  | 'query'
  | 'header'
  | 'drop-header'
  | 'add-amz-header'
  | 'credential'
  | 'signed-headers'
  | 'signature';

function mutateHeaderSigned(
  req: SignedRequest,
  target: Target,
  { pick, choice }: { pick: number; choice: number },
): SignedRequest | undefined {
  const headers = { ...req.headers } as Record<string, string>;
  const auth = headers['authorization'] as string;
  const signedNames = /SignedHeaders=([^,\s]+)/.exec(auth)?.[1]?.split(';') ?? [];
  const authPart = (
    name: string,
    eligible: (i: number, value: string) => boolean = () => true,
  ): SignedRequest | undefined => {
    const m = new RegExp(`${name}=([^,\\s]+)`).exec(auth);
    if (!m?.[1]) return undefined;
    const value = m[1];
    const changed = substitute(value, { pick, choice }, (i) => eligible(i, value));
    return changed === undefined
      ? undefined
      : { ...req, headers: { ...headers, authorization: auth.replace(`${name}=${value}`, `${name}=${changed}`) } };
  };
  switch (target) {
    case 'method': {
      const method = substitute(req.method, { pick, choice });
      return method === undefined ? undefined : { ...req, method };
    }
    case 'path': {
      const rawPath = substitute(req.rawPath, { pick, choice });
      return rawPath === undefined ? undefined : { ...req, rawPath };
    }
    case 'query': {
      const rawQuery = substitute(req.rawQuery, { pick, choice });
      return rawQuery === undefined ? undefined : { ...req, rawQuery };
    }
    case 'header': {
      const name = signedNames[Math.floor(pick * signedNames.length) % signedNames.length] as string;
      // Spaces and tabs are folded by canonicalisation: only other characters carry meaning.
      const value = substitute(
        headers[name] ?? '',
        { pick: (pick * 7) % 1, choice: choice },
        (i) => !/[ \t]/.test((headers[name] ?? '')[i] ?? ' '),
      );
      return value === undefined ? undefined : { ...req, headers: { ...headers, [name]: value } };
    }
    case 'drop-header': {
      const name = signedNames[Math.floor(pick * signedNames.length) % signedNames.length] as string;
      if ((headers[name] ?? '').trim() === '') return undefined; // a blank value canonicalises like no header
      delete headers[name];
      return { ...req, headers };
    }
    case 'add-amz-header':
      return { ...req, headers: { ...headers, 'x-amz-copy-source': '/other/key' } };
    case 'credential':
      return authPart('Credential');
    case 'signed-headers':
      return authPart('SignedHeaders');
    case 'signature':
      return authPart('Signature');
  }
}

describe('a changed request never verifies', () => {
  const targets: Target[] = [
    'method',
    'path',
    'query',
    'header',
    'drop-header',
    'add-amz-header',
    'credential',
    'signed-headers',
    'signature',
  ];

  it('header signatures: any single-character change to what was signed is refused', () => {
    fc.assert(
      // eslint-disable-next-line max-params -- fast-check passes one argument per arbitrary
      fc.property(signableArb, fc.constantFrom(...targets), fraction, fc.nat(), (s, target, pick, choice) => {
        const mutated = mutateHeaderSigned(headerSigned(s), target, { pick: pick, choice: choice });
        if (mutated === undefined) return;
        const outcome = outcomeOf(() => verifyRequest(mutated, optsFor(s)));
        expect(outcome.ok ? `verified (${outcome.value?.accessKeyId})` : 'refused').toBe('refused');
        expectCodeIn(outcome, VERIFY_CODES);
      }),
      { numRuns: 1000 },
    );
  });

  it('presigned URLs: any single-character change to the method, path, host or query is refused', () => {
    fc.assert(
      fc.property(
        signableArb,
        fc.constantFrom('method', 'path', 'query', 'host'),
        fraction,
        fc.nat(),
        // eslint-disable-next-line max-params -- fast-check passes one argument per arbitrary
        (s, target, pick, choice) => {
          const req = presigned(s, 3600);
          let mutated: SignedRequest | undefined;
          if (target === 'host') {
            const host = substitute(
              req.headers['host'] as string,
              { pick, choice },
              (i) => (req.headers['host'] as string)[i] !== ':',
            );
            mutated = host === undefined ? undefined : { ...req, headers: { host } };
          } else {
            mutated = mutateHeaderSigned(req, target as Target, { pick: pick, choice: choice });
          }
          if (mutated === undefined) return;
          const outcome = outcomeOf(() => verifyRequest(mutated, optsFor(s)));
          expect(outcome.ok ? `verified (${outcome.value?.accessKeyId})` : 'refused').toBe('refused');
          expectCodeIn(outcome, VERIFY_CODES);
        },
      ),
      { numRuns: 1000 },
    );
  });
});
