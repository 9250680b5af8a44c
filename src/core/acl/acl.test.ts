import { describe, expect, it } from 'vitest';
import { codeOf } from '../../../test/helpers/error-code.js';
import { cannedAcl, grantsToOthers, isPublicAcl, resolveGrantee, validateAcl, withoutPublicGrants } from './acl.js';
import { parseGrantHeader, requestedAcl } from './acl-request.js';
import { aclAllows, aclScopeOf } from './acl-eval.js';
import { aclToStore } from './acl-write.js';
import { bucketPublicity } from './bucket-publicity.js';
import { parseBucketPolicy } from '../policy/policy-document.js';

const OWNER = 'a'.repeat(64);
const ALL_USERS = 'http://acs.amazonaws.com/groups/global/AllUsers';
const AUTH_USERS = 'http://acs.amazonaws.com/groups/global/AuthenticatedUsers';
const headers =
  (h: Record<string, string>) =>
  (name: string): string | undefined =>
    h[name];
const lines = (
  acl: { grants: readonly { grantee: { kind: string; group?: string }; permission: string }[] } | undefined,
) => (acl?.grants ?? []).map((g) => `${g.grantee.kind === 'owner' ? 'owner' : g.grantee.group} ${g.permission}`);

describe('canned ACLs', () => {
  it("expand to S3's grants, with the one owner standing for bucket owner and object writer", () => {
    expect(lines(cannedAcl('private'))).toEqual(['owner FULL_CONTROL']);
    expect(lines(cannedAcl('public-read'))).toEqual(['owner FULL_CONTROL', 'AllUsers READ']);
    expect(lines(cannedAcl('public-read-write'))).toEqual(['owner FULL_CONTROL', 'AllUsers READ', 'AllUsers WRITE']);
    expect(lines(cannedAcl('authenticated-read'))).toEqual(['owner FULL_CONTROL', 'AuthenticatedUsers READ']);
    expect(lines(cannedAcl('bucket-owner-read'))).toEqual(['owner FULL_CONTROL']);
    expect(lines(cannedAcl(' bucket-owner-full-control '))).toEqual(['owner FULL_CONTROL']);
    expect(cannedAcl('public-read').canned).toBe('public-read');
    expect(codeOf(() => cannedAcl('public'))).toBe('InvalidArgument');
  });

  it('are public when they grant AllUsers or AuthenticatedUsers (not LogDelivery)', () => {
    expect(isPublicAcl(cannedAcl('public-read'))).toBe(true);
    expect(isPublicAcl(cannedAcl('authenticated-read'))).toBe(true);
    expect(isPublicAcl(cannedAcl('log-delivery-write'))).toBe(false);
    expect(isPublicAcl(cannedAcl('private'))).toBe(false);
    expect(grantsToOthers(cannedAcl('log-delivery-write'))).toBe(true);
    expect(lines(withoutPublicGrants(cannedAcl('public-read-write')))).toEqual(['owner FULL_CONTROL']);
  });
});

describe('grant headers and grantees', () => {
  it('parse id, uri and emailAddress entries, quoted or not, several per header', () => {
    expect(parseGrantHeader('x-amz-grant-read', `id="${OWNER}", uri="${ALL_USERS}",emailAddress=a@b.c`)).toEqual([
      { type: 'id', value: OWNER },
      { type: 'uri', value: ALL_USERS },
      { type: 'emailAddress', value: 'a@b.c' },
    ]);
    expect(codeOf(() => parseGrantHeader('x-amz-grant-read', 'someone'))).toBe('InvalidArgument');
    expect(codeOf(() => parseGrantHeader('x-amz-grant-read', ''))).toBe('InvalidArgument');
  });

  it('resolve the owner and the groups; refuse other ids (InvalidArgument), emails and unknown groups', () => {
    expect(resolveGrantee({ type: 'id', value: OWNER }, OWNER)).toEqual({ kind: 'owner' });
    expect(resolveGrantee({ type: 'uri', value: AUTH_USERS }, OWNER)).toEqual({
      kind: 'group',
      group: 'AuthenticatedUsers',
    });
    expect(codeOf(() => resolveGrantee({ type: 'id', value: 'b'.repeat(64) }, OWNER))).toBe('InvalidArgument');
    expect(codeOf(() => resolveGrantee({ type: 'emailAddress', value: 'x@y.z' }, OWNER))).toBe(
      'UnresolvableGrantByEmailAddress',
    );
    expect(
      codeOf(() => resolveGrantee({ type: 'uri', value: 'http://acs.amazonaws.com/groups/global/Nobody' }, OWNER)),
    ).toBe('InvalidArgument');
  });

  it('a request names a canned ACL or grants, never both', () => {
    expect(requestedAcl({ header: headers({}), ownerId: OWNER })).toBeUndefined();
    expect(requestedAcl({ header: headers({ 'x-amz-acl': 'public-read' }), ownerId: OWNER })?.canned).toBe(
      'public-read',
    );
    const granted = requestedAcl({
      header: headers({
        'x-amz-grant-full-control': `id=${OWNER}`,
        'x-amz-grant-read': `uri="${ALL_USERS}"`,
        'x-amz-grant-write-acp': `uri="${AUTH_USERS}"`,
      }),
      ownerId: OWNER,
    });
    expect(lines(granted).sort()).toEqual(['AllUsers READ', 'AuthenticatedUsers WRITE_ACP', 'owner FULL_CONTROL']);
    expect(
      codeOf(() =>
        requestedAcl({
          header: headers({ 'x-amz-acl': 'private', 'x-amz-grant-read': `id=${OWNER}` }),
          ownerId: OWNER,
        }),
      ),
    ).toBe('InvalidRequest');
  });

  it('stored ACLs read back from an archive are validated', () => {
    expect(validateAcl(cannedAcl('public-read'))).toEqual(cannedAcl('public-read'));
    expect(codeOf(() => validateAcl({ grants: [{ grantee: { kind: 'user', id: 'x' }, permission: 'READ' }] }))).toBe(
      'MalformedACLError',
    );
    expect(codeOf(() => validateAcl({ grants: [{ grantee: { kind: 'owner' }, permission: 'ALL' }] }))).toBe(
      'MalformedACLError',
    );
    expect(codeOf(() => validateAcl({ canned: 'world', grants: [] }))).toBe('MalformedACLError');
    expect(codeOf(() => validateAcl(null))).toBe('MalformedACLError');
  });
});

describe('what an ACL grants', () => {
  const check = (
    action: string,
    caller: 'anonymous' | 'authenticated',
    acls: { bucket?: string; object?: string; ignore?: boolean },
  ) =>
    aclAllows({
      action,
      caller,
      bucketAcl: acls.bucket === undefined ? undefined : cannedAcl(acls.bucket),
      objectAcl: acls.object === undefined ? undefined : cannedAcl(acls.object),
      ignorePublicAcls: acls.ignore === true,
    });

  it('object READ reads the object (any version), not its ACL, tags or anything else', () => {
    expect(check('s3:GetObject', 'anonymous', { object: 'public-read' })).toBe(true);
    expect(check('s3:GetObjectVersion', 'anonymous', { object: 'public-read' })).toBe(true);
    expect(check('s3:GetObjectAcl', 'anonymous', { object: 'public-read' })).toBe(false);
    expect(check('s3:GetObjectTagging', 'anonymous', { object: 'public-read' })).toBe(false);
    expect(check('s3:PutObject', 'anonymous', { object: 'public-read-write' })).toBe(false);
    expect(check('s3:GetObject', 'anonymous', { bucket: 'public-read' })).toBe(false);
  });

  it('bucket READ lists, bucket WRITE puts and deletes objects', () => {
    expect(check('s3:ListBucket', 'anonymous', { bucket: 'public-read' })).toBe(true);
    expect(check('s3:PutObject', 'anonymous', { bucket: 'public-read' })).toBe(false);
    expect(check('s3:PutObject', 'anonymous', { bucket: 'public-read-write' })).toBe(true);
    expect(check('s3:DeleteObject', 'anonymous', { bucket: 'public-read-write' })).toBe(true);
    expect(check('s3:PutBucketAcl', 'anonymous', { bucket: 'public-read-write' })).toBe(false);
    expect(check('s3:DeleteBucket', 'anonymous', { bucket: 'public-read-write' })).toBe(false);
  });

  it('AuthenticatedUsers reaches keys only; IgnorePublicAcls drops both groups', () => {
    expect(check('s3:GetObject', 'anonymous', { object: 'authenticated-read' })).toBe(false);
    expect(check('s3:GetObject', 'authenticated', { object: 'authenticated-read' })).toBe(true);
    expect(check('s3:GetObject', 'authenticated', { object: 'public-read' })).toBe(true);
    expect(check('s3:GetObject', 'anonymous', { object: 'public-read', ignore: true })).toBe(false);
    expect(check('s3:GetObject', 'authenticated', { object: 'authenticated-read', ignore: true })).toBe(false);
  });

  it('FULL_CONTROL holds every permission; scopes say where to look', () => {
    const acl = { grants: [{ grantee: { kind: 'group', group: 'AllUsers' }, permission: 'FULL_CONTROL' }] } as const;
    expect(
      aclAllows({
        action: 's3:PutObjectAcl',
        caller: 'anonymous',
        bucketAcl: undefined,
        objectAcl: acl,
        ignorePublicAcls: false,
      }),
    ).toBe(true);
    expect(aclScopeOf('s3:GetObject')).toBe('object');
    expect(aclScopeOf('s3:ListBucket')).toBe('bucket');
    expect(aclScopeOf('s3:PutBucketPolicy')).toBeUndefined();
  });
});

describe('ACLs on writes', () => {
  const block = {
    blockPublicAcls: true,
    ignorePublicAcls: false,
    blockPublicPolicy: false,
    restrictPublicBuckets: false,
  };

  it('BucketOwnerEnforced accepts only owner-only ACLs and stores nothing', () => {
    expect(
      aclToStore({
        acl: cannedAcl('bucket-owner-full-control'),
        ownership: 'BucketOwnerEnforced',
        publicAccessBlock: undefined,
      }),
    ).toBeUndefined();
    expect(
      codeOf(() =>
        aclToStore({ acl: cannedAcl('public-read'), ownership: 'BucketOwnerEnforced', publicAccessBlock: undefined }),
      ),
    ).toBe('AccessControlListNotSupported');
  });

  it('with ACLs enabled, stores the ACL unless BlockPublicAcls refuses a public one (AccessDenied)', () => {
    expect(
      aclToStore({ acl: cannedAcl('public-read'), ownership: 'ObjectWriter', publicAccessBlock: undefined })?.canned,
    ).toBe('public-read');
    expect(
      aclToStore({ acl: cannedAcl('public-read'), ownership: undefined, publicAccessBlock: undefined })?.canned,
    ).toBe('public-read');
    expect(
      codeOf(() =>
        aclToStore({
          acl: cannedAcl('authenticated-read'),
          ownership: 'BucketOwnerPreferred',
          publicAccessBlock: block,
        }),
      ),
    ).toBe('AccessDenied');
    expect(
      aclToStore({ acl: cannedAcl('private'), ownership: 'BucketOwnerPreferred', publicAccessBlock: block })?.canned,
    ).toBe('private');
  });
});

describe('bucket publicity', () => {
  const publicPolicy = parseBucketPolicy(
    JSON.stringify({
      Statement: [{ Effect: 'Allow', Principal: '*', Action: 's3:GetObject', Resource: 'arn:aws:s3:::b/*' }],
    }),
    'b',
  );
  const block = (flags: Partial<Record<'ignorePublicAcls' | 'restrictPublicBuckets', boolean>>) => ({
    blockPublicAcls: false,
    ignorePublicAcls: false,
    blockPublicPolicy: false,
    restrictPublicBuckets: false,
    ...flags,
  });

  it('names the policy and the ACL, each unless the block disregards it or ACLs are disabled', () => {
    expect(bucketPublicity({}, undefined)).toEqual({ isPublic: false, reasons: [] });
    expect(bucketPublicity({}, publicPolicy).reasons).toEqual(['policy']);
    expect(bucketPublicity({ publicAccessBlock: block({ restrictPublicBuckets: true }) }, publicPolicy).isPublic).toBe(
      false,
    );
    const acl = cannedAcl('public-read');
    expect(bucketPublicity({ ownershipControls: 'ObjectWriter', acl }, publicPolicy).reasons).toEqual([
      'policy',
      'acl',
    ]);
    expect(bucketPublicity({ ownershipControls: 'BucketOwnerEnforced', acl }, undefined).isPublic).toBe(false);
    expect(
      bucketPublicity(
        { ownershipControls: 'ObjectWriter', acl, publicAccessBlock: block({ ignorePublicAcls: true }) },
        undefined,
      ).isPublic,
    ).toBe(false);
  });
});
