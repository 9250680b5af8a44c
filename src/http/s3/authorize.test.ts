import { describe, expect, it } from 'vitest';
import { cannedAcl } from '../../core/acl/acl.js';
import type { BucketConfig } from '../../core/bucket-config-parts.js';
import { AppError, isAppError } from '../../core/errors.js';
import { parseIdentityPolicy } from '../../core/policy/scoped-key.js';
import {
  ANONYMOUS,
  BucketPolicyCache,
  deleteAuthorizer,
  hideMissingKey,
  operationChecks,
  RequestAuthorizer,
  type Principal,
} from './authorize.js';

const ROOT: Principal = { type: 'key', accessKeyId: 'ROOTKEY', isRoot: true };
const row = (policy?: unknown) => ({ config: policy === undefined ? {} : { policy: JSON.stringify(policy) } });
const doc = (...statements: unknown[]) => ({ Version: '2012-10-17', Statement: statements });
const allowAll = (action: string, resource: string, extra = {}) => ({
  Effect: 'Allow',
  Principal: '*',
  Action: action,
  Resource: resource,
  ...extra,
});
const denyAll = (action: string, resource: string, extra = {}) => ({
  Effect: 'Deny',
  Principal: '*',
  Action: action,
  Resource: resource,
  ...extra,
});

function authorizer(
  principal: Principal,
  rows: Record<string, { config: BucketConfig } | undefined>,
  extra: Partial<ConstructorParameters<typeof RequestAuthorizer>[0]> = {},
) {
  const cache = new BucketPolicyCache();
  return new RequestAuthorizer({ principal, policies: (b) => cache.view(b, rows[b]), context: {}, ...extra });
}

const codeOf = (fn: () => unknown): string | undefined => {
  try {
    fn();
    return undefined;
  } catch (err) {
    if (isAppError(err)) return err.code;
    throw err;
  }
};

describe('RequestAuthorizer', () => {
  it('lets the root key do anything a bucket without policy, or a missing bucket, allows', () => {
    const authz = authorizer(ROOT, { b: row() });
    expect(authz.allows({ action: 's3:GetObject', bucket: 'b', key: 'k' })).toBe(true);
    expect(authz.allows({ action: 's3:CreateBucket', bucket: 'missing' })).toBe(true);
    expect(authz.allows({ action: 's3:ListAllMyBuckets', bucket: '' })).toBe(true);
  });

  it('refuses anonymous callers everything without a policy, and on missing buckets even for actions a policy would allow', () => {
    const authz = authorizer(ANONYMOUS, { b: row(), open: row(doc(allowAll('s3:GetObject', 'arn:aws:s3:::open/*'))) });
    expect(authz.allows({ action: 's3:GetObject', bucket: 'b', key: 'k' })).toBe(false);
    expect(authz.allows({ action: 's3:GetObject', bucket: 'open', key: 'k' })).toBe(true);
    expect(authz.allows({ action: 's3:ListAllMyBuckets', bucket: '' })).toBe(false);
    expect(codeOf(() => authz.requireVisible('missing'))).toBe('AccessDenied');
    expect(codeOf(() => authz.requireVisible('b'))).toBeUndefined();
  });

  it('lets an explicit Deny beat the root key, except for the bucket policy operations', () => {
    const authz = authorizer(ROOT, {
      b: row(doc(denyAll('s3:*', 'arn:aws:s3:::b'), denyAll('s3:*', 'arn:aws:s3:::b/*'))),
    });
    expect(authz.allows({ action: 's3:GetObject', bucket: 'b', key: 'k' })).toBe(false);
    expect(authz.allows({ action: 's3:ListBucket', bucket: 'b' })).toBe(false);
    expect(authz.allows({ action: 's3:DeleteBucketPolicy', bucket: 'b' })).toBe(true);
  });

  it('fails closed on a stored policy that no longer parses, leaving the root key its policy operations', () => {
    const broken = { config: { policy: '{"Statement": "nonsense"}' } };
    const root = authorizer(ROOT, { b: broken });
    expect(root.allows({ action: 's3:GetObject', bucket: 'b', key: 'k' })).toBe(false);
    expect(root.allows({ action: 's3:PutBucketPolicy', bucket: 'b' })).toBe(true);
    expect(authorizer(ANONYMOUS, { b: broken }).allows({ action: 's3:GetBucketPolicy', bucket: 'b' })).toBe(false);
  });

  it('decides a scoped key by its identity policy AND the bucket policy (the scoped keys the admin API creates)', () => {
    const scoped: Principal = {
      type: 'key',
      accessKeyId: 'SCOPED',
      isRoot: false,
      identityPolicy: parseIdentityPolicy(
        JSON.stringify(doc({ Effect: 'Allow', Action: 's3:GetObject', Resource: 'arn:aws:s3:::b/photos/*' })),
      ),
    };
    const authz = authorizer(scoped, { b: row(doc(denyAll('s3:GetObject', 'arn:aws:s3:::b/photos/secret/*'))) });
    expect(authz.allows({ action: 's3:GetObject', bucket: 'b', key: 'photos/a.jpg' })).toBe(true);
    expect(authz.allows({ action: 's3:GetObject', bucket: 'b', key: 'photos/secret/a.jpg' })).toBe(false);
    expect(authz.allows({ action: 's3:GetObject', bucket: 'b', key: 'docs/a.txt' })).toBe(false);
  });

  it('offers s3:versionid per check, and object tags only when a policy reads s3:ExistingObjectTag', () => {
    let lookups = 0;
    const objectTags = () => {
      lookups += 1;
      return [{ key: 'class', value: 'public' }];
    };
    const tagPolicy = doc(
      allowAll('s3:GetObject', 'arn:aws:s3:::t/*', {
        Condition: { StringEquals: { 's3:ExistingObjectTag/class': 'public' } },
      }),
    );
    const versionPolicy = doc(
      allowAll('s3:GetObjectVersion', 'arn:aws:s3:::v/*', { Condition: { StringEquals: { 's3:versionid': 'v1' } } }),
    );
    const authz = authorizer(
      ANONYMOUS,
      { t: row(tagPolicy), v: row(versionPolicy), plain: row(doc(allowAll('s3:GetObject', 'arn:aws:s3:::plain/*'))) },
      { objectTags },
    );
    expect(authz.allows({ action: 's3:GetObject', bucket: 't', key: 'k' })).toBe(true);
    expect(lookups).toBe(1);
    expect(authz.allows({ action: 's3:GetObject', bucket: 'plain', key: 'k' })).toBe(true);
    expect(lookups).toBe(1);
    expect(authz.allows({ action: 's3:GetObjectVersion', bucket: 'v', key: 'k', versionId: 'v1' })).toBe(true);
    expect(authz.allows({ action: 's3:GetObjectVersion', bucket: 'v', key: 'k', versionId: 'v2' })).toBe(false);
  });
});

describe('RequestAuthorizer with ACLs', () => {
  const SCOPED: Principal = {
    type: 'key',
    accessKeyId: 'SCOPED',
    isRoot: false,
    identityPolicy: parseIdentityPolicy(
      JSON.stringify(doc({ Effect: 'Allow', Action: 's3:GetObject', Resource: 'arn:aws:s3:::elsewhere/*' })),
    ),
  };
  const objectAcl = (acls: Record<string, string>) => (_bucket: string, key: string) =>
    acls[key] === undefined ? undefined : cannedAcl(acls[key]);
  const block = {
    blockPublicAcls: false,
    ignorePublicAcls: false,
    blockPublicPolicy: false,
    restrictPublicBuckets: false,
  };

  it('grants what the object or bucket ACL grants where ACLs are enabled, never under BucketOwnerEnforced', () => {
    const rows = {
      w: { config: { ownershipControls: 'ObjectWriter', acl: cannedAcl('public-read') } as BucketConfig },
      e: { config: { ownershipControls: 'BucketOwnerEnforced' } as BucketConfig },
    };
    const acls = objectAcl({ pub: 'public-read', members: 'authenticated-read' });
    const anonymous = authorizer(ANONYMOUS, rows, { objectAcl: acls });
    expect(anonymous.allows({ action: 's3:GetObject', bucket: 'w', key: 'pub' })).toBe(true);
    expect(anonymous.allows({ action: 's3:GetObject', bucket: 'w', key: 'members' })).toBe(false);
    expect(anonymous.allows({ action: 's3:GetObject', bucket: 'w', key: 'none' })).toBe(false);
    expect(anonymous.allows({ action: 's3:ListBucket', bucket: 'w' })).toBe(true);
    expect(anonymous.allows({ action: 's3:PutObject', bucket: 'w', key: 'x' })).toBe(false);
    expect(anonymous.allows({ action: 's3:GetObject', bucket: 'e', key: 'pub' })).toBe(false);
    const scoped = authorizer(SCOPED, rows, { objectAcl: acls });
    expect(scoped.allows({ action: 's3:GetObject', bucket: 'w', key: 'members' })).toBe(true);
  });

  it('lets an explicit policy Deny win over an ACL, and IgnorePublicAcls drop public grants', () => {
    const deny = {
      ownershipControls: 'ObjectWriter',
      policy: JSON.stringify(doc(denyAll('s3:GetObject', 'arn:aws:s3:::d/*'))),
    } as BucketConfig;
    const ignore = {
      ownershipControls: 'ObjectWriter',
      publicAccessBlock: { ...block, ignorePublicAcls: true },
    } as BucketConfig;
    const authz = authorizer(
      ANONYMOUS,
      { d: { config: deny }, i: { config: ignore } },
      { objectAcl: objectAcl({ pub: 'public-read' }) },
    );
    expect(authz.allows({ action: 's3:GetObject', bucket: 'd', key: 'pub' })).toBe(false);
    expect(authz.allows({ action: 's3:GetObject', bucket: 'i', key: 'pub' })).toBe(false);
  });

  it('RestrictPublicBuckets keeps anonymous callers out of a public policy, not out of a non-public one', () => {
    const publicPolicy = JSON.stringify(doc(allowAll('s3:GetObject', 'arn:aws:s3:::r/*')));
    const limited = JSON.stringify(
      doc(
        allowAll('s3:GetObject', 'arn:aws:s3:::r/*', { Condition: { IpAddress: { 'aws:SourceIp': '127.0.0.0/8' } } }),
      ),
    );
    const restricted = (policy: string) => ({
      r: {
        config: {
          ownershipControls: 'BucketOwnerEnforced',
          policy,
          publicAccessBlock: { ...block, restrictPublicBuckets: true },
        } as BucketConfig,
      },
    });
    expect(
      authorizer(ANONYMOUS, restricted(publicPolicy)).allows({ action: 's3:GetObject', bucket: 'r', key: 'k' }),
    ).toBe(false);
    const fromLoopback = new RequestAuthorizer({
      principal: ANONYMOUS,
      context: { 'aws:SourceIp': '127.0.0.1' },
      policies: (b) => new BucketPolicyCache().view(b, restricted(limited)[b as 'r']),
    });
    expect(fromLoopback.allows({ action: 's3:GetObject', bucket: 'r', key: 'k' })).toBe(true);
  });
});

describe('BucketPolicyCache', () => {
  it('parses a policy text once, and a changed text again', () => {
    const cache = new BucketPolicyCache(2);
    const first = row(doc(allowAll('s3:GetObject', 'arn:aws:s3:::b/*')));
    const a = cache.view('b', first).policy;
    expect(cache.view('b', { config: { policy: first.config.policy } }).policy).toBe(a);
    const changed = row(doc(denyAll('s3:GetObject', 'arn:aws:s3:::b/*')));
    expect(cache.view('b', changed).policy?.statements[0]?.effect).toBe('Deny');
    // Bounded: the oldest entry is dropped, and parsed again when needed.
    cache.view('c', row(doc(allowAll('s3:GetObject', 'arn:aws:s3:::c/*'))));
    expect(cache.view('b', first).policy).not.toBe(a);
  });

  it('reports missing buckets and buckets without a policy', () => {
    const cache = new BucketPolicyCache();
    expect(cache.view('b', undefined)).toEqual({ exists: false });
    expect(cache.view('b', { config: { ownershipControls: 'BucketOwnerEnforced' } })).toEqual({ exists: true });
    // ACLs enabled (no ownership controls: ObjectWriter): the view carries the bucket ACL for the ACL check.
    expect(
      cache.view('b', {
        config: {
          publicAccessBlock: {
            blockPublicAcls: false,
            ignorePublicAcls: true,
            blockPublicPolicy: false,
            restrictPublicBuckets: true,
          },
        },
      }),
    ).toEqual({ exists: true, acl: { bucketAcl: undefined, ignorePublicAcls: true }, restrictPublicBuckets: true });
  });
});

describe('operationChecks', () => {
  const noHeaders = () => undefined;

  it('binds the target, a versioned action, and the copy source with its own version', () => {
    expect(operationChecks({ op: 'GetObject', bucket: 'b', key: 'k', versionId: 'v1', header: noHeaders })).toEqual([
      { action: 's3:GetObjectVersion', bucket: 'b', key: 'k', versionId: 'v1' },
    ]);
    expect(
      operationChecks({
        op: 'CopyObject',
        bucket: 'b',
        key: 'k',
        header: noHeaders,
        copySource: { bucket: 's', key: 'src', versionId: 'sv' },
      }),
    ).toEqual([
      { action: 's3:PutObject', bucket: 'b', key: 'k', versionId: undefined },
      { action: 's3:GetObjectVersion', bucket: 's', key: 'src', versionId: 'sv' },
    ]);
  });

  it('adds the actions headers imply: tagging, retention, legal hold, governance bypass', () => {
    const headers: Record<string, string> = {
      'x-amz-tagging': 'a=b',
      'x-amz-object-lock-mode': 'GOVERNANCE',
      'x-amz-object-lock-legal-hold': 'ON',
      'x-amz-bypass-governance-retention': 'True',
    };
    const actions = operationChecks({ op: 'PutObject', bucket: 'b', key: 'k', header: (n) => headers[n] }).map(
      (c) => c.action,
    );
    expect(actions).toEqual([
      's3:PutObject',
      's3:PutObjectTagging',
      's3:PutObjectRetention',
      's3:PutObjectLegalHold',
      's3:BypassGovernanceRetention',
    ]);
  });

  it('has no request-level check for DeleteObjects, and a check no policy grants for an unknown operation', () => {
    expect(operationChecks({ op: 'DeleteObjects', bucket: 'b', header: noHeaders })).toEqual([]);
    expect(operationChecks({ op: 'SomethingNew', bucket: 'b', header: noHeaders })).toEqual([
      { action: 's3:SomethingNew', bucket: 'b' },
    ]);
  });
});

describe('deleteAuthorizer', () => {
  const target = (key: string, versionId?: string) => ({ bucket: 'b', key, versionId, bypassGovernance: false });

  it('authorizes each key of a batch delete on its own', () => {
    const authz = authorizer(ROOT, { b: row(doc(denyAll('s3:DeleteObject', 'arn:aws:s3:::b/keep/*'))) });
    const authorize = deleteAuthorizer(authz);
    expect(codeOf(() => authorize(target('tmp/a')))).toBeUndefined();
    expect(codeOf(() => authorize(target('keep/a')))).toBe('AccessDenied');
  });

  it('checks s3:DeleteObjectVersion for a versioned delete', () => {
    const authz = authorizer(ROOT, { b: row(doc(denyAll('s3:DeleteObjectVersion', 'arn:aws:s3:::b/*'))) });
    const authorize = deleteAuthorizer(authz);
    expect(codeOf(() => authorize(target('a', 'v1')))).toBe('AccessDenied');
    expect(codeOf(() => authorize(target('a')))).toBeUndefined();
  });

  it('checks s3:BypassGovernanceRetention when the batch bypasses governance retention', () => {
    const authz = authorizer(ROOT, { b: row(doc(denyAll('s3:BypassGovernanceRetention', 'arn:aws:s3:::b/*'))) });
    const authorize = deleteAuthorizer(authz);
    expect(codeOf(() => authorize({ ...target('a'), bypassGovernance: true }))).toBe('AccessDenied');
    expect(codeOf(() => authorize(target('a')))).toBeUndefined();
  });
});

describe('hideMissingKey', () => {
  const missing = new AppError('NoSuchKey');

  it('turns NoSuchKey into AccessDenied for callers who may not list the bucket, on GetObject and HeadObject only', () => {
    const getOnly = authorizer(ANONYMOUS, { b: row(doc(allowAll('s3:GetObject', 'arn:aws:s3:::b/*'))) });
    expect((hideMissingKey(missing, { op: 'GetObject', bucket: 'b' }, getOnly) as AppError).code).toBe('AccessDenied');
    expect((hideMissingKey(missing, { op: 'HeadObject', bucket: 'b' }, getOnly) as AppError).code).toBe('AccessDenied');
    expect(hideMissingKey(missing, { op: 'DeleteObject', bucket: 'b' }, getOnly)).toBe(missing);
    expect(hideMissingKey(missing, { op: 'GetObject', bucket: 'b' }, authorizer(ROOT, { b: row() }))).toBe(missing);
    const other = new AppError('NoSuchBucket');
    expect(hideMissingKey(other, { op: 'GetObject', bucket: 'b' }, getOnly)).toBe(other);
  });
});
