// SigV4 signing keys (HMAC chain, memoised), signatures, constant-time comparison, and the strings
// to sign of aws-chunked payload chunks and trailers.
// https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-streaming.html
import { timingSafeEqual } from 'node:crypto';
import type { ChunkSigningContext } from './types.js';
import { EMPTY_SHA256, sha256Bytes } from './canonical.js';

// A key is valid for one (secret, day, region, service); every request of the day reuses it, so the
// four HMACs run once per key and day instead of once per request. Bounded: oldest entry evicted.
const MAX_CACHED_KEYS = 256;
const keyCache = new Map<string, Buffer>();

/** SHA-256's block size: RFC 2104 pads (or first hashes) the key to it. */
const BLOCK = 64;
const DIGEST = 32;

/**
 * A key's two RFC 2104 pads, side by side with room after each for what is hashed under it: `inner` is
 * (K xor ipad) followed by scratch space for the message, `outer` is (K xor opad) followed by the inner digest.
 */
interface Pads {
  inner: Buffer;
  outer: Buffer;
}

/**
 * Signing keys are shared Buffers from keyCache (and a chunked upload's context), so their pads are kept beside them.
 */
const padsOfKey = new WeakMap<Buffer, Pads>();
/** Room for a string to sign (about 150 bytes) or a chunk's; longer messages get a buffer of their own. */
const SCRATCH = 1024;

function padsOf(key: Buffer | string): Pads {
  const cached = typeof key === 'string' ? undefined : padsOfKey.get(key);
  if (cached !== undefined) return cached;
  let k = typeof key === 'string' ? Buffer.from(key, 'utf8') : key;
  if (k.length > BLOCK) k = sha256Bytes(k);
  const inner = Buffer.alloc(BLOCK + SCRATCH, 0x36);
  const outer = Buffer.alloc(BLOCK + DIGEST, 0x5c);
  for (let i = 0; i < k.length; i++) {
    inner[i] = (inner[i] as number) ^ (k[i] as number);
    outer[i] = (outer[i] as number) ^ (k[i] as number);
  }
  const pads = { inner, outer };
  if (typeof key !== 'string') padsOfKey.set(key, pads);
  return pads;
}

/**
 * HMAC-SHA256 (RFC 2104) as two one-shot digests over the key's precomputed pads: H((K^opad) || H((K^ipad) || data)).
 * An Hmac object per signature (createHmac) cost a signed request more CPU than both digests together
 * (docs/performance.md, "the per-request CPU of every signed request"). The pads' scratch space is only used
 * synchronously, so reusing it is safe. Where Node has no one-shot digest, sha256Bytes falls back to a Hash object and
 * this stays correct.
 */
function hmac(key: Buffer | string, data: string): Buffer {
  const { inner, outer } = padsOf(key);
  let message: Buffer;
  // UTF-8 takes at most three bytes per UTF-16 unit, so a string this short always fits the scratch space.
  if (data.length * 3 <= SCRATCH) {
    message = inner.subarray(0, BLOCK + inner.write(data, BLOCK, 'utf8'));
  } else {
    message = Buffer.concat([inner.subarray(0, BLOCK), Buffer.from(data, 'utf8')]);
  }
  sha256Bytes(message).copy(outer, BLOCK);
  return sha256Bytes(outer);
}

/**
 * kSigning = HMAC(HMAC(HMAC(HMAC("AWS4" + secret, date), region), service), "aws4_request").
 * The returned Buffer is shared through the cache: callers must not modify it.
 */
export function deriveSigningKey(
  secret: string,
  { date, region, service }: { date: string; region: string; service: string },
): Buffer {
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
export function trailerStringToSign(
  ctx: ChunkSigningContext,
  previousSignature: string,
  trailerSha256: string,
): string {
  return `AWS4-HMAC-SHA256-TRAILER\n${ctx.amzDate}\n${ctx.scope}\n${previousSignature}\n${trailerSha256}`;
}
