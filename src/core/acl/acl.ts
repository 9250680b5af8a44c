// Access control lists: the model Store keeps per bucket and per object version, the canned ACLs, the
// x-amz-grant-* headers, and what makes an ACL "public". Store has one owner (every key acts for it), so a grantee
// is the owner or one of S3's predefined groups; grants to anyone else are refused as AWS refuses unknown ones.
// Source: S3 User Guide, "Access control list (ACL) overview" (canned ACLs, grantees, permissions).

import { AppError } from '../errors.js';

export const PERMISSIONS = ['READ', 'WRITE', 'READ_ACP', 'WRITE_ACP', 'FULL_CONTROL'] as const;
export type AclPermission = (typeof PERMISSIONS)[number];

export const GROUP_URIS = {
  AllUsers: 'http://acs.amazonaws.com/groups/global/AllUsers',
  AuthenticatedUsers: 'http://acs.amazonaws.com/groups/global/AuthenticatedUsers',
  LogDelivery: 'http://acs.amazonaws.com/groups/s3/LogDelivery',
} as const;
export type AclGroup = keyof typeof GROUP_URIS;

/** The owner (rendered with the owner's canonical id) or a predefined group. */
export type AclGrantee = { readonly kind: 'owner' } | { readonly kind: 'group'; readonly group: AclGroup };

export interface AclGrant {
  readonly grantee: AclGrantee;
  readonly permission: AclPermission;
}

/** A stored ACL: its grants, and the canned ACL it was made from (kept so replication can send the header). */
export interface Acl {
  readonly canned?: CannedAcl | undefined;
  readonly grants: readonly AclGrant[];
}

export const CANNED_ACLS = [
  'private',
  'public-read',
  'public-read-write',
  'authenticated-read',
  'bucket-owner-read',
  'bucket-owner-full-control',
  'log-delivery-write',
] as const;
export type CannedAcl = (typeof CANNED_ACLS)[number];

const OWNER_FULL: AclGrant = { grantee: { kind: 'owner' }, permission: 'FULL_CONTROL' };
const group = (name: AclGroup, permission: AclPermission): AclGrant => ({
  grantee: { kind: 'group', group: name },
  permission,
});

/** What a version or bucket without a stored ACL has: the owner's FULL_CONTROL. */
export const PRIVATE_ACL: Acl = { canned: 'private', grants: [OWNER_FULL] };

// Store has one owner, so the bucket owner and the object writer are the same: bucket-owner-read and
// bucket-owner-full-control both come down to the owner's FULL_CONTROL.
const CANNED_GRANTS: Readonly<Record<CannedAcl, readonly AclGrant[]>> = {
  private: [OWNER_FULL],
  'public-read': [OWNER_FULL, group('AllUsers', 'READ')],
  'public-read-write': [OWNER_FULL, group('AllUsers', 'READ'), group('AllUsers', 'WRITE')],
  'authenticated-read': [OWNER_FULL, group('AuthenticatedUsers', 'READ')],
  'bucket-owner-read': [OWNER_FULL],
  'bucket-owner-full-control': [OWNER_FULL],
  'log-delivery-write': [OWNER_FULL, group('LogDelivery', 'WRITE'), group('LogDelivery', 'READ_ACP')],
};

/** The ACL of a canned name. Throws InvalidArgument for a name S3 does not define. */
export function cannedAcl(name: string): Acl {
  const canned = name.trim() as CannedAcl;
  if (!Object.hasOwn(CANNED_GRANTS, canned)) {
    throw new AppError('InvalidArgument', {
      message: `Unknown canned ACL ${name}.`,
      details: { ArgumentName: 'x-amz-acl', ArgumentValue: name },
    });
  }
  return { canned, grants: CANNED_GRANTS[canned] };
}

/** A grantee as a request names it (grant header, or the AccessControlPolicy body). */
export type GranteeRef =
  | { readonly type: 'id'; readonly value: string }
  | { readonly type: 'emailAddress'; readonly value: string }
  | { readonly type: 'uri'; readonly value: string };

/**
 * A named grantee as Store can hold it. Throws InvalidArgument for a canonical id other than the owner's or an
 * unknown group URI, UnresolvableGrantByEmailAddress for an email address (no Store identity has one), as AWS does
 * for grantees it cannot resolve.
 */
export function resolveGrantee(ref: GranteeRef, ownerId: string): AclGrantee {
  if (ref.type === 'emailAddress') {
    throw new AppError('UnresolvableGrantByEmailAddress', { details: { Email: ref.value } });
  }
  if (ref.type === 'id') {
    if (ref.value === ownerId) return { kind: 'owner' };
    throw new AppError('InvalidArgument', {
      message: 'Invalid id',
      details: { ArgumentName: 'CanonicalUser/ID', ArgumentValue: ref.value },
    });
  }
  const name = (Object.keys(GROUP_URIS) as AclGroup[]).find((g) => GROUP_URIS[g] === ref.value);
  if (name === undefined) {
    throw new AppError('InvalidArgument', {
      message: 'Invalid group uri',
      details: { ArgumentName: 'Group/URI', ArgumentValue: ref.value },
    });
  }
  return { kind: 'group', group: name };
}

/** True when some grant reaches beyond the owner (AllUsers, AuthenticatedUsers, LogDelivery). */
export function grantsToOthers(acl: Acl): boolean {
  return acl.grants.some((g) => g.grantee.kind !== 'owner');
}

/**
 * S3's "public" ACL (User Guide, "The meaning of public"): a grant to AllUsers or AuthenticatedUsers. These are
 * what BlockPublicAcls refuses and IgnorePublicAcls disregards.
 */
export function isPublicAcl(acl: Acl | undefined): boolean {
  return acl !== undefined && acl.grants.some((g) => g.grantee.kind === 'group' && g.grantee.group !== 'LogDelivery');
}

/** The same ACL with its public grants dropped (IgnorePublicAcls). */
export function withoutPublicGrants(acl: Acl): Acl {
  return { grants: acl.grants.filter((g) => !(g.grantee.kind === 'group' && g.grantee.group !== 'LogDelivery')) };
}

/** Validates a stored ACL read back from an archive: known permissions and grantees only. Throws MalformedACLError. */
export function validateAcl(value: unknown): Acl {
  const acl = value as Partial<Acl> | null;
  const bad = (): never => {
    throw new AppError('MalformedACLError');
  };
  if (typeof acl !== 'object' || acl === null || !Array.isArray(acl.grants) || acl.grants.length > 100) return bad();
  if (acl.canned !== undefined && !(CANNED_ACLS as readonly string[]).includes(acl.canned)) return bad();
  for (const grant of acl.grants as unknown[]) {
    const g = grant as Partial<AclGrant> | null;
    if (typeof g !== 'object' || g === null || !(PERMISSIONS as readonly string[]).includes(String(g.permission)))
      return bad();
    const grantee = g.grantee as { kind?: unknown; group?: unknown } | undefined;
    const isOwner = grantee?.kind === 'owner';
    const isGroup = grantee?.kind === 'group' && Object.hasOwn(GROUP_URIS, String(grantee.group));
    if (!isOwner && !isGroup) return bad();
  }
  return acl.canned === undefined ? { grants: acl.grants } : { canned: acl.canned, grants: acl.grants };
}
