/* eslint-disable max-lines -- TEMPORARY: split pending */
import { describe, expect, it } from 'vitest';
import { evaluate, type AuthzPrincipal, type AuthzRequest, type Decision, type PolicySet } from './evaluate.js';
import { parseBucketPolicy } from './policy-document.js';
import { parseIdentityPolicy } from './scoped-key.js';
import type { ContextInput } from './context.js';

type Json = Record<string, unknown>;

const ANON: AuthzPrincipal = { type: 'anonymous' };
const ROOT: AuthzPrincipal = { type: 'key', accessKeyId: 'AKROOT' };
const K1: AuthzPrincipal = { type: 'key', accessKeyId: 'AKONE' };
const K2: AuthzPrincipal = { type: 'key', accessKeyId: 'AKTWO' };

const bucketPolicy = (...statements: Json[]) =>
  parseBucketPolicy(JSON.stringify({ Version: '2012-10-17', Statement: statements }), 'b');
const identityPolicy = (...statements: Json[]) =>
  parseIdentityPolicy(JSON.stringify({ Version: '2012-10-17', Statement: statements }));

/** `target` is the key, or the key with a request context and a bucket other than `b`. */
function req(
  principal: AuthzPrincipal,
  action: string,
  target: string | { key?: string | undefined; context?: ContextInput; bucket?: string } = {},
): AuthzRequest {
  const { key, context = {}, bucket = 'b' } = typeof target === 'string' ? { key: target } : target;
  return key === undefined ? { action, bucket, principal, context } : { action, bucket, key, principal, context };
}

function decide(r: AuthzRequest, set: Partial<PolicySet> = {}): Decision {
  return evaluate(r, { isRoot: r.principal === ROOT, ...set });
}

const PUBLIC_READ: Json = {
  Sid: 'PublicRead',
  Effect: 'Allow',
  Principal: '*',
  Action: 's3:GetObject',
  Resource: 'arn:aws:s3:::b/*',
};

describe('anonymous requests', () => {
  it('are implicitly denied without a bucket policy', () => {
    expect(decide(req(ANON, 's3:GetObject', 'x'))).toEqual({ allowed: false, reason: 'implicit-deny' });
  });

  it('are allowed by an Allow to Principal "*", and only for what it names', () => {
    const bp = bucketPolicy(PUBLIC_READ);
    expect(decide(req(ANON, 's3:GetObject', 'x'), { bucketPolicy: bp })).toEqual({
      allowed: true,
      reason: 'allow',
      statement: { source: 'bucket-policy', sid: 'PublicRead', index: 0 },
    });
    expect(decide(req(ANON, 's3:PutObject', 'x'), { bucketPolicy: bp }).reason).toBe('implicit-deny');
    expect(decide(req(ANON, 's3:ListBucket'), { bucketPolicy: bp }).reason).toBe('implicit-deny');
    expect(
      decide(req(ANON, 's3:GetObject', { key: 'x', context: {}, bucket: 'other' }), { bucketPolicy: bp }).reason,
    ).toBe('implicit-deny');
  });

  it('are allowed by {"AWS": "*"} too', () => {
    const bp = bucketPolicy({ ...PUBLIC_READ, Principal: { AWS: '*' } });
    expect(decide(req(ANON, 's3:GetObject', 'x'), { bucketPolicy: bp }).allowed).toBe(true);
  });

  it('are not allowed by a statement naming a key or the account', () => {
    const bp = bucketPolicy({
      ...PUBLIC_READ,
      Principal: { AWS: ['AKONE', '123456789012', 'arn:aws:iam::123456789012:root'] },
    });
    expect(decide(req(ANON, 's3:GetObject', 'x'), { bucketPolicy: bp }).reason).toBe('implicit-deny');
  });

  it('ignore an identity policy passed by mistake', () => {
    const ip = identityPolicy({ Effect: 'Allow', Action: 's3:*', Resource: '*' });
    expect(decide(req(ANON, 's3:GetObject', 'x'), { identityPolicy: ip }).reason).toBe('implicit-deny');
  });
});

describe('the root key', () => {
  it('is allowed by default, with no statement', () => {
    expect(decide(req(ROOT, 's3:DeleteBucket'))).toEqual({ allowed: true, reason: 'allow' });
  });

  it('is denied by an explicit bucket-policy Deny to "*"', () => {
    const bp = bucketPolicy({
      Sid: 'NoDeletes',
      Effect: 'Deny',
      Principal: '*',
      Action: 's3:DeleteObject',
      Resource: 'arn:aws:s3:::b/*',
    });
    expect(decide(req(ROOT, 's3:DeleteObject', 'x'), { bucketPolicy: bp })).toEqual({
      allowed: false,
      reason: 'explicit-deny',
      statement: { source: 'bucket-policy', sid: 'NoDeletes', index: 0 },
    });
    expect(decide(req(ROOT, 's3:GetObject', 'x'), { bucketPolicy: bp }).allowed).toBe(true);
  });

  it('is denied by a Deny naming its access key or the account', () => {
    for (const principal of [
      { AWS: 'AKROOT' },
      { AWS: 'arn:aws:iam::000000000000:user/AKROOT' },
      { AWS: '123456789012' },
    ]) {
      const bp = bucketPolicy({ Effect: 'Deny', Principal: principal, Action: 's3:*', Resource: 'arn:aws:s3:::b/*' });
      expect(decide(req(ROOT, 's3:GetObject', 'x'), { bucketPolicy: bp }).reason).toBe('explicit-deny');
    }
  });

  it('can always read, replace and delete the bucket policy, even when the policy denies it', () => {
    const bp = bucketPolicy({
      Effect: 'Deny',
      Principal: '*',
      Action: 's3:*',
      Resource: ['arn:aws:s3:::b', 'arn:aws:s3:::b/*'],
    });
    for (const action of ['s3:GetBucketPolicy', 's3:PutBucketPolicy', 's3:DeleteBucketPolicy', 's3:putbucketpolicy']) {
      expect(decide(req(ROOT, action), { bucketPolicy: bp }).allowed).toBe(true);
    }
    expect(decide(req(ROOT, 's3:ListBucket'), { bucketPolicy: bp }).reason).toBe('explicit-deny');
    expect(
      decide(req(K1, 's3:PutBucketPolicy'), {
        bucketPolicy: bp,
        identityPolicy: identityPolicy({ Effect: 'Allow', Action: 's3:*', Resource: '*' }),
      }).reason,
    ).toBe('explicit-deny');
  });

  it('is not restricted by an identity policy', () => {
    const ip = identityPolicy({ Effect: 'Deny', Action: 's3:*', Resource: '*' });
    expect(decide(req(ROOT, 's3:GetObject', 'x'), { identityPolicy: ip }).allowed).toBe(true);
  });
});

describe('scoped keys', () => {
  const photos = identityPolicy({
    Sid: 'Photos',
    Effect: 'Allow',
    Action: ['s3:GetObject', 's3:PutObject'],
    Resource: 'arn:aws:s3:::b/photos/*',
  });

  it('are allowed by their identity policy inside its resources and implicitly denied outside', () => {
    expect(decide(req(K1, 's3:GetObject', 'photos/a.jpg'), { identityPolicy: photos })).toEqual({
      allowed: true,
      reason: 'allow',
      statement: { source: 'identity', sid: 'Photos', index: 0 },
    });
    expect(decide(req(K1, 's3:GetObject', 'docs/a.txt'), { identityPolicy: photos }).reason).toBe('implicit-deny');
    expect(decide(req(K1, 's3:DeleteObject', 'photos/a.jpg'), { identityPolicy: photos }).reason).toBe('implicit-deny');
    expect(
      decide(req(K1, 's3:GetObject', { key: 'photos/a.jpg', context: {}, bucket: 'c' }), { identityPolicy: photos })
        .reason,
    ).toBe('implicit-deny');
  });

  it('have no permissions without an identity policy', () => {
    expect(decide(req(K1, 's3:GetObject', 'photos/a.jpg')).reason).toBe('implicit-deny');
  });

  it('are not granted anything by a bucket-policy Allow alone, even to "*"', () => {
    expect(decide(req(K1, 's3:GetObject', 'x'), { bucketPolicy: bucketPolicy(PUBLIC_READ) }).reason).toBe(
      'implicit-deny',
    );
    const named = bucketPolicy({ ...PUBLIC_READ, Principal: { AWS: 'AKONE' } });
    expect(decide(req(K1, 's3:GetObject', 'x'), { bucketPolicy: named }).reason).toBe('implicit-deny');
  });

  it('are denied by a bucket-policy Deny over an identity Allow', () => {
    const bp = bucketPolicy({
      Sid: 'NoK1',
      Effect: 'Deny',
      Principal: { AWS: 'AKONE' },
      Action: 's3:*',
      Resource: 'arn:aws:s3:::b/*',
    });
    expect(decide(req(K1, 's3:GetObject', 'photos/a.jpg'), { identityPolicy: photos, bucketPolicy: bp })).toEqual({
      allowed: false,
      reason: 'explicit-deny',
      statement: { source: 'bucket-policy', sid: 'NoK1', index: 0 },
    });
    expect(decide(req(K2, 's3:GetObject', 'photos/a.jpg'), { identityPolicy: photos, bucketPolicy: bp }).allowed).toBe(
      true,
    );
  });

  it('are denied by a Deny in their own policy over its Allow, whatever the order', () => {
    const ip = identityPolicy(
      { Effect: 'Allow', Action: 's3:*', Resource: 'arn:aws:s3:::b/*' },
      { Sid: 'NoSecrets', Effect: 'Deny', Action: 's3:GetObject', Resource: 'arn:aws:s3:::b/secret/*' },
    );
    expect(decide(req(K1, 's3:GetObject', 'secret/x'), { identityPolicy: ip })).toEqual({
      allowed: false,
      reason: 'explicit-deny',
      statement: { source: 'identity', sid: 'NoSecrets', index: 1 },
    });
    expect(decide(req(K1, 's3:GetObject', 'public/x'), { identityPolicy: ip }).allowed).toBe(true);
  });

  it('report the bucket-policy Deny first when both policies deny', () => {
    const bp = bucketPolicy({ Effect: 'Deny', Principal: '*', Action: 's3:GetObject', Resource: 'arn:aws:s3:::b/*' });
    const ip = identityPolicy({ Effect: 'Deny', Action: 's3:GetObject', Resource: '*' });
    expect(decide(req(K1, 's3:GetObject', 'x'), { bucketPolicy: bp, identityPolicy: ip }).statement?.source).toBe(
      'bucket-policy',
    );
  });

  it('are matched by an account principal in a Deny', () => {
    const bp = bucketPolicy({
      Effect: 'Deny',
      Principal: { AWS: 'arn:aws:iam::123456789012:root' },
      Action: 's3:GetObject',
      Resource: 'arn:aws:s3:::b/*',
    });
    expect(decide(req(K2, 's3:GetObject', 'photos/a'), { bucketPolicy: bp, identityPolicy: photos }).reason).toBe(
      'explicit-deny',
    );
  });
});

describe('NotPrincipal, NotAction, NotResource', () => {
  it('Deny with NotPrincipal spares only the named key', () => {
    const bp = bucketPolicy(PUBLIC_READ, {
      Effect: 'Deny',
      NotPrincipal: { AWS: 'AKONE' },
      Action: 's3:*',
      Resource: 'arn:aws:s3:::b/*',
    });
    const ip = identityPolicy({ Effect: 'Allow', Action: 's3:*', Resource: '*' });
    expect(decide(req(ANON, 's3:GetObject', 'x'), { bucketPolicy: bp }).reason).toBe('explicit-deny');
    expect(decide(req(ROOT, 's3:GetObject', 'x'), { bucketPolicy: bp }).reason).toBe('explicit-deny');
    expect(decide(req(K2, 's3:GetObject', 'x'), { bucketPolicy: bp, identityPolicy: ip }).reason).toBe('explicit-deny');
    expect(decide(req(K1, 's3:GetObject', 'x'), { bucketPolicy: bp, identityPolicy: ip }).allowed).toBe(true);
  });

  it('NotAction applies to every action but the listed ones', () => {
    const bp = bucketPolicy({
      Effect: 'Deny',
      Principal: '*',
      NotAction: ['s3:GetObject', 's3:List*'],
      Resource: ['arn:aws:s3:::b', 'arn:aws:s3:::b/*'],
    });
    expect(decide(req(ROOT, 's3:PutObject', 'x'), { bucketPolicy: bp }).reason).toBe('explicit-deny');
    expect(decide(req(ROOT, 's3:DeleteBucket'), { bucketPolicy: bp }).reason).toBe('explicit-deny');
    expect(decide(req(ROOT, 's3:GetObject', 'x'), { bucketPolicy: bp }).allowed).toBe(true);
    expect(decide(req(ROOT, 's3:ListBucket'), { bucketPolicy: bp }).allowed).toBe(true);
  });

  it('NotResource applies to every resource but the listed ones', () => {
    const bp = bucketPolicy({
      Effect: 'Allow',
      Principal: '*',
      Action: 's3:GetObject',
      NotResource: 'arn:aws:s3:::b/private/*',
    });
    expect(decide(req(ANON, 's3:GetObject', 'public/x'), { bucketPolicy: bp }).allowed).toBe(true);
    expect(decide(req(ANON, 's3:GetObject', 'private/x'), { bucketPolicy: bp }).reason).toBe('implicit-deny');
  });
});

describe('action and resource wildcards', () => {
  it.each([
    ['s3:Get*', 's3:GetObject', true],
    ['s3:Get*', 's3:GetObjectTagging', true],
    ['s3:Get*', 's3:PutObject', false],
    ['s3:*Object', 's3:GetObject', true],
    ['s3:*Object', 's3:DeleteObject', true],
    ['s3:*Object', 's3:GetObjectAcl', false],
    ['s3:?etObject', 's3:GetObject', true],
    ['s3:?etObject', 's3:PutObject', false],
    ['S3:GETOBJECT', 's3:GetObject', true],
    ['s3:getobject', 's3:GETOBJECT', true],
    ['s3:*', 's3:RestoreObject', true],
    ['*', 's3:PutObjectRetention', true],
  ])('Action %s covers %s: %s', (pattern, action, expected) => {
    const ip = identityPolicy({ Effect: 'Allow', Action: pattern, Resource: 'arn:aws:s3:::b/*' });
    expect(decide(req(K1, action, 'k'), { identityPolicy: ip }).allowed).toBe(expected);
  });

  it.each([
    ['arn:aws:s3:::b/photos/*', 'photos/2024/a.jpg', true],
    ['arn:aws:s3:::b/photos/*', 'photos/', true],
    ['arn:aws:s3:::b/photos/*', 'photo.jpg', false],
    ['arn:aws:s3:::b/photos/*', 'Photos/a.jpg', false],
    ['arn:aws:s3:::b/*.jpg', 'deep/dir/a.jpg', true],
    ['arn:aws:s3:::b/*.jpg', 'a.png', false],
    ['arn:aws:s3:::b/file?.txt', 'file1.txt', true],
    ['arn:aws:s3:::b/file?.txt', 'file10.txt', false],
    ['arn:aws:s3:::b/exact', 'exact', true],
    ['arn:aws:s3:::b/exact', 'exact/more', false],
    ['arn:aws:s3:::*', 'anything', true],
    ['*', 'anything', true],
    ['arn:aws:s3:::b', 'x', false],
  ])('Resource %s covers key %s: %s', (pattern, key, expected) => {
    const ip = identityPolicy({ Effect: 'Allow', Action: 's3:GetObject', Resource: pattern });
    expect(decide(req(K1, 's3:GetObject', key), { identityPolicy: ip }).allowed).toBe(expected);
  });

  it('checks bucket-level actions against the bucket ARN, not object ARNs', () => {
    const objectsOnly = identityPolicy({ Effect: 'Allow', Action: 's3:*', Resource: 'arn:aws:s3:::b/*' });
    expect(decide(req(K1, 's3:ListBucket'), { identityPolicy: objectsOnly }).allowed).toBe(false);
    const bucketOnly = identityPolicy({ Effect: 'Allow', Action: 's3:*', Resource: 'arn:aws:s3:::b' });
    expect(decide(req(K1, 's3:ListBucket'), { identityPolicy: bucketOnly }).allowed).toBe(true);
    expect(decide(req(K1, 's3:GetObject', 'k'), { identityPolicy: bucketOnly }).allowed).toBe(false);
  });

  it('checks account-level actions (ListAllMyBuckets) against Resource "*" only', () => {
    const star = identityPolicy({ Effect: 'Allow', Action: 's3:ListAllMyBuckets', Resource: '*' });
    const arnStar = identityPolicy({ Effect: 'Allow', Action: 's3:ListAllMyBuckets', Resource: 'arn:aws:s3:::*' });
    expect(
      decide(req(K1, 's3:ListAllMyBuckets', { key: undefined, context: {}, bucket: '' }), { identityPolicy: star })
        .allowed,
    ).toBe(true);
    expect(
      decide(req(K1, 's3:ListAllMyBuckets', { key: undefined, context: {}, bucket: '' }), { identityPolicy: arnStar })
        .allowed,
    ).toBe(false);
  });
});

describe('conditions', () => {
  const denyInsecure = bucketPolicy(PUBLIC_READ, {
    Sid: 'TLSOnly',
    Effect: 'Deny',
    Principal: '*',
    Action: 's3:*',
    Resource: ['arn:aws:s3:::b', 'arn:aws:s3:::b/*'],
    Condition: { Bool: { 'aws:SecureTransport': 'false' } },
  });

  it.each<[ContextInput, string]>([
    [{ 'aws:SecureTransport': 'false' }, 'explicit-deny'],
    [{ 'aws:SecureTransport': 'true' }, 'allow'],
    [{ 'AWS:SECURETRANSPORT': 'FALSE' }, 'explicit-deny'],
    [{}, 'allow'],
  ])('Bool aws:SecureTransport deny with context %j -> %s', (context, reason) => {
    expect(
      decide(req(ANON, 's3:GetObject', { key: 'x', context: context }), { bucketPolicy: denyInsecure }).reason,
    ).toBe(reason);
  });

  const fromOffice = bucketPolicy({
    ...PUBLIC_READ,
    Condition: {
      IpAddress: { 'aws:SourceIp': ['192.0.2.0/24', '2001:db8::/32'] },
      NotIpAddress: { 'aws:SourceIp': '192.0.2.188/32' },
    },
  });

  it.each([
    ['192.0.2.10', true],
    ['192.0.2.188', false],
    ['198.51.100.1', false],
    ['::ffff:192.0.2.10', true],
    ['::ffff:192.0.2.188', false],
    ['2001:db8:ffff::1', true],
    ['2001:db9::1', false],
    ['not-an-ip', false],
  ])('IpAddress/NotIpAddress: %s -> %s', (ip, allowed) => {
    expect(
      decide(req(ANON, 's3:GetObject', { key: 'x', context: { 'aws:SourceIp': ip } }), { bucketPolicy: fromOffice })
        .allowed,
    ).toBe(allowed);
  });

  it('IpAddress fails when aws:SourceIp is missing', () => {
    expect(decide(req(ANON, 's3:GetObject', 'x'), { bucketPolicy: fromOffice }).allowed).toBe(false);
  });

  function listWith(condition: Json): (context: ContextInput) => boolean {
    const ip = identityPolicy({
      Effect: 'Allow',
      Action: 's3:ListBucket',
      Resource: 'arn:aws:s3:::b',
      Condition: condition,
    });
    return (context) =>
      decide(req(K1, 's3:ListBucket', { key: undefined, context: context }), { identityPolicy: ip }).allowed;
  }

  it.each<[string, Json, ContextInput, boolean]>([
    ['StringLike true', { StringLike: { 's3:prefix': 'photos/*' } }, { 's3:prefix': 'photos/2024/' }, true],
    ['StringLike false', { StringLike: { 's3:prefix': 'photos/*' } }, { 's3:prefix': 'docs/' }, false],
    ['StringLike missing key', { StringLike: { 's3:prefix': 'photos/*' } }, {}, false],
    ['StringLikeIfExists missing key', { StringLikeIfExists: { 's3:prefix': 'photos/*' } }, {}, true],
    [
      'StringLikeIfExists present, false',
      { StringLikeIfExists: { 's3:prefix': 'photos/*' } },
      { 's3:prefix': 'docs/' },
      false,
    ],
    ['StringEquals any of the values', { StringEquals: { 's3:prefix': ['a/', 'b/'] } }, { 's3:prefix': 'b/' }, true],
    ['StringEquals is case-sensitive', { StringEquals: { 's3:prefix': 'A/' } }, { 's3:prefix': 'a/' }, false],
    ['StringEquals has no wildcards', { StringEquals: { 's3:prefix': 'a*' } }, { 's3:prefix': 'ab' }, false],
    ['StringEqualsIgnoreCase', { StringEqualsIgnoreCase: { 's3:prefix': 'A/' } }, { 's3:prefix': 'a/' }, true],
    [
      'StringNotEquals none of the values',
      { StringNotEquals: { 's3:prefix': ['a/', 'b/'] } },
      { 's3:prefix': 'c/' },
      true,
    ],
    [
      'StringNotEquals one of the values',
      { StringNotEquals: { 's3:prefix': ['a/', 'b/'] } },
      { 's3:prefix': 'a/' },
      false,
    ],
    ['StringNotEquals missing key holds', { StringNotEquals: { 's3:prefix': 'a/' } }, {}, true],
    ['StringNotLike missing key holds', { StringNotLike: { 's3:prefix': 'a*' } }, {}, true],
    ['StringNotEqualsIfExists missing key holds', { StringNotEqualsIfExists: { 's3:prefix': 'a/' } }, {}, true],
    ['StringNotEqualsIgnoreCase', { StringNotEqualsIgnoreCase: { 's3:prefix': 'A/' } }, { 's3:prefix': 'a/' }, false],
    ['NumericLessThanEquals true', { NumericLessThanEquals: { 's3:max-keys': '100' } }, { 's3:max-keys': '100' }, true],
    ['NumericLessThanEquals false', { NumericLessThanEquals: { 's3:max-keys': 100 } }, { 's3:max-keys': '101' }, false],
    ['NumericLessThan', { NumericLessThan: { 's3:max-keys': '10' } }, { 's3:max-keys': '9' }, true],
    ['NumericGreaterThan', { NumericGreaterThan: { 's3:max-keys': '10' } }, { 's3:max-keys': '10' }, false],
    ['NumericGreaterThanEquals', { NumericGreaterThanEquals: { 's3:max-keys': '10' } }, { 's3:max-keys': '10' }, true],
    ['NumericEquals decimal', { NumericEquals: { 's3:max-keys': '1.50' } }, { 's3:max-keys': '1.5' }, true],
    ['NumericNotEquals', { NumericNotEquals: { 's3:max-keys': '5' } }, { 's3:max-keys': '5' }, false],
    [
      'Numeric with a non-number request value',
      { NumericLessThan: { 's3:max-keys': '10' } },
      { 's3:max-keys': 'lots' },
      false,
    ],
    ['Numeric missing key', { NumericLessThan: { 's3:max-keys': '10' } }, {}, false],
    [
      'DateLessThan true',
      { DateLessThan: { 'aws:CurrentTime': '2030-01-01T00:00:00Z' } },
      { 'aws:CurrentTime': '2029-12-31T23:59:59Z' },
      true,
    ],
    [
      'DateLessThan false',
      { DateLessThan: { 'aws:CurrentTime': '2030-01-01T00:00:00Z' } },
      { 'aws:CurrentTime': '2030-01-01T00:00:00Z' },
      false,
    ],
    [
      'DateGreaterThan with an offset',
      { DateGreaterThan: { 'aws:CurrentTime': '2030-01-01T00:00:00+01:00' } },
      { 'aws:CurrentTime': '2029-12-31T23:30:00Z' },
      true,
    ],
    [
      'DateGreaterThanEquals epoch seconds',
      { DateGreaterThanEquals: { 'aws:EpochTime': '1700000000' } },
      { 'aws:EpochTime': '1700000000' },
      true,
    ],
    [
      'Date date-only value',
      { DateLessThanEquals: { 'aws:CurrentTime': '2030-01-01' } },
      { 'aws:CurrentTime': '2030-01-01T00:00:00Z' },
      true,
    ],
    ['Null true, key absent', { Null: { 's3:prefix': 'true' } }, {}, true],
    ['Null true, key present', { Null: { 's3:prefix': 'true' } }, { 's3:prefix': 'a/' }, false],
    ['Null false, key present', { Null: { 's3:prefix': 'false' } }, { 's3:prefix': 'a/' }, true],
    ['Bool is case-insensitive', { Bool: { 'aws:SecureTransport': 'TRUE' } }, { 'aws:SecureTransport': 'true' }, true],
    [
      'two operators are ANDed',
      { StringLike: { 's3:prefix': 'a*' }, NumericLessThan: { 's3:max-keys': '5' } },
      { 's3:prefix': 'ab', 's3:max-keys': '9' },
      false,
    ],
    ['two keys are ANDed', { StringEquals: { 's3:prefix': 'a', 's3:delimiter': '/' } }, { 's3:prefix': 'a' }, false],
    [
      'ForAnyValue one matches',
      { 'ForAnyValue:StringEquals': { 'aws:TagKeys': ['x', 'y'] } },
      { 'aws:TagKeys': ['q', 'y'] },
      true,
    ],
    [
      'ForAnyValue none match',
      { 'ForAnyValue:StringEquals': { 'aws:TagKeys': ['x', 'y'] } },
      { 'aws:TagKeys': ['q'] },
      false,
    ],
    ['ForAnyValue missing key', { 'ForAnyValue:StringEquals': { 'aws:TagKeys': ['x'] } }, {}, false],
    [
      'ForAllValues all match',
      { 'ForAllValues:StringLike': { 'aws:TagKeys': ['app-*', 'env'] } },
      { 'aws:TagKeys': ['app-1', 'env'] },
      true,
    ],
    [
      'ForAllValues one does not',
      { 'ForAllValues:StringLike': { 'aws:TagKeys': ['app-*'] } },
      { 'aws:TagKeys': ['app-1', 'env'] },
      false,
    ],
    ['ForAllValues missing key holds', { 'ForAllValues:StringEquals': { 'aws:TagKeys': ['x'] } }, {}, true],
    [
      'ForAllValues empty list holds',
      { 'ForAllValues:StringEquals': { 'aws:TagKeys': ['x'] } },
      { 'aws:TagKeys': [] },
      true,
    ],
    [
      'ForAnyValue:StringNotEquals',
      { 'ForAnyValue:StringNotEquals': { 'aws:TagKeys': ['x'] } },
      { 'aws:TagKeys': ['x', 'y'] },
      true,
    ],
    [
      'ForAllValues:StringNotEquals',
      { 'ForAllValues:StringNotEquals': { 'aws:TagKeys': ['x'] } },
      { 'aws:TagKeys': ['x', 'y'] },
      false,
    ],
    ['operator names are case-insensitive', { stringlike: { 's3:prefix': 'a*' } }, { 's3:prefix': 'ab' }, true],
    [
      'a tag key keeps its case',
      { StringEquals: { 's3:ExistingObjectTag/Class': 'public' } },
      { 's3:existingobjecttag/Class': 'public' },
      true,
    ],
    [
      'a tag key of another case is another key',
      { StringEquals: { 's3:ExistingObjectTag/Class': 'public' } },
      { 's3:ExistingObjectTag/class': 'public' },
      false,
    ],
    [
      'aws:UserAgent StringLike',
      { StringLike: { 'aws:UserAgent': '*aws-cli*' } },
      { 'aws:UserAgent': 'aws-cli/2.15 Python' },
      true,
    ],
    [
      'aws:Referer StringNotLike',
      { StringNotLike: { 'aws:Referer': 'https://example.com/*' } },
      { 'aws:Referer': 'https://evil.test/' },
      true,
    ],
    // eslint-disable-next-line max-params -- it.each passes one argument per table column
  ])('%s', (_name, condition, context, expected) => {
    expect(listWith(condition)(context)).toBe(expected);
  });

  it('a Deny with a negated operator applies when the key is missing', () => {
    const bp = bucketPolicy(PUBLIC_READ, {
      Effect: 'Deny',
      Principal: '*',
      Action: 's3:GetObject',
      Resource: 'arn:aws:s3:::b/*',
      Condition: { StringNotLike: { 'aws:Referer': 'https://example.com/*' } },
    });
    expect(decide(req(ANON, 's3:GetObject', 'x'), { bucketPolicy: bp }).reason).toBe('explicit-deny');
    expect(
      decide(req(ANON, 's3:GetObject', { key: 'x', context: { 'aws:Referer': 'https://example.com/page' } }), {
        bucketPolicy: bp,
      }).allowed,
    ).toBe(true);
  });
});

describe('policy variables', () => {
  const home = (version: string) =>
    parseIdentityPolicy(
      JSON.stringify({
        Version: version,
        Statement: [{ Effect: 'Allow', Action: 's3:GetObject', Resource: 'arn:aws:s3:::b/home/${aws:username}/*' }],
      }),
    );

  it('substitute context values in 2012-10-17 resources', () => {
    const ip = home('2012-10-17');
    expect(
      decide(req(K1, 's3:GetObject', { key: 'home/alice/x', context: { 'aws:username': 'alice' } }), {
        identityPolicy: ip,
      }).allowed,
    ).toBe(true);
    expect(
      decide(req(K1, 's3:GetObject', { key: 'home/bob/x', context: { 'aws:username': 'alice' } }), {
        identityPolicy: ip,
      }).allowed,
    ).toBe(false);
  });

  it('match nothing when the variable has no value', () => {
    expect(
      decide(req(K1, 's3:GetObject', 'home/${aws:username}/x'), { identityPolicy: home('2012-10-17') }).allowed,
    ).toBe(false);
  });

  it('keep a substituted value literal (a * in the value is not a wildcard)', () => {
    const ip = home('2012-10-17');
    expect(
      decide(req(K1, 's3:GetObject', { key: 'home/a*/x', context: { 'aws:username': 'a*' } }), { identityPolicy: ip })
        .allowed,
    ).toBe(true);
    expect(
      decide(req(K1, 's3:GetObject', { key: 'home/abc/x', context: { 'aws:username': 'a*' } }), { identityPolicy: ip })
        .allowed,
    ).toBe(false);
  });

  it('are plain text in 2008-10-17 policies', () => {
    const ip = home('2008-10-17');
    expect(
      decide(req(K1, 's3:GetObject', { key: 'home/alice/x', context: { 'aws:username': 'alice' } }), {
        identityPolicy: ip,
      }).allowed,
    ).toBe(false);
    expect(decide(req(K1, 's3:GetObject', 'home/${aws:username}/x'), { identityPolicy: ip }).allowed).toBe(true);
  });

  it('work in condition values, with a default and with ${*} escapes', () => {
    const ip = identityPolicy({
      Effect: 'Allow',
      Action: 's3:ListBucket',
      Resource: 'arn:aws:s3:::b',
      Condition: { StringLike: { 's3:prefix': ["${aws:username, 'guest'}/${*}*"] } },
    });
    const allowed = (context: ContextInput) =>
      decide(req(K1, 's3:ListBucket', { key: undefined, context: context }), { identityPolicy: ip }).allowed;
    expect(allowed({ 'aws:username': 'alice', 's3:prefix': 'alice/*x' })).toBe(true);
    expect(allowed({ 'aws:username': 'alice', 's3:prefix': 'alice/x' })).toBe(false);
    expect(allowed({ 's3:prefix': 'guest/*' })).toBe(true);
  });
});
