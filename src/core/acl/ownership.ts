// S3 Object Ownership (User Guide, "Controlling ownership of objects and disabling ACLs"): BucketOwnerEnforced
// disables ACLs; BucketOwnerPreferred and ObjectWriter enable them. Store has one owner, so the two enabling
// settings behave alike: what they change in AWS (who owns an object another account writes) cannot arise here.

import { AppError } from '../errors.js';

export const OBJECT_OWNERSHIPS = ['BucketOwnerEnforced', 'BucketOwnerPreferred', 'ObjectWriter'] as const;
export type ObjectOwnership = (typeof OBJECT_OWNERSHIPS)[number];

/** Throws InvalidArgument unless `value` is one of the three settings. */
export function parseObjectOwnership(value: string, argumentName = 'x-amz-object-ownership'): ObjectOwnership {
  if ((OBJECT_OWNERSHIPS as readonly string[]).includes(value)) return value as ObjectOwnership;
  throw new AppError('InvalidArgument', {
    message: `Invalid ${argumentName}: ${value}`,
    details: { ArgumentName: argumentName, ArgumentValue: value },
  });
}

/**
 * A bucket's effective setting. A bucket without ownership controls behaves as AWS's buckets made before the
 * setting existed, ObjectWriter (DeleteBucketOwnershipControls does that); migration 14 gave every bucket made by an
 * older Store BucketOwnerEnforced, which is how it behaved.
 */
export function effectiveOwnership(stored: ObjectOwnership | undefined): ObjectOwnership {
  return stored ?? 'ObjectWriter';
}

/** ACLs take part in authorization (and may be set) unless the bucket owner enforces ownership. */
export function aclsEnabled(stored: ObjectOwnership | undefined): boolean {
  return effectiveOwnership(stored) !== 'BucketOwnerEnforced';
}
