// Per-bucket hard quotas (docs/quotas.md): the configuration part's shape and validation, and the one rule every
// write is checked by. Bytes count every stored version and the parts of open multipart uploads; objects count the
// bucket's current objects (what a listing shows). Pure: the services read usage and call these.

import { AppError } from './errors.js';

/** A bucket's quota: either limit may be absent (unlimited); an empty quota is no quota. */
export interface BucketQuota {
  /** Bytes of every version and of every uploaded part of open multipart uploads. */
  maxBytes?: number;
  /** Current objects (delete markers and noncurrent versions excluded). */
  maxObjects?: number;
}

/** What a quota is checked against: usage as committed, or committed plus what writes in flight hold. */
export interface QuotaUsage {
  bytes: number;
  objects: number;
}

/** The largest limit accepted (2^53 - 1: an exact integer in JSON and in SQLite). */
export const MAX_QUOTA_LIMIT = Number.MAX_SAFE_INTEGER;

/**
 * Validates a quota as the admin API and a backup's manifest give it. Throws ValidationError for a limit that is not
 * a whole number from 0 to MAX_QUOTA_LIMIT, an unknown field, or a quota with no limit (clear it instead).
 */
export function validateBucketQuota(quota: BucketQuota): void {
  if (typeof quota !== 'object' || quota === null || Array.isArray(quota)) {
    throw invalid('A quota must be an object with maxBytes and/or maxObjects.');
  }
  for (const field of Object.keys(quota)) {
    if (field !== 'maxBytes' && field !== 'maxObjects') throw invalid(`A quota has no field ${field}.`);
  }
  for (const field of ['maxBytes', 'maxObjects'] as const) {
    const limit = quota[field];
    if (limit === undefined) continue;
    if (!Number.isSafeInteger(limit) || limit < 0) {
      throw invalid(`${field} must be a whole number from 0 to ${MAX_QUOTA_LIMIT}.`);
    }
  }
  if (quota.maxBytes === undefined && quota.maxObjects === undefined) {
    throw invalid('A quota needs maxBytes or maxObjects; clear the quota to remove both.');
  }
}

function invalid(message: string): AppError {
  return new AppError('ValidationError', { message });
}

/** True when the bucket's quota limits anything. */
export function hasQuota(quota: BucketQuota | undefined): quota is BucketQuota {
  return quota !== undefined && (quota.maxBytes !== undefined || quota.maxObjects !== undefined);
}

/**
 * Which limit a write would break: it takes usage from `before` to `after`, and is refused when a count it raises
 * ends over its limit. A write that raises nothing (an overwrite no larger than what it replaces) always passes,
 * even in a bucket already over a quota lowered under its usage, so room can still be made.
 */
export function quotaBreach(
  quota: BucketQuota,
  change: { before: QuotaUsage; after: QuotaUsage },
): 'bytes' | 'objects' | undefined {
  const { before, after } = change;
  if (quota.maxBytes !== undefined && after.bytes > before.bytes && after.bytes > quota.maxBytes) return 'bytes';
  if (quota.maxObjects !== undefined && after.objects > before.objects && after.objects > quota.maxObjects) {
    return 'objects';
  }
  return undefined;
}

/** QuotaExceeded (403) for the bucket, saying which limit a write would pass. */
export function quotaExceeded(bucket: string, limit: 'bytes' | 'objects', quota: BucketQuota): AppError {
  const message =
    limit === 'bytes'
      ? `The write would take bucket ${bucket} over its quota of ${quota.maxBytes} bytes.`
      : `The write would take bucket ${bucket} over its quota of ${quota.maxObjects} objects.`;
  return new AppError('QuotaExceeded', {
    message,
    resource: `/${bucket}`,
    details: { BucketName: bucket, QuotaLimit: limit },
  });
}
