// ACL headers on writes. Store has one owner and no ACLs (like S3's BucketOwnerEnforced): the canned ACLs that
// mean exactly that are accepted, anything granting access to others is refused rather than silently ignored.

import type { IncomingMessage } from 'node:http';
import { AppError } from '../../../core/errors.js';
import { headerOf } from '../context.js';
import { childrenNamed, optionalLeaf, readXml } from '../xml/reader.js';

const ACCEPTED_CANNED_ACLS = new Set(['private', 'bucket-owner-full-control']);
const GRANT_HEADERS = ['x-amz-grant-read', 'x-amz-grant-write', 'x-amz-grant-read-acp', 'x-amz-grant-write-acp', 'x-amz-grant-full-control'];

/** Throws AccessControlListNotSupported for a canned ACL other than private / bucket-owner-full-control, or any grant. */
export function checkAcceptedAcl(req: IncomingMessage): void {
  const acl = headerOf(req, 'x-amz-acl');
  if (acl !== undefined && !ACCEPTED_CANNED_ACLS.has(acl.trim())) {
    throw new AppError('AccessControlListNotSupported', { message: `The canned ACL ${acl} is not supported: Store enforces bucket-owner access only.` });
  }
  if (GRANT_HEADERS.some((h) => req.headers[h] !== undefined)) {
    throw new AppError('AccessControlListNotSupported', { message: 'ACL grants are not supported: Store enforces bucket-owner access only.' });
  }
}

/**
 * A PutBucketAcl / PutObjectAcl body. Without a canned ACL header a body is required (MissingSecurityHeader, as S3),
 * and the only grant Store can honour is FULL_CONTROL for the owner; anything else is AccessControlListNotSupported.
 */
export function checkAclBody(body: Buffer, ownerId: string, hasCannedHeader: boolean): void {
  if (body.length === 0) {
    if (!hasCannedHeader) throw new AppError('MissingSecurityHeader', { message: 'Your request was missing a required header: x-amz-acl, or an ACL body.' });
    return;
  }
  const root = readXml(body);
  if (!root || root.name !== 'AccessControlPolicy') throw new AppError('MalformedXML');
  const lists = childrenNamed(root, 'AccessControlList');
  const grants = lists.flatMap((list) => childrenNamed(list, 'Grant'));
  for (const grant of grants) {
    const grantee = childrenNamed(grant, 'Grantee')[0];
    const id = grantee ? optionalLeaf(grantee, 'ID') : undefined;
    if (optionalLeaf(grant, 'Permission') !== 'FULL_CONTROL' || id !== ownerId) {
      throw new AppError('AccessControlListNotSupported', { message: 'ACL grants are not supported: Store enforces bucket-owner access only.' });
    }
  }
}
