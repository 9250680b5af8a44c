// Default bucket encryption (PutBucketEncryption) and the x-amz-server-side-encryption value. Store
// encrypts every object at rest with its own keys whatever the bucket says, so only SSE-S3 (AES256)
// can be honoured; SSE-KMS is refused rather than silently ignored.

import { AppError } from './errors.js';

export type SseAlgorithm = 'AES256';

/** Plain data: JSON.stringify and JSON.parse round-trip it. */
export interface BucketEncryption {
  sseAlgorithm: SseAlgorithm;
  /** Accepted and echoed; it means nothing without KMS. */
  bucketKeyEnabled?: boolean;
}

const KMS_ALGORITHMS = new Set(['aws:kms', 'aws:kms:dsse']);

/**
 * Reads an SSE algorithm name (a configuration's SSEAlgorithm or an x-amz-server-side-encryption
 * header). Throws AppError NotImplemented for `aws:kms` and `aws:kms:dsse` (no KMS here; 501 is not
 * retried by the SDKs), InvalidArgument for any other value but `AES256`.
 */
export function parseSseAlgorithm(value: string): SseAlgorithm {
  if (value === 'AES256') return value;
  if (KMS_ALGORITHMS.has(value)) {
    throw new AppError('NotImplemented', {
      message: `Server-side encryption with ${value} is not supported by this server; use AES256 (SSE-S3).`,
    });
  }
  throw new AppError('InvalidArgument', {
    message: 'The encryption method specified is not supported',
    details: { ArgumentName: 'x-amz-server-side-encryption', ArgumentValue: value },
  });
}

/** Checks a configuration (from XML or the admin API). Throws as parseSseAlgorithm, or InvalidArgument. */
export function validateBucketEncryption(config: BucketEncryption): void {
  parseSseAlgorithm(config.sseAlgorithm);
  if (config.bucketKeyEnabled !== undefined && typeof config.bucketKeyEnabled !== 'boolean') {
    throw new AppError('InvalidArgument', { message: 'BucketKeyEnabled must be true or false.' });
  }
}
