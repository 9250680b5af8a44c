// S3 Block Public Access per bucket (User Guide, "Blocking public access to your Amazon S3 storage"): four flags,
// each false when unset. Store has no account-level block: the bucket's configuration is the whole of it.

import { AppError } from '../errors.js';

export interface PublicAccessBlock {
  /** PUTs carrying a public ACL (bucket or object) are refused with AccessDenied. */
  readonly blockPublicAcls: boolean;
  /** Public ACL grants are not honoured when authorizing. */
  readonly ignorePublicAcls: boolean;
  /** PutBucketPolicy of a public policy is refused with AccessDenied. */
  readonly blockPublicPolicy: boolean;
  /** A public policy grants nothing to anonymous callers (only to the owner's own keys). */
  readonly restrictPublicBuckets: boolean;
}

export const PUBLIC_ACCESS_BLOCK_FLAGS = [
  'blockPublicAcls',
  'ignorePublicAcls',
  'blockPublicPolicy',
  'restrictPublicBuckets',
] as const;

/** Throws MalformedXML unless every flag is a boolean (unset flags are false). */
export function validatePublicAccessBlock(value: PublicAccessBlock): void {
  if (typeof value !== 'object' || value === null) throw new AppError('MalformedXML');
  for (const flag of PUBLIC_ACCESS_BLOCK_FLAGS) {
    if (typeof value[flag] !== 'boolean') throw new AppError('MalformedXML');
  }
}
