// Small pieces every operation of the hostile harness shares: object paths, who signs, the early refusal drawn
// with a fault, the payload mode and aws-chunked faults of an upload, and how a write's answer settles its outcome.

import { uriEncode } from '../../../src/sigv4/canonical.js';
import { cutMayCommit, type FaultKind, type RequestShape } from './faults.js';
import type { Outcome, WriteAttempt } from './model.js';
import type { Answer, OpContext } from './op-context.js';
import type { Delivery } from './raw-client.js';
import type { Rng } from './rng.js';
import type { ChunkFaults, Identity, PayloadMode, S3WireInput } from './s3-wire.js';

/** `/bucket/key`, each key segment percent-encoded as SigV4 canonicalises it. */
export function objectPath(bucket: string, key: string): string {
  return `/${bucket}/${key.split('/').map(uriEncode).join('/')}`;
}

/** The scoped key (for the bucket it may use) now and then, else the root key. */
export function identityFor(ctx: OpContext, bucket: string, rng: Rng): Identity {
  return bucket === ctx.run.buckets.plain && rng.chance(0.3) ? ctx.run.scoped : ctx.run.root;
}

/** A payload mode for an upload: every mode S3 clients use. */
export function payloadFor(rng: Rng): PayloadMode {
  return rng.weighted({ signed: 2, unsigned: 2, chunked: 4, 'chunked-trailer': 1, 'chunked-signed-trailer': 2 });
}

/** The shape of an upload in `payload`, for applicableFaults(). */
export function uploadShape(payload: PayloadMode, size: number): RequestShape {
  const chunked = payload.startsWith('chunked');
  return {
    hasBody: size > 0 || chunked,
    signedChunks: payload === 'chunked' || payload === 'chunked-signed-trailer',
    trailer: payload.includes('trailer'),
    chunked,
    readsBody: false,
  };
}

/** The aws-chunked options of an upload of `size` bytes carrying `kind`. */
export function chunkOptions(rng: Rng, size: number, kind: FaultKind): NonNullable<S3WireInput['chunked']> {
  const chunkSize = rng.pick([4096, 65536, 65536, 65536, 1024 * 1024]);
  const chunks = Math.ceil(size / chunkSize);
  const faults: ChunkFaults = {};
  if (kind === 'bad-chunk-signature') faults.badChunk = rng.chance(0.5) ? 0 : rng.int(0, chunks);
  if (kind === 'bad-trailer-checksum') faults.badTrailerChecksum = true;
  if (kind === 'bad-trailer-signature') faults.badTrailerSignature = true;
  if (kind === 'decoded-length-larger') faults.decodedLengthDelta = rng.int(1, 256 * 1024);
  if (kind === 'decoded-length-smaller') faults.decodedLengthDelta = size > 0 ? -rng.int(1, size) : 1;
  return { chunkSize, algorithm: rng.pick(['CRC32', 'CRC32C', 'SHA256', 'SHA1', 'CRC64NVME'] as const), faults };
}

/** Bytes of framing after a body's last payload byte (see cutMayCommit). */
export function framingTailOf(payload: PayloadMode | 'form' | 'http-chunked' | 'raw'): number {
  if (payload === 'form') return 128;
  if (payload === 'http-chunked') return 16;
  return payload.startsWith('chunked') ? 320 : 0;
}

/**
 * Settles a write's outcome from its answer: a 2xx acknowledges it (unless `failedBody` says the 200 carries an
 * error, as CopyObject's and CompleteMultipartUpload's can), a 4xx refuses it, anything else leaves it unknown,
 * except a body cut before its payload was all sent, which can never have been stored.
 */
export function settle(
  attempt: WriteAttempt | undefined,
  answer: Answer,
  opts: { delivery: Delivery; bodyLength: number; framingTail: number; failedBody?: boolean },
): Outcome {
  let outcome: Outcome;
  if (answer.answersGarbage) {
    outcome = 'unknown';
  } else if (answer.response) {
    const s = answer.status;
    outcome =
      s >= 200 && s < 300 ? (opts.failedBody ? 'unknown' : 'acked') : s >= 400 && s < 500 ? 'refused' : 'unknown';
  } else if (
    opts.delivery.cut &&
    !cutMayCommit({ at: opts.delivery.cut.at, length: opts.bodyLength, framingTail: opts.framingTail })
  ) {
    outcome = 'refused';
  } else {
    outcome = 'unknown';
  }
  if (attempt) {
    attempt.outcome = outcome;
    attempt.answer = answer.response
      ? `${answer.status} ${answer.code ?? ''} request-id ${answer.requestId}`
      : `no answer (${answer.failure})`;
    const version = answer.response?.headers['x-amz-version-id'];
    if (outcome === 'acked' && version) attempt.versionId = version;
  }
  return outcome;
}
