// The server-side encryption headers of the writes that create an object (PutObject, CopyObject,
// CreateMultipartUpload). Every object is encrypted at rest with SSE-S3 whatever the request says, so only
// AES256 can be honoured; anything else is refused rather than silently ignored.

import type { IncomingMessage } from 'node:http';
import { parseSseAlgorithm, type SseAlgorithm } from '../../core/bucket-encryption.js';
import { AppError } from '../../core/errors.js';
import { headerOf } from './context.js';

const SSE_HEADER = 'x-amz-server-side-encryption';
const KMS_KEY_HEADER = 'x-amz-server-side-encryption-aws-kms-key-id';
/** SSE-C: customer-provided keys, on the object written and (CopyObject, UploadPartCopy) on the copy source. */
const CUSTOMER_KEY_HEADERS = [
  'x-amz-server-side-encryption-customer-algorithm',
  'x-amz-copy-source-server-side-encryption-customer-algorithm',
];

/**
 * Checks a write's encryption headers and returns the algorithm asked for (undefined when none was named).
 * `x-amz-server-side-encryption: AES256` is accepted; `aws:kms` and `aws:kms:dsse` are AppError NotImplemented
 * and any other value InvalidArgument (core/bucket-encryption parseSseAlgorithm); a KMS key id without aws:kms is
 * InvalidArgument, as S3 answers; SSE-C (customer keys) is NotImplemented.
 */
export function checkSseHeaders(req: IncomingMessage): SseAlgorithm | undefined {
  if (CUSTOMER_KEY_HEADERS.some((h) => req.headers[h] !== undefined)) {
    throw new AppError('NotImplemented', {
      message: 'Server-side encryption with customer-provided keys (SSE-C) is not supported; use AES256 (SSE-S3).',
    });
  }
  const value = headerOf(req, SSE_HEADER);
  const algorithm = value === undefined ? undefined : parseSseAlgorithm(value.trim());
  if (req.headers[KMS_KEY_HEADER] !== undefined) {
    throw new AppError('InvalidArgument', {
      message:
        'Server Side Encryption with AWS KMS managed key requires HTTP header x-amz-server-side-encryption : aws:kms',
      details: { ArgumentName: KMS_KEY_HEADER },
    });
  }
  return algorithm;
}
