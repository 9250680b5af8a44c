// Streams a request body into a staged blob while computing its MD5 (the ETag) and any requested checksum,
// then checks every integrity expectation the client declared before anything can be committed.

import { createHash } from 'node:crypto';
import { AppError } from '../../core/errors.js';
import { checksumHeader, createChecksummer, type ChecksumAlgorithm } from '../../core/checksums.js';
import { localMd5, type AsyncHasher, type HashPool } from '../../lib/hash-pool.js';
import type { BlobStore, StagedBlob } from '../../storage/blobs/blob-store.js';
import type { WriteLease } from './write-reserve.js';

/** What a client declared about a body; everything declared is verified. */
export interface BodyInput {
  /** The payload bytes, already decoded from aws-chunked framing by the transport. */
  source: AsyncIterable<Buffer>;
  /** The exact size the client declared (Content-Length or x-amz-decoded-content-length), when it declared one. */
  size: number | undefined;
  /** Content-MD5, decoded. */
  contentMd5?: Buffer | undefined;
  /** x-amz-content-sha256 as hex, for signed payloads. */
  sha256?: string | undefined;
  /**
   * A flexible checksum to compute. `expected` is called after the body ends (so trailers work) and must then give
   * the value; without `expected` the checksum is only computed (server-side copies, an SDK that names no value).
   */
  checksum?: { algorithm: ChecksumAlgorithm; expected: (() => string | undefined) | undefined } | undefined;
}

export interface IngestedBody {
  staged: StagedBlob;
  size: number;
  md5: Buffer;
  /** The computed checksum (base64), when one was requested. */
  checksum: { algorithm: ChecksumAlgorithm; value: string } | undefined;
}

export interface IngestOptions {
  /** Store a body of at most INLINE_MAX_BYTES inline (`staged.sealed` set), for the committing transaction. */
  allowInline?: boolean;
  /** Threads for the MD5 of streamed bodies; without them it runs on this thread. */
  hashes?: HashPool | undefined;
  /**
   * The write's hold on the free-space reserve (WriteReserve.admit): every byte is charged to it as it arrives, and it
   * is released once the body is staged or discarded.
   */
  lease?: WriteLease | undefined;
}

/** Bodies up to this size are gathered in memory and written with one call (the small-object fast path). */
const SMALL_BODY_BYTES = 1024 * 1024;

/**
 * Object bodies up to this size are stored inline, sealed in the metadata database, when the caller allows it
 * (docs/decisions.md: "Inline small objects"): their bytes share the metadata commit's WAL fsync instead of paying
 * a file fsync and a directory fsync of their own.
 */
export const INLINE_MAX_BYTES = 64 * 1024;

/**
 * Stages a body as a blob and verifies it. On any failure the staged blob is discarded and the error rethrown:
 * IncompleteBody (fewer bytes than declared), InvalidRequest (more), EntityTooLarge (over maxSize),
 * BadDigest (Content-MD5 or checksum mismatch), XAmzContentSHA256Mismatch. With `allowInline`, a body of at most
 * INLINE_MAX_BYTES comes back as an inline blob (`staged.sealed` set), which the committing transaction must store.
 */
export async function ingestBody(
  blobs: BlobStore,
  input: BodyInput,
  opts: IngestOptions & { maxSize: number },
): Promise<IngestedBody> {
  try {
    return await ingest(blobs, input, opts);
  } finally {
    opts.lease?.release();
  }
}

async function ingest(
  blobs: BlobStore,
  input: BodyInput,
  opts: IngestOptions & { maxSize: number },
): Promise<IngestedBody> {
  const { maxSize } = opts;
  if (input.size !== undefined && input.size > maxSize) throw new AppError('EntityTooLarge');
  const small = input.size !== undefined && input.size <= SMALL_BODY_BYTES;
  // A streamed body's MD5 runs on a pool thread, beside the encryption and the socket reads on this one.
  const md5: AsyncHasher = !small && opts.hashes ? opts.hashes.md5() : localMd5();
  const sha256 = input.sha256 ? createHash('sha256') : undefined;
  const checksummer = input.checksum ? createChecksummer(input.checksum.algorithm) : undefined;
  let size = 0;
  const limit = input.size ?? maxSize;

  const observe = (chunk: Buffer): void => {
    size += chunk.length;
    if (size > limit) {
      throw input.size === undefined
        ? new AppError('EntityTooLarge')
        : new AppError('InvalidRequest', { message: 'The request body is longer than the declared content length.' });
    }
    opts.lease?.charge(chunk.length);
    sha256?.update(chunk);
    checksummer?.update(chunk);
  };

  let staged: StagedBlob;
  try {
    staged = await stage(blobs, input, {
      small,
      opts,
      observe: async (chunk) => {
        observe(chunk);
        await md5.update(chunk);
      },
    });
  } catch (err) {
    md5.discard();
    throw err;
  }

  try {
    if (input.size !== undefined && size < input.size) throw new AppError('IncompleteBody');
    const md5Digest = await md5.digest();
    if (input.contentMd5 && !md5Digest.equals(input.contentMd5)) throw new AppError('BadDigest');
    if (sha256 && sha256.digest('hex') !== input.sha256) throw new AppError('XAmzContentSHA256Mismatch');
    let checksum: IngestedBody['checksum'];
    if (input.checksum && checksummer) {
      const value = checksummer.digest().toString('base64');
      const expected = input.checksum.expected ? input.checksum.expected() : value;
      if (expected === undefined) {
        throw new AppError('InvalidRequest', {
          message: `The upload declared ${checksumHeader(input.checksum.algorithm)} but did not send its value.`,
        });
      }
      if (expected !== value) {
        throw new AppError('BadDigest', {
          message: `The ${input.checksum.algorithm} you specified did not match the calculated checksum.`,
        });
      }
      checksum = { algorithm: input.checksum.algorithm, value };
    }
    return { staged, size, md5: md5Digest, checksum };
  } catch (err) {
    md5.discard();
    await staged.discard();
    throw err;
  }
}

/**
 * Where a body's chunks go once `observe` has checked and hashed them: memory (then one write, or inline) or a stream.
 */
async function stage(
  blobs: BlobStore,
  input: BodyInput,
  how: { small: boolean; opts: IngestOptions; observe: (chunk: Buffer) => Promise<void> },
): Promise<StagedBlob> {
  const { small, opts, observe } = how;
  if (small) {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of input.source) {
      await observe(chunk);
      chunks.push(chunk);
      size += chunk.length;
    }
    const data = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size);
    // Sealed only once the body is complete and no longer than declared; the caller's checks still apply to it.
    return opts.allowInline && size <= INLINE_MAX_BYTES ? blobs.sealInline(data) : blobs.stageBuffer(data);
  }
  return blobs.stage(
    (async function* tap() {
      for await (const chunk of input.source) {
        await observe(chunk);
        yield chunk;
      }
    })(),
  );
}
