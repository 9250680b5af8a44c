// The ACL a write request asks for: the x-amz-acl canned header or the x-amz-grant-* headers (never both), as an
// Acl for core/acl/acl.ts. Header syntax (PutObjectAcl API reference): `x-amz-grant-read: id="...", uri="..."`.

import { AppError } from '../errors.js';
import { cannedAcl, resolveGrantee, type Acl, type AclGrant, type AclPermission, type GranteeRef } from './acl.js';

export const GRANT_HEADERS: Readonly<Record<string, AclPermission>> = {
  'x-amz-grant-read': 'READ',
  'x-amz-grant-write': 'WRITE',
  'x-amz-grant-read-acp': 'READ_ACP',
  'x-amz-grant-write-acp': 'WRITE_ACP',
  'x-amz-grant-full-control': 'FULL_CONTROL',
};

const GRANTEE_ENTRY = /^\s*(id|emailAddress|uri)\s*=\s*(?:"([^"]*)"|([^\s,"]+))\s*$/i;

/** One grant header's value as grantee references. Throws InvalidArgument when it does not parse. */
export function parseGrantHeader(name: string, value: string): GranteeRef[] {
  const entries = value.split(',').filter((part) => part.trim() !== '');
  if (entries.length === 0) throw invalidGrant(name, value);
  return entries.map((entry) => {
    const match = GRANTEE_ENTRY.exec(entry);
    if (!match) throw invalidGrant(name, value);
    const type =
      match[1]!.toLowerCase() === 'emailaddress' ? 'emailAddress' : (match[1]!.toLowerCase() as 'id' | 'uri');
    return { type, value: match[2] ?? match[3] ?? '' };
  });
}

function invalidGrant(name: string, value: string): AppError {
  return new AppError('InvalidArgument', {
    message: `${name} is not a valid grant list.`,
    details: { ArgumentName: name, ArgumentValue: value },
  });
}

export interface AclRequestOptions {
  /** A request header (or POST form field standing for it) by lower-case name. */
  readonly header: (name: string) => string | undefined;
  /** The owner's canonical id: the one canonical user a grant may name. */
  readonly ownerId: string;
}

/**
 * The ACL a request sets, or undefined when it names none. Throws InvalidRequest for a canned ACL together with
 * grant headers (S3: "Specifying both a canned ACL and explicit grants is not allowed"), InvalidArgument for an
 * unknown canned ACL or grantee, UnresolvableGrantByEmailAddress for an email grantee.
 */
export function requestedAcl(opts: AclRequestOptions): Acl | undefined {
  const canned = opts.header('x-amz-acl');
  const grantHeaders = Object.keys(GRANT_HEADERS).filter((name) => opts.header(name) !== undefined);
  if (canned !== undefined && grantHeaders.length > 0) {
    throw new AppError('InvalidRequest', { message: 'Specifying both Canned ACLs and Header Grants is not allowed' });
  }
  if (canned !== undefined) return cannedAcl(canned);
  if (grantHeaders.length === 0) return undefined;
  const grants: AclGrant[] = [];
  for (const name of grantHeaders) {
    for (const ref of parseGrantHeader(name, opts.header(name) ?? '')) {
      grants.push({ grantee: resolveGrantee(ref, opts.ownerId), permission: GRANT_HEADERS[name]! });
    }
  }
  return { grants };
}

/** True when the request carries x-amz-acl or any x-amz-grant-* header. */
export function hasAclHeaders(header: (name: string) => string | undefined): boolean {
  return header('x-amz-acl') !== undefined || Object.keys(GRANT_HEADERS).some((name) => header(name) !== undefined);
}
