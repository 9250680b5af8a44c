// ACLs on writes (x-amz-acl, x-amz-grant-*) and PutBucketAcl / PutObjectAcl bodies. On a BucketOwnerEnforced bucket
// only ACLs that mean "the owner alone" are accepted; elsewhere the ACL is parsed (core/acl) and checked against the
// bucket's ownership and public access block (core/acl/acl-write.ts) before anything is written.

import type { IncomingMessage } from 'node:http';
import { resolveGrantee, type Acl } from '../../../core/acl/acl.js';
import { requestedAcl } from '../../../core/acl/acl-request.js';
import { aclToStore } from '../../../core/acl/acl-write.js';
import { aclsEnabled } from '../../../core/acl/ownership.js';
import type { BucketConfig } from '../../../core/bucket-config-parts.js';
import { AppError } from '../../../core/errors.js';
import { headerOf, type S3Context } from '../context.js';
import { parseAccessControlPolicy } from '../xml/acl.js';
import { childrenNamed, optionalLeaf, readXml } from '../xml/reader.js';

const ACCEPTED_CANNED_ACLS = new Set(['private', 'bucket-owner-full-control']);
const GRANT_HEADERS = [
  'x-amz-grant-read',
  'x-amz-grant-write',
  'x-amz-grant-read-acp',
  'x-amz-grant-write-acp',
  'x-amz-grant-full-control',
];

/**
 * Throws AccessControlListNotSupported for a canned ACL other than private / bucket-owner-full-control, or any grant.
 */
export function checkAcceptedAcl(req: IncomingMessage): void {
  checkOwnerOnlyAcl((name) => headerOf(req, name));
}

function checkOwnerOnlyAcl(header: (name: string) => string | undefined): void {
  const acl = header('x-amz-acl');
  if (acl !== undefined && !ACCEPTED_CANNED_ACLS.has(acl.trim())) {
    throw new AppError('AccessControlListNotSupported', {
      message: `The canned ACL ${acl} is not supported: the bucket's object ownership is BucketOwnerEnforced.`,
    });
  }
  if (GRANT_HEADERS.some((h) => header(h) !== undefined)) {
    throw new AppError('AccessControlListNotSupported', {
      message: "ACL grants are not supported: the bucket's object ownership is BucketOwnerEnforced.",
    });
  }
}

/**
 * A PutBucketAcl / PutObjectAcl body on a bucket with ACLs disabled. Without a canned ACL header a body is required
 * (MissingSecurityHeader, as S3), and the only grant accepted is FULL_CONTROL for the owner; anything else is
 * AccessControlListNotSupported.
 */
export function checkAclBody(body: Buffer, ownerId: string, hasCannedHeader: boolean): void {
  if (body.length === 0) {
    if (!hasCannedHeader)
      throw new AppError('MissingSecurityHeader', {
        message: 'Your request was missing a required header: x-amz-acl, or an ACL body.',
      });
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
      throw new AppError('AccessControlListNotSupported', {
        message: "ACL grants are not supported: the bucket's object ownership is BucketOwnerEnforced.",
      });
    }
  }
}

export interface WriteAclOptions {
  /** A request header, or the POST form field standing for it, by lower-case name. */
  readonly header: (name: string) => string | undefined;
  readonly ownerId: string;
  /** The target bucket's configuration (ownership controls and public access block). */
  readonly config: BucketConfig;
}

/**
 * The ACL a PutObject / CopyObject / CreateMultipartUpload / POST / CreateBucket asks to store (undefined: none, or
 * ACLs are disabled and the ACL means "the owner alone"). Throws AccessControlListNotSupported (ACLs disabled),
 * AccessDenied (BlockPublicAcls), InvalidArgument / UnresolvableGrantByEmailAddress (grantees), InvalidRequest.
 */
export function writeAcl(opts: WriteAclOptions): Acl | undefined {
  const ownership = opts.config.ownershipControls;
  if (!aclsEnabled(ownership)) {
    checkOwnerOnlyAcl(opts.header);
    return undefined;
  }
  const acl = requestedAcl({ header: opts.header, ownerId: opts.ownerId });
  return aclToStore({ acl, ownership, publicAccessBlock: opts.config.publicAccessBlock });
}

export interface PutAclOptions extends WriteAclOptions {
  /** The request body (empty when the ACL comes from headers). */
  readonly body: Buffer;
}

/**
 * The ACL of a PutBucketAcl / PutObjectAcl: from the headers or the AccessControlPolicy body (one of the two, as S3).
 * On a BucketOwnerEnforced bucket the ACL must be the owner's alone, and nothing is stored (returns undefined).
 * Throws MissingSecurityHeader (neither), UnexpectedContent (both), MalformedACLError, and writeAcl's errors.
 */
export function putAcl(opts: PutAclOptions): Acl | undefined {
  const hasHeaders = opts.header('x-amz-acl') !== undefined || GRANT_HEADERS.some((h) => opts.header(h) !== undefined);
  if (!aclsEnabled(opts.config.ownershipControls)) {
    writeAcl(opts);
    checkAclBody(opts.body, opts.ownerId, opts.header('x-amz-acl') !== undefined);
    return undefined;
  }
  if (opts.body.length === 0) {
    if (!hasHeaders)
      throw new AppError('MissingSecurityHeader', {
        message: 'Your request was missing a required header: x-amz-acl, or an ACL body.',
      });
    return writeAcl(opts);
  }
  if (hasHeaders)
    throw new AppError('UnexpectedContent', { message: 'This request does not support content with ACL headers.' });
  const grants = parseAccessControlPolicy(opts.body).map((g) => ({
    grantee: resolveGrantee(g.grantee, opts.ownerId),
    permission: g.permission,
  }));
  return aclToStore({
    acl: { grants },
    ownership: opts.config.ownershipControls,
    publicAccessBlock: opts.config.publicAccessBlock,
  });
}

/** writeAcl for a request's own headers on `bucket` (throws NoSuchBucket first, as S3 answers a missing bucket). */
export function requestAcl(ctx: Pick<S3Context, 'req' | 'owner' | 'services'>, bucket: string): Acl | undefined {
  const { config } = ctx.services.buckets.get(bucket);
  return writeAcl({ header: (name) => headerOf(ctx.req, name), ownerId: ctx.owner.id, config });
}
