// SigV4 signing keys (HMAC chain, memoised), signatures, constant-time comparison, and the strings
// to sign of aws-chunked payload chunks and trailers.
// https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-streaming.html
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { ChunkSigningContext } from './types.js';
import { EMPTY_SHA256 } from './canonical.js';

// A key is valid for one (secret, day, region, service); every request of the day reuses it, so the
// four HMACs run once per key and day instead of once per request. Bounded: oldest entry evicted.
const MAX_CACHED_KEYS = 256;
const keyCache = new Map<string, Buffer>();

function hmac(key: Buffer | string, data: string): Buffer {
  return createHmac('sha256', key).update(data, 'utf8').digest();
}

/**
 * kSigning = HMAC(HMAC(HMAC(HMAC("AWS4" + secret, date), region), service), "aws4_request").
 * The returned Buffer is shared through the cache: callers must not modify it.
 */
export function deriveSigningKey(secret: string, date: string, region: string, service: string): Buffer {
  const cacheKey = `${date}\n${region}\n${service}\n${secret}`;
  const cached = keyCache.get(cacheKey);
  if (cached !== undefined) return cached;
  const key = hmac(hmac(hmac(hmac(`AWS4${secret}`, date), region), service), 'aws4_request');
  if (keyCache.size >= MAX_CACHED_KEYS) {
    const oldest = keyCache.keys().next();
    if (oldest.done !== true) keyCache.delete(oldest.value);
  }
  keyCache.set(cacheKey, key);
  return key;
}

/** The signature (raw 32 bytes) of a string to sign. */
export function signatureBytes(signingKey: Buffer, toSign: string): Buffer {
  return hmac(signingKey, toSign);
}

/** The signature, lower-case hex. */
export function signatureHex(signingKey: Buffer, toSign: string): string {
  return signatureBytes(signingKey, toSign).toString('hex');
}

const SIGNATURE_HEX = /^[0-9a-fA-F]{64}$/;

/**
 * Compares a computed signature with the hex one the client sent, in constant time. The shape check
 * first only depends on the client's own input, so it leaks nothing about the expected value.
 */
export function signatureMatches(expected: Buffer, provided: string): boolean {
  if (!SIGNATURE_HEX.test(provided)) return false;
  return timingSafeEqual(expected, Buffer.from(provided, 'hex'));
}

/** String to sign of one aws-chunked chunk; `dataSha256` is the hex SHA-256 of the chunk's data. */
export function chunkStringToSign(ctx: ChunkSigningContext, previousSignature: string, dataSha256: string): string {
  return `AWS4-HMAC-SHA256-PAYLOAD\n${ctx.amzDate}\n${ctx.scope}\n${previousSignature}\n${EMPTY_SHA256}\n${dataSha256}`;
}

/** String to sign of the trailer; `trailerSha256` hashes the trailer lines, each `name:value\n`. */
export function trailerStringToSign(ctx: ChunkSigningContext, previousSignature: string, trailerSha256: string): string {
  return `AWS4-HMAC-SHA256-TRAILER\n${ctx.amzDate}\n${ctx.scope}\n${previousSignature}\n${trailerSha256}`;
}
