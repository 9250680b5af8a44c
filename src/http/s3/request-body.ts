// Turns a verified request's body into what the services consume: the decoded payload bytes plus every integrity
// expectation the client declared (Content-MD5, signed SHA-256, x-amz-checksum-* header or trailer).

import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import {
  CHECKSUM_ALGORITHMS,
  checksumHeader,
  computeChecksum,
  parseChecksumAlgorithm,
  type ChecksumAlgorithm,
} from '../../core/checksums.js';
import { AppError } from '../../core/errors.js';
import { parseContentMd5 } from '../../core/etag.js';
import type { BodyInput } from '../../services/objects/body-ingest.js';
import { createChunkedDecoder } from '../../sigv4/chunked-decoder.js';
import type { VerifiedRequest } from '../../sigv4/types.js';
import { requestBytes } from '../shared/request-bytes.js';

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(',') : value;
}

/** The declared payload length: x-amz-decoded-content-length for aws-chunked bodies, else Content-Length. */
function declaredSize(req: IncomingMessage, auth: VerifiedRequest): number | undefined {
  const raw =
    auth.payload.kind === 'chunked' ? header(req, 'x-amz-decoded-content-length') : header(req, 'content-length');
  if (raw === undefined) return undefined;
  if (!/^\d{1,16}$/.test(raw)) {
    throw new AppError('InvalidArgument', {
      message: 'The content length is not a valid number.',
      details: { ArgumentName: 'Content-Length' },
    });
  }
  return Number(raw);
}

/**
 * Which flexible checksum the client sent for the body, and where its value comes from. With `headers: false` the
 * x-amz-checksum-* headers describe something else (CompleteMultipartUpload: the object) and only a trailer counts.
 */
function declaredChecksum(
  req: IncomingMessage,
  trailerValue: (name: string) => string | undefined,
  opts: { headers: boolean } = { headers: true },
): BodyInput['checksum'] {
  const inHeaders = opts.headers
    ? CHECKSUM_ALGORITHMS.filter((alg) => req.headers[checksumHeader(alg)] !== undefined)
    : [];
  if (inHeaders.length > 1)
    throw new AppError('InvalidRequest', {
      message: 'Expecting a single x-amz-checksum- header. Multiple checksum Types are not allowed.',
    });
  const trailer = header(req, 'x-amz-trailer')?.trim().toLowerCase();
  const sdkAlgorithm = header(req, 'x-amz-sdk-checksum-algorithm');
  if (inHeaders.length === 1) {
    const algorithm = inHeaders[0] as ChecksumAlgorithm;
    if (sdkAlgorithm !== undefined && parseChecksumAlgorithm(sdkAlgorithm) !== algorithm) {
      throw new AppError('InvalidRequest', { message: 'Value for x-amz-sdk-checksum-algorithm header is invalid.' });
    }
    const value = header(req, checksumHeader(algorithm));
    return { algorithm, expected: () => value };
  }
  if (trailer !== undefined && trailer !== '') {
    const algorithm = CHECKSUM_ALGORITHMS.find((alg) => checksumHeader(alg) === trailer);
    if (!algorithm)
      throw new AppError('InvalidRequest', {
        message: `The value specified in the x-amz-trailer header is not supported: ${trailer}`,
      });
    return { algorithm, expected: () => trailerValue(trailer) };
  }
  if (sdkAlgorithm !== undefined) {
    // The SDK names an algorithm but sends the value nowhere: compute it and store it (nothing to compare).
    return { algorithm: parseChecksumAlgorithm(sdkAlgorithm), expected: undefined };
  }
  return undefined;
}

/**
 * The request body as a BodyInput. For aws-chunked bodies the chunk signatures are verified as the bytes are read
 * (an error surfaces from the source while the body streams); trailer checksums are read once it has ended.
 * A body framed by `Transfer-Encoding: chunked` may declare no length (MinIO and RGW take it too; the size is what
 * arrives, within the operation's limit). Throws MissingContentLength when a body has neither a length nor chunked
 * framing, InvalidDigest for a malformed Content-MD5.
 */
export function bodyInput(req: IncomingMessage, auth: VerifiedRequest): BodyInput {
  const size = declaredSize(req, auth);
  if (size === undefined && !/\bchunked\b/i.test(header(req, 'transfer-encoding') ?? ''))
    throw new AppError('MissingContentLength');
  const md5Header = header(req, 'content-md5');
  const contentMd5 = md5Header === undefined ? undefined : parseContentMd5(md5Header);
  const payload = auth.payload;
  if (payload.kind !== 'chunked') {
    const checksum = declaredChecksum(req, () => undefined);
    return {
      source: requestBytes(req),
      size,
      contentMd5,
      sha256: payload.kind === 'signed' ? payload.sha256 : undefined,
      checksum,
    };
  }
  const { source, trailers } = payloadOf(req, auth);
  const checksum = declaredChecksum(req, (name) => trailers.get(name));
  return { source, size, contentMd5, checksum };
}

/**
 * The payload bytes of a request: the request itself, or an aws-chunked decoder over it that verifies chunk
 * signatures as it is read; its trailers are filled in once the body has ended.
 */
function payloadOf(
  req: IncomingMessage,
  auth: VerifiedRequest,
): { source: AsyncIterable<Buffer>; trailers: Map<string, string> } {
  if (auth.payload.kind !== 'chunked') return { source: requestBytes(req), trailers: new Map() };
  const decoder = createChunkedDecoder({
    signed: auth.payload.signedChunks,
    context: auth.chunkContext,
    hasTrailer: auth.payload.hasTrailer,
  });
  // The decoder may fail (a chunk signature that does not match) before anyone reads it: the handler can still be
  // checking the bucket or the free space, or have failed already. Its failure reaches the reader through iteration
  // (an errored stream rejects its iterator); this listener only keeps an unread failure from being an unhandled
  // 'error' event, which would end the process. Not `pipeline`: it would destroy the request, and with it the socket
  // the error response is sent on.
  decoder.on('error', ignoreUnreadFailure);
  req.on('error', (err) => decoder.destroy(err));
  req.pipe(decoder);
  return { source: decoder, trailers: decoder.trailers };
}

function ignoreUnreadFailure(): void {
  // Intentionally empty: see payloadOf.
}

/**
 * Reads a small request body (an XML document) into memory, whatever its payload mode, and verifies everything
 * the client declared about it: the signed SHA-256, Content-MD5, and a flexible checksum header or trailer.
 * `checksumHeaders: 'object'` says the x-amz-checksum-* headers describe the object being completed, not this body.
 * Throws MaxMessageLengthExceeded over `limit` bytes (declared or read), InvalidDigest, BadDigest,
 * XAmzContentSHA256Mismatch.
 */
export async function readSmallPayload(
  { req, auth }: { req: IncomingMessage; auth: VerifiedRequest },
  limit: number,
  opts: { checksumHeaders?: 'body' | 'object' } = {},
): Promise<Buffer> {
  // A declared length over the limit is refused before a byte of the body is read.
  const declared = declaredSize(req, auth);
  if (declared !== undefined && declared > limit) throw new AppError('MaxMessageLengthExceeded');
  const { source, trailers } = payloadOf(req, auth);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of source) {
    size += chunk.length;
    if (size > limit) throw new AppError('MaxMessageLengthExceeded');
    chunks.push(chunk);
  }
  const body = Buffer.concat(chunks, size);
  if (auth.payload.kind === 'signed' && createHash('sha256').update(body).digest('hex') !== auth.payload.sha256) {
    throw new AppError('XAmzContentSHA256Mismatch');
  }
  const md5Header = header(req, 'content-md5');
  if (md5Header !== undefined && !parseContentMd5(md5Header).equals(createHash('md5').update(body).digest())) {
    throw new AppError('BadDigest');
  }
  const checksum = declaredChecksum(req, (name) => trailers.get(name), { headers: opts.checksumHeaders !== 'object' });
  const expected = checksum?.expected?.();
  if (checksum && expected !== undefined && computeChecksum(checksum.algorithm, body).toString('base64') !== expected) {
    throw new AppError('BadDigest', {
      message: `The ${checksum.algorithm} you specified did not match the calculated checksum.`,
    });
  }
  return body;
}
