// Policy evaluation (core/policy/evaluate.ts): anonymous requests, the root key, scoped keys, the Not* elements and
// wildcards. Conditions and policy variables are evaluate-conditions.test.ts.
import { describe, expect, it } from 'vitest';
import {
  ANON,
  bucketPolicy,
  decide,
  identityPolicy,
  K1,
  K2,
  PUBLIC_READ,
  req,
  ROOT,
} from '../../../test/helpers/policy-eval.js';

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
