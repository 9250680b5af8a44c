// What x-amz-content-sha256 says about the body: a hash to check, unsigned, or aws-chunked framing.
// https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-auth-using-authorization-header.html
import { AppError } from '../core/errors.js';
import type { PayloadMode } from './types.js';

const STREAMING = new Map([
  ['STREAMING-AWS4-HMAC-SHA256-PAYLOAD', { signedChunks: true, hasTrailer: false }],
  ['STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER', { signedChunks: true, hasTrailer: true }],
  ['STREAMING-UNSIGNED-PAYLOAD-TRAILER', { signedChunks: false, hasTrailer: true }],
]);
const SHA256_HEX = /^[0-9a-fA-F]{64}$/;

function invalid(header: string, message: string): AppError {
  return new AppError('InvalidArgument', { message, details: { ArgumentName: header } });
}

/**
 * Classifies an x-amz-content-sha256 value. Throws InvalidArgument for anything S3 does not accept
 * (including the SigV4a ECDSA streaming modes, which Store does not implement) and for a malformed
 * x-amz-decoded-content-length.
 */
export function payloadModeOf(contentSha256: string, decodedContentLength: string | undefined): PayloadMode {
  if (contentSha256 === 'UNSIGNED-PAYLOAD') return { kind: 'unsigned' };
  if (SHA256_HEX.test(contentSha256)) return { kind: 'signed', sha256: contentSha256.toLowerCase() };
  const streaming = STREAMING.get(contentSha256);
  if (streaming === undefined) {
    throw invalid(
      'x-amz-content-sha256',
      'x-amz-content-sha256 must be UNSIGNED-PAYLOAD, STREAMING-UNSIGNED-PAYLOAD-TRAILER, STREAMING-AWS4-HMAC-SHA256-PAYLOAD, STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER or a valid sha256 value.',
    );
  }
  let decodedLength: number | undefined;
  if (decodedContentLength !== undefined) {
    if (!/^\d{1,15}$/.test(decodedContentLength.trim())) {
      throw invalid('x-amz-decoded-content-length', 'x-amz-decoded-content-length must be a non-negative integer.');
    }
    decodedLength = Number(decodedContentLength.trim());
  }
  return { kind: 'chunked', ...streaming, decodedLength };
}
