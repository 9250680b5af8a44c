// Properties of policy parsing and evaluation on arbitrary input: any text or JSON is either a policy or AppError
// MalformedPolicy (never a TypeError or a RangeError); evaluation is total; an explicit Deny always wins; adding an
// Allow never denies and adding a Deny never allows; wildcard matching agrees with a regular-expression reference
// and stays fast on hostile patterns.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { evaluate, type AuthzPrincipal, type AuthzRequest, type PolicySet } from './evaluate.js';
import { parseBucketPolicy, type PolicyDocument } from './policy-document.js';
import { compileScope, parseIdentityPolicy, SCOPE_ACTIONS, type ScopeAction } from './scoped-key.js';
import { globTokens, matchTokens, wildcardMatch } from './wildcard.js';
import { expectCodeIn, fragmentString, outcomeOf } from '../../../test/helpers/fuzz.js';

const RUNS = 400;
const BUCKET = 'bkt';
const ROOT_ALWAYS = ['s3:GetBucketPolicy', 's3:PutBucketPolicy', 's3:DeleteBucketPolicy'];

// ----- parsing -----

const junk = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.constantFrom(null, '', '*', 0, -1, 1e308, true, [], {}, { AWS: [] }),
);
const ACTIONS = [
  's3:GetObject',
  's3:PutObject',
  's3:ListBucket',
  's3:Get*',
  's3:*',
  '*',
  's3:getobject',
  's3:Nope',
  'iam:*',
  's3:?etObject',
  's3:GetBucketPolicy',
];
const RESOURCES = [
  'arn:aws:s3:::bkt',
  'arn:aws:s3:::bkt/*',
  'arn:aws:s3:::bkt/a/${aws:username}/*',
  'arn:aws:s3:::*',
  '*',
  'arn:aws:s3:::other/*',
  'arn:aws:s3:::',
  'bkt/*',
  'arn:aws:s3:::bkt/${*}x',
];
const PRINCIPALS = [
  '*',
  { AWS: '*' },
  { AWS: 'AKONE' },
  { AWS: ['AKONE', 'AKTWO'] },
  { AWS: '123456789012' },
  { AWS: 'arn:aws:iam::1:root' },
  { AWS: 'arn:aws:iam::1:user/AKONE' },
  { Service: 's3' },
  { AWS: 'AK*' },
];
const CONDITIONS = [
  { StringLike: { 's3:prefix': ['a/*', 'b/${aws:username}'] } },
  { IpAddress: { 'aws:SourceIp': '10.0.0.0/8' } },
  { NotIpAddress: { 'aws:SourceIp': ['::1/128', '1.2.3.4/32'] } },
  { Bool: { 'aws:SecureTransport': 'false' } },
  { NumericLessThan: { 's3:max-keys': 10 } },
  { DateGreaterThan: { 'aws:CurrentTime': '2020-01-01T00:00:00Z' } },
  { 'ForAllValues:StringEquals': { 's3:RequestObjectTagKeys': ['a', 'b'] } },
  { StringEqualsIfExists: { 's3:x-amz-acl': 'private' } },
  { Null: { 's3:prefix': 'true' } },
  { IpAddress: { 'aws:SourceIp': '999.1.1.1/99' } },
  { StringLike: { 'nope:key': 'x' } },
  { Bogus: { 's3:prefix': 'x' } },
];

const statementArb = fc.record(
  {
    Sid: fc.oneof(fc.constantFrom('s1', 's2', ''), junk),
    Effect: fc.oneof({ weight: 4, arbitrary: fc.constantFrom('Allow', 'Deny') }, { weight: 1, arbitrary: junk }),
    Principal: fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...PRINCIPALS) }, { weight: 1, arbitrary: junk }),
    NotPrincipal: fc.constantFrom(...PRINCIPALS),
    Action: fc.oneof(
      { weight: 4, arbitrary: fc.array(fc.constantFrom(...ACTIONS), { minLength: 1, maxLength: 3 }) },
      { weight: 1, arbitrary: junk },
    ),
    NotAction: fc.constantFrom(...ACTIONS),
    Resource: fc.oneof(
      { weight: 4, arbitrary: fc.array(fc.constantFrom(...RESOURCES), { minLength: 1, maxLength: 3 }) },
      { weight: 1, arbitrary: junk },
    ),
    NotResource: fc.constantFrom(...RESOURCES),
    Condition: fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...CONDITIONS) }, { weight: 1, arbitrary: junk }),
    Extra: junk,
  },
  { requiredKeys: [] },
);

const documentArb = fc.record(
  {
    Version: fc.oneof(fc.constantFrom('2012-10-17', '2008-10-17'), junk),
    Id: fc.oneof(fc.constant('id'), junk),
    Statement: fc.oneof({ weight: 4, arbitrary: fc.array(statementArb, { maxLength: 4 }) }, statementArb, junk),
  },
  { requiredKeys: [] },
);

const policyText = fc.oneof(
  documentArb.map((d) => JSON.stringify(d)),
  fc.jsonValue().map((v) => JSON.stringify(v)),
  fragmentString(
    [
      '{',
      '}',
      '[',
      ']',
      ',',
      ':',
      '"',
      '"Statement"',
      '"Effect"',
      '"Allow"',
      '"Version"',
      '"2012-10-17"',
      '\\u0000',
      '\\',
      'null',
      ' ',
    ],
    30,
  ),
  fc.string({ maxLength: 50, unit: 'binary' }),
);

describe('policy parsing on arbitrary input', () => {
  it('a bucket or identity policy is parsed or refused with MalformedPolicy, nothing else', () => {
    fc.assert(
      fc.property(policyText, (text) => {
        expectCodeIn(
          outcomeOf(() => parseBucketPolicy(text, BUCKET, { principalExists: (id) => id === 'AKONE' })),
          ['MalformedPolicy'],
        );
        expectCodeIn(
          outcomeOf(() => parseIdentityPolicy(text)),
          ['MalformedPolicy'],
        );
      }),
      { numRuns: 1500 },
    );
  });

  it('regression: an Effect that is an object JSON cannot print as a string is MalformedPolicy, not a TypeError (500)', () => {
    const text = JSON.stringify({
      Version: '2012-10-17',
      Statement: [{ Effect: { toString: 1 }, Principal: '*', Action: 's3:GetObject', Resource: 'arn:aws:s3:::bkt/*' }],
    });
    for (const parse of [() => parseBucketPolicy(text, BUCKET), () => parseIdentityPolicy(text)]) {
      const outcome = outcomeOf(parse);
      expect(outcome.ok ? 'accepted' : outcome.error.code).toBe('MalformedPolicy');
    }
  });

  it('regression: deeply nested JSON under the size limit is MalformedPolicy, not a stack overflow (500)', () => {
    for (const depth of [1_000, 50_000, 120_000]) {
      const text = `{"Version":"2012-10-17","Statement":${'['.repeat(depth)}${']'.repeat(depth)}}`;
      for (const parse of [() => parseBucketPolicy(text, BUCKET), () => parseIdentityPolicy(text)]) {
        const outcome = outcomeOf(parse);
        expect(outcome.ok ? 'accepted' : outcome.error.code).toBe('MalformedPolicy');
      }
    }
  });
});

// ----- evaluation -----

// Policies that parse, most of the time: valid pieces only, the bucket and its objects always both named.
const OBJECT_PATTERNS = ['*', 'a*', 'a/${aws:username}/*', '?', 'photos/*', '${*}*', 'x'];
const validStatement = (kind: 'bucket' | 'identity') =>
  fc.record(
    {
      Effect: fc.constantFrom('Allow', 'Deny'),
      ...(kind === 'bucket' ? { Principal: fc.constantFrom(...PRINCIPALS.slice(0, 7)) } : {}),
      Action: fc.array(fc.constantFrom(...ACTIONS.slice(0, 6), 's3:GetBucketPolicy', 's3:DeleteObject'), {
        minLength: 1,
        maxLength: 3,
      }),
      Resource: fc
        .subarray(OBJECT_PATTERNS, { minLength: 1, maxLength: 2 })
        .map((ps) => ['arn:aws:s3:::bkt', ...ps.map((p) => `arn:aws:s3:::bkt/${p}`)]),
      Condition: fc.option(fc.constantFrom(...CONDITIONS.slice(0, 9)), { nil: undefined, freq: 3 }),
    },
    { requiredKeys: ['Effect', 'Action', 'Resource'] },
  );
const parsedPolicy = (kind: 'bucket' | 'identity', parse: (json: string) => PolicyDocument) =>
  fc
    .record({
      Version: fc.constantFrom('2012-10-17', '2008-10-17'),
      Statement: fc.array(validStatement(kind), { minLength: 1, maxLength: 4 }),
    })
    .map((d) => outcomeOf(() => parse(JSON.stringify(d))))
    .filter((o) => o.ok)
    .map((o) => (o.ok ? o.value : (undefined as never)));
const bucketPolicyArb = parsedPolicy('bucket', (json) => parseBucketPolicy(json, BUCKET));
const identityPolicyArb = fc.oneof(
  parsedPolicy('identity', parseIdentityPolicy),
  fc
    .record({
      prefix: fc.string({ maxLength: 6 }),
      actions: fc.subarray([...SCOPE_ACTIONS] as ScopeAction[], { minLength: 1 }),
    })
    .map((scope) => compileScope({ bucket: BUCKET, ...scope })),
);

const principalArb: fc.Arbitrary<AuthzPrincipal> = fc.oneof(
  fc.constant({ type: 'anonymous' as const }),
  fc.constantFrom('AKONE', 'AKTWO', 'AKROOT').map((accessKeyId) => ({ type: 'key' as const, accessKeyId })),
);
const contextArb = fc.dictionary(
  fc.constantFrom(
    'aws:SourceIp',
    'aws:SecureTransport',
    's3:prefix',
    'S3:Prefix',
    's3:max-keys',
    'aws:CurrentTime',
    's3:RequestObjectTagKeys',
    'aws:username',
    's3:x-amz-acl',
  ),
  fc.oneof(
    fc.string({ maxLength: 12 }),
    fc.constantFrom('10.1.2.3', '::1', 'not-an-ip', 'true', '2021-01-01T00:00:00Z', '5'),
    fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }),
  ),
  { maxKeys: 4 },
);
const requestArb: fc.Arbitrary<AuthzRequest> = fc.record(
  {
    action: fc.oneof(
      fc.constantFrom(
        's3:GetObject',
        's3:PutObject',
        's3:ListBucket',
        's3:DeleteObject',
        's3:GetBucketPolicy',
        's3:PutBucketTagging',
      ),
      fc.string({ maxLength: 20 }),
    ),
    bucket: fc.constant(BUCKET),
    key: fc.option(fc.string({ maxLength: 20, unit: 'binary' }), { nil: undefined }),
    principal: principalArb,
    context: contextArb,
  },
  { requiredKeys: ['action', 'bucket', 'principal', 'context'] },
);
const policySetArb: fc.Arbitrary<PolicySet> = fc.record({
  bucketPolicy: fc.option(bucketPolicyArb, { nil: undefined }),
  identityPolicy: fc.option(identityPolicyArb, { nil: undefined }),
  isRoot: fc.boolean(),
});

const denyAll = (kind: 'bucket' | 'identity'): PolicyDocument['statements'][number] =>
  kind === 'bucket'
    ? {
        effect: 'Deny',
        principal: { items: [{ kind: 'any' }], negated: false },
        action: { items: ['*'], negated: false },
        resource: { items: ['*'], negated: false },
        conditions: [],
      }
    : {
        effect: 'Deny',
        action: { items: ['*'], negated: false },
        resource: { items: ['*'], negated: false },
        conditions: [],
      };
const allowAll = (kind: 'bucket' | 'identity'): PolicyDocument['statements'][number] => ({
  ...denyAll(kind),
  effect: 'Allow',
});
const withStatement = (
  doc: PolicyDocument | undefined,
  kind: 'bucket' | 'identity',
  s: PolicyDocument['statements'][number],
): PolicyDocument => ({ kind, version: doc?.version ?? '2012-10-17', statements: [...(doc?.statements ?? []), s] });

describe('policy evaluation', () => {
  it('is total: any parsed policies and any request give a consistent decision', () => {
    fc.assert(
      fc.property(requestArb, policySetArb, (request, policies) => {
        const decision = evaluate(request, policies);
        expect(decision.allowed).toBe(decision.reason === 'allow');
      }),
      { numRuns: RUNS },
    );
  });

  it('an explicit Deny of everything wins over every Allow (the root keeps only the bucket-policy actions)', () => {
    fc.assert(
      fc.property(requestArb, policySetArb, (request, policies) => {
        const isRootAlways =
          policies.isRoot && request.principal.type === 'key' && ROOT_ALWAYS.includes(request.action);
        const denied = evaluate(request, {
          ...policies,
          bucketPolicy: withStatement(policies.bucketPolicy, 'bucket', denyAll('bucket')),
        });
        expect(denied.allowed).toBe(isRootAlways);
        if (!isRootAlways) expect(denied.reason).toBe('explicit-deny');
        // A Deny in a scoped key's own policy binds that key, never the root or others.
        const scoped = request.principal.type === 'key' && !policies.isRoot;
        const selfDenied = evaluate(request, {
          ...policies,
          identityPolicy: withStatement(policies.identityPolicy, 'identity', denyAll('identity')),
        });
        if (scoped) expect(selfDenied.reason).toBe('explicit-deny');
      }),
      { numRuns: RUNS },
    );
  });

  it('adding an Allow never denies, adding a Deny never allows', () => {
    fc.assert(
      fc.property(
        requestArb,
        policySetArb,
        fc.constantFrom<'bucket' | 'identity'>('bucket', 'identity'),
        (request, policies, where) => {
          const before = evaluate(request, policies).allowed;
          const add = (s: PolicyDocument['statements'][number]): PolicySet =>
            where === 'bucket'
              ? { ...policies, bucketPolicy: withStatement(policies.bucketPolicy, 'bucket', s) }
              : { ...policies, identityPolicy: withStatement(policies.identityPolicy, 'identity', s) };
          if (before) expect(evaluate(request, add(allowAll(where))).allowed).toBe(true);
          if (!before) expect(evaluate(request, add(denyAll(where))).allowed).toBe(false);
        },
      ),
      { numRuns: RUNS },
    );
  });
});

// ----- wildcards -----

const toRegExp = (glob: string): RegExp =>
  new RegExp(
    `^${Array.from(glob)
      .map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[.+^${}()|[\]\\]/g, '\\$&')))
      .join('')}$`,
    'su',
  );

describe('wildcard matching', () => {
  it('agrees with a regular-expression reference, code point by code point', () => {
    const alphabet = fc.constantFrom('a', 'b', '/', '.', '😀', 'é');
    fc.assert(
      fc.property(
        fc.string({ maxLength: 10, unit: fc.oneof(alphabet, fc.constantFrom('*', '?')) }),
        fc.string({ maxLength: 12, unit: alphabet }),
        (pattern, text) => {
          expect(wildcardMatch(pattern, text)).toBe(toRegExp(pattern).test(text));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('a pattern without wildcards matches only itself; `*` matches anything', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 20, unit: 'binary' }).filter((s) => !/[*?]/.test(s)),
        fc.string({ maxLength: 20, unit: 'binary' }),
        (literal, other) => {
          expect(wildcardMatch(literal, literal)).toBe(true);
          expect(wildcardMatch(literal, other)).toBe(literal === other);
          expect(wildcardMatch('*', other)).toBe(true);
          expect(matchTokens(globTokens(`${literal}*`), `${literal}${other}`)).toBe(true);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('stays fast on patterns built to backtrack (no catastrophic regex)', () => {
    const pattern = `${'*a'.repeat(200)}b`;
    const text = 'a'.repeat(1024);
    const started = performance.now();
    expect(wildcardMatch(pattern, text)).toBe(false);
    // O(pattern x text) at worst: well under a second even on a loaded machine.
    expect(performance.now() - started).toBeLessThan(2000);
  });
});
