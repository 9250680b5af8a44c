// Whether a bucket is public, and why: its policy (unless RestrictPublicBuckets) or its ACL (unless ACLs are disabled
// or IgnorePublicAcls). One answer for GetBucketPolicyStatus and the admin API's bucket details.

import type { BucketConfig } from '../bucket-config-parts.js';
import type { PolicyDocument } from '../policy/model.js';
import { isPublic } from '../policy/policy-status.js';
import { isPublicAcl } from './acl.js';
import { aclsEnabled } from './ownership.js';

export type PublicReason = 'policy' | 'acl';

export interface BucketPublicity {
  readonly isPublic: boolean;
  /** What makes it public, in this order; empty when it is not. */
  readonly reasons: readonly PublicReason[];
}

/** `policy` is the bucket's parsed policy (undefined: none, or one that no longer parses, which grants nothing). */
export function bucketPublicity(config: BucketConfig, policy: PolicyDocument | undefined): BucketPublicity {
  const block = config.publicAccessBlock;
  const reasons: PublicReason[] = [];
  if (policy !== undefined && block?.restrictPublicBuckets !== true && isPublic(policy)) reasons.push('policy');
  if (aclsEnabled(config.ownershipControls) && block?.ignorePublicAcls !== true && isPublicAcl(config.acl))
    reasons.push('acl');
  return { isPublic: reasons.length > 0, reasons };
}
