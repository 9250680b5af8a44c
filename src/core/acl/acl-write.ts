// Whether a bucket accepts an ACL a write asks for: its ownership setting (ACLs disabled under
// BucketOwnerEnforced) and its public access block (BlockPublicAcls).

import { AppError } from '../errors.js';
import { grantsToOthers, isPublicAcl, type Acl } from './acl.js';
import { aclsEnabled, type ObjectOwnership } from './ownership.js';
import type { PublicAccessBlock } from './public-access-block.js';

export interface AclWrite {
  /** The ACL the request asks for (undefined: it names none). */
  readonly acl: Acl | undefined;
  /** The bucket's stored ownership setting. */
  readonly ownership: ObjectOwnership | undefined;
  readonly publicAccessBlock: PublicAccessBlock | undefined;
}

/**
 * The ACL to store for a write: undefined when the request names none or ACLs are disabled (then only an owner-only
 * ACL is accepted, as AWS accepts bucket-owner-full-control). Throws AccessControlListNotSupported for any other ACL
 * on a BucketOwnerEnforced bucket, AccessDenied for a public ACL under BlockPublicAcls.
 */
export function aclToStore(write: AclWrite): Acl | undefined {
  const { acl } = write;
  if (acl === undefined) return undefined;
  if (!aclsEnabled(write.ownership)) {
    if (grantsToOthers(acl)) {
      throw new AppError('AccessControlListNotSupported', {
        message: 'The bucket does not allow ACLs: its object ownership is BucketOwnerEnforced.',
      });
    }
    return undefined;
  }
  if (write.publicAccessBlock?.blockPublicAcls === true && isPublicAcl(acl)) {
    throw new AppError('AccessDenied', {
      message: "Public ACLs are blocked by this bucket's BlockPublicAcls setting.",
    });
  }
  return acl;
}
