// Builds the harness's S3 requests as wire bytes, SigV4-signed with the project's signer in each payload mode a
// client may use: a signed SHA-256, UNSIGNED-PAYLOAD, signed aws-chunked, and aws-chunked with a checksum trailer
// (unsigned or signed). The aws-chunked faults (a wrong chunk signature, a wrong trailer checksum or trailer
// signature, a lying decoded length) are made here, where the framing is known.

import { computeChecksum, checksumHeader, type ChecksumAlgorithm } from '../../../src/core/checksums.js';
import { chunkContextFromHeaders, encodeAwsChunked } from '../../../src/sigv4/chunked-encoder.js';
import type { RunningServer } from '../server.js';
import { sha256Hex, signedHeaders } from '../signed-http.js';
import type { WireRequest } from './raw-client.js';

export type PayloadMode = 'signed' | 'unsigned' | 'chunked' | 'chunked-trailer' | 'chunked-signed-trailer';

/** Who signs: the root key or a scoped key. */
export interface Identity {
  accessKeyId: string;
  secretAccessKey: string;
}

/** What an aws-chunked body gets wrong (nothing set: a correct body). */
export interface ChunkFaults {
  /** The index of the chunk (the final, empty one counts) whose signature is wrong. */
  badChunk?: number;
  badTrailerChecksum?: boolean;
  badTrailerSignature?: boolean;
  /** Added to the true payload length in x-amz-decoded-content-length (negative: a smaller lie). */
  decodedLengthDelta?: number;
}

export interface S3WireInput {
  method: string;
  /** Path and query, percent-encoded as sent. */
  path: string;
  headers?: Record<string, string>;
  body?: Buffer;
  payload?: PayloadMode;
  identity: Identity;
  /** aws-chunked only: bytes per chunk, the trailer's checksum algorithm, the faults. */
  chunked?: { chunkSize: number; algorithm: ChecksumAlgorithm; faults: ChunkFaults };
}

const STREAMING: Record<Exclude<PayloadMode, 'signed' | 'unsigned'>, string> = {
  chunked: 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD',
  'chunked-trailer': 'STREAMING-UNSIGNED-PAYLOAD-TRAILER',
  'chunked-signed-trailer': 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER',
};

/** A signed S3 request, its body encoded as `payload` says. */
export function s3Wire(server: RunningServer, input: S3WireInput): WireRequest {
  const body = input.body ?? Buffer.alloc(0);
  const payload = input.payload ?? 'signed';
  const sign = { accessKeyId: input.identity.accessKeyId, secretAccessKey: input.identity.secretAccessKey };
  if (payload === 'signed' || payload === 'unsigned') {
    const headers = signedHeaders(server, {
      method: input.method,
      path: input.path,
      headers: { ...input.headers, 'content-length': String(body.length) },
      sign: { ...sign, payloadHash: payload === 'signed' ? sha256Hex(body) : 'UNSIGNED-PAYLOAD' },
    });
    return { method: input.method, path: input.path, headers: Object.entries(headers), body };
  }
  return chunkedWire(server, { ...input, body, payload }, sign);
}

function chunkedWire(
  server: RunningServer,
  input: S3WireInput & { body: Buffer; payload: keyof typeof STREAMING },
  sign: Identity,
): WireRequest {
  const opts = input.chunked ?? { chunkSize: 64 * 1024, algorithm: 'CRC32' as const, faults: {} };
  const faults = opts.faults;
  const hasTrailer = input.payload !== 'chunked';
  const signed = input.payload !== 'chunked-trailer';
  const trailerName = checksumHeader(opts.algorithm);
  const trailers = hasTrailer
    ? { [trailerName]: trailerValue(opts.algorithm, input.body, faults.badTrailerChecksum === true) }
    : undefined;
  const encode = (context?: Parameters<typeof encodeAwsChunked>[0]['context']): Buffer =>
    encodeAwsChunked({
      data: input.body,
      chunkSize: opts.chunkSize,
      ...(context ? { context } : {}),
      ...(trailers ? { trailers } : {}),
    });
  // The encoded length does not depend on the signatures' values: measure it with a dummy context.
  const dummy = {
    signingKey: Buffer.alloc(32),
    seedSignature: '0'.repeat(64),
    amzDate: '20250101T000000Z',
    scope: 'x',
  };
  const length = encode(signed ? dummy : undefined).length;
  const headers = signedHeaders(server, {
    method: input.method,
    path: input.path,
    headers: {
      ...input.headers,
      'content-encoding': 'aws-chunked',
      'x-amz-decoded-content-length': String(input.body.length + (faults.decodedLengthDelta ?? 0)),
      'content-length': String(length),
      ...(hasTrailer ? { 'x-amz-trailer': trailerName } : {}),
    },
    sign: { ...sign, payloadHash: STREAMING[input.payload] },
  });
  let encoded = encode(signed ? chunkContextFromHeaders(headers, sign.secretAccessKey) : undefined);
  if (signed && faults.badChunk !== undefined) encoded = tamperChunkSignature(encoded, faults.badChunk);
  if (signed && hasTrailer && faults.badTrailerSignature) encoded = tamperAfter(encoded, 'x-amz-trailer-signature:');
  return { method: input.method, path: input.path, headers: Object.entries(headers), body: encoded };
}

function trailerValue(algorithm: ChecksumAlgorithm, body: Buffer, wrong: boolean): string {
  const digest = computeChecksum(algorithm, body);
  if (wrong) digest[0] = (digest[0] ?? 0) ^ 0xff;
  return digest.toString('base64');
}

/** Flips one hex digit of the signature of chunk `index` (clamped to the last chunk), walking the framing. */
export function tamperChunkSignature(encoded: Buffer, index: number): Buffer {
  const out = Buffer.from(encoded);
  let at = 0;
  for (let n = 0; ; n++) {
    const lineEnd = out.indexOf('\r\n', at);
    const line = out.subarray(at, lineEnd).toString('latin1');
    const size = parseInt(line, 16);
    const sig = line.indexOf('chunk-signature=');
    if (n >= index || size === 0) {
      flipHex(out, at + sig + 'chunk-signature='.length);
      return out;
    }
    at = lineEnd + 2 + size + 2;
  }
}

/** Flips the first hex digit after the last occurrence of `marker`. */
function tamperAfter(encoded: Buffer, marker: string): Buffer {
  const out = Buffer.from(encoded);
  flipHex(out, out.lastIndexOf(marker) + marker.length);
  return out;
}

function flipHex(buf: Buffer, at: number): void {
  buf[at] = buf[at] === 0x30 ? 0x31 : 0x30;
}
