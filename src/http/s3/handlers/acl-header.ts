// ACL headers on writes. Store has one owner and no ACLs (like S3's BucketOwnerEnforced): the canned ACLs that
// mean exactly that are accepted, anything granting access to others is refused rather than silently ignored.

import type { IncomingMessage } from 'node:http';
import { AppError } from '../../../core/errors.js';
import { headerOf } from '../context.js';

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
