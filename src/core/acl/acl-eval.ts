// What an ACL grants: the permission each S3 action needs on the bucket or on the object, and whether a caller
// holds it through a grant. S3 User Guide, "ACL overview", "Mapping of ACL permissions and access policy
// permissions". ACLs only ever allow; an explicit Deny in a policy still wins (authorize.ts decides the order).

import { isPublicAcl, withoutPublicGrants, type Acl, type AclGrantee, type AclPermission } from './acl.js';

/** Where the permission must be granted, and which. */
interface Needed {
  readonly on: 'bucket' | 'object';
  readonly permission: AclPermission;
}

const BUCKET_READ = ['s3:ListBucket', 's3:ListBucketVersions', 's3:ListBucketMultipartUploads'];
// Bucket WRITE: "Allows grantee to create new objects in the bucket. For the bucket and object owners of existing
// objects, also allows deletions and overwrites of those objects."
const BUCKET_WRITE = [
  's3:PutObject',
  's3:DeleteObject',
  's3:DeleteObjectVersion',
  's3:AbortMultipartUpload',
  's3:ListMultipartUploadParts',
];
const OBJECT_READ = ['s3:GetObject', 's3:GetObjectVersion', 's3:GetObjectAttributes', 's3:GetObjectVersionAttributes'];

const NEEDS: ReadonlyMap<string, Needed> = new Map<string, Needed>([
  ...BUCKET_READ.map((a): [string, Needed] => [a, { on: 'bucket', permission: 'READ' }]),
  ...BUCKET_WRITE.map((a): [string, Needed] => [a, { on: 'bucket', permission: 'WRITE' }]),
  ['s3:GetBucketAcl', { on: 'bucket', permission: 'READ_ACP' }],
  ['s3:PutBucketAcl', { on: 'bucket', permission: 'WRITE_ACP' }],
  ...OBJECT_READ.map((a): [string, Needed] => [a, { on: 'object', permission: 'READ' }]),
  ['s3:GetObjectAcl', { on: 'object', permission: 'READ_ACP' }],
  ['s3:GetObjectVersionAcl', { on: 'object', permission: 'READ_ACP' }],
  ['s3:PutObjectAcl', { on: 'object', permission: 'WRITE_ACP' }],
  ['s3:PutObjectVersionAcl', { on: 'object', permission: 'WRITE_ACP' }],
]);

/** True when an ACL could grant the action at all, and on what: callers look an object's ACL up only then. */
export function aclScopeOf(action: string): 'bucket' | 'object' | undefined {
  return NEEDS.get(action)?.on;
}

export interface AclCheck {
  readonly action: string;
  /**
   * An anonymous caller, or one signed with any valid Store key (the owner's keys are never asked: allowed already).
   */
  readonly caller: 'anonymous' | 'authenticated';
  readonly bucketAcl: Acl | undefined;
  /** The object version's ACL, for object actions (undefined: none stored, or no such object). */
  readonly objectAcl?: Acl | undefined;
  /** IgnorePublicAcls: grants to AllUsers and AuthenticatedUsers count for nothing. */
  readonly ignorePublicAcls: boolean;
}

function reaches(grantee: AclGrantee, caller: AclCheck['caller']): boolean {
  if (grantee.kind !== 'group') return false;
  if (grantee.group === 'AllUsers') return true;
  return grantee.group === 'AuthenticatedUsers' && caller === 'authenticated';
}

/** True when the ACL of the bucket or object grants the caller the permission the action needs. */
export function aclAllows(check: AclCheck): boolean {
  const needed = NEEDS.get(check.action);
  if (needed === undefined) return false;
  let acl = needed.on === 'bucket' ? check.bucketAcl : check.objectAcl;
  if (acl === undefined) return false;
  if (check.ignorePublicAcls && isPublicAcl(acl)) acl = withoutPublicGrants(acl);
  return acl.grants.some(
    (g) => (g.permission === needed.permission || g.permission === 'FULL_CONTROL') && reaches(g.grantee, check.caller),
  );
}
