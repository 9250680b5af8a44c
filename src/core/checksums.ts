// S3 flexible checksums: algorithm names, streaming checksummers, value validation, and the multipart
// combinations (COMPOSITE checksum-of-checksums, FULL_OBJECT CRC combine) computed without rereading bytes.
// Pure: node:crypto and node:zlib are used as compute only.

import { createHash, type Hash } from 'node:crypto';
import * as zlib from 'node:zlib';
import { AppError } from './errors.js';

export type ChecksumAlgorithm = 'CRC32' | 'CRC32C' | 'CRC64NVME' | 'SHA1' | 'SHA256';
/** How a multipart object's checksum was derived (x-amz-checksum-type). */
export type ChecksumType = 'COMPOSITE' | 'FULL_OBJECT';
export type CrcAlgorithm = 'CRC32' | 'CRC32C' | 'CRC64NVME';

export const CHECKSUM_ALGORITHMS: readonly ChecksumAlgorithm[] = ['CRC32', 'CRC32C', 'CRC64NVME', 'SHA1', 'SHA256'];

const DIGEST_LENGTHS: Record<ChecksumAlgorithm, number> = { CRC32: 4, CRC32C: 4, CRC64NVME: 8, SHA1: 20, SHA256: 32 };

// The wording AWS answers with (InvalidRequest) for an unknown algorithm name.
const UNSUPPORTED_MESSAGE =
  'Checksum algorithm provided is unsupported. Please try again with any of the valid types: [CRC32, CRC32C, CRC64NVME, SHA1, SHA256]';

/** True for an algorithm name exactly as S3 spells it (upper case). */
export function isChecksumAlgorithm(value: string): value is ChecksumAlgorithm {
  return (CHECKSUM_ALGORITHMS as readonly string[]).includes(value);
}

/**
 * Parses an algorithm name case-insensitively (x-amz-checksum-algorithm, x-amz-sdk-checksum-algorithm,
 * x-amz-trailer suffixes). Throws AppError InvalidRequest, as S3 does, for anything else; pass
 * `header: 'x-amz-sdk-checksum-algorithm'` to get S3's message for that header.
 */
export function parseChecksumAlgorithm(value: string, header?: string): ChecksumAlgorithm {
  const upper = value.trim().toUpperCase();
  if (isChecksumAlgorithm(upper)) return upper;
  const message =
    header === 'x-amz-sdk-checksum-algorithm'
      ? 'Value for x-amz-sdk-checksum-algorithm header is invalid.'
      : UNSUPPORTED_MESSAGE;
  throw new AppError('InvalidRequest', { message });
}

/** The header carrying a value of this algorithm, e.g. 'x-amz-checksum-crc32c'. */
export function checksumHeader(alg: ChecksumAlgorithm): string {
  return `x-amz-checksum-${alg.toLowerCase()}`;
}

/** Length in bytes of the raw digest. */
export function checksumDigestLength(alg: ChecksumAlgorithm): number {
  return DIGEST_LENGTHS[alg];
}

const CANONICAL_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** True when `b64` is canonical padded base64 of exactly the digest length of `alg`. */
export function isValidChecksumValue(alg: ChecksumAlgorithm, b64: string): boolean {
  if (!CANONICAL_BASE64.test(b64)) return false;
  const raw = Buffer.from(b64, 'base64');
  // Re-encoding rejects non-zero padding bits, so a value compares equal to the digest only one way.
  return raw.length === DIGEST_LENGTHS[alg] && raw.toString('base64') === b64;
}

/** A streaming digest. `digest()` is big-endian raw bytes and may be called more than once. */
export interface Checksummer {
  update(chunk: Uint8Array): void;
  digest(): Buffer;
}

export function createChecksummer(alg: ChecksumAlgorithm): Checksummer {
  switch (alg) {
    case 'CRC32':
      return new Crc32Checksummer();
    case 'CRC32C':
      return new Crc32cChecksummer();
    case 'CRC64NVME':
      return new Crc64NvmeChecksummer();
    case 'SHA1':
      return new HashChecksummer('sha1');
    case 'SHA256':
      return new HashChecksummer('sha256');
  }
}

/** One-shot digest of a whole buffer. */
export function computeChecksum(alg: ChecksumAlgorithm, data: Uint8Array): Buffer {
  const c = createChecksummer(alg);
  c.update(data);
  return c.digest();
}

/**
 * S3's COMPOSITE multipart checksum: base64(alg(concat(part digests))) + '-' + part count.
 * (S3 offers COMPOSITE for CRC32, CRC32C, SHA1 and SHA256; CRC64NVME is FULL_OBJECT only.)
 */
export function compositeChecksum(alg: ChecksumAlgorithm, partDigests: Buffer[]): string {
  const c = createChecksummer(alg);
  for (const d of partDigests) c.update(d);
  return `${c.digest().toString('base64')}-${partDigests.length}`;
}

// ---------------------------------------------------------------------------------------------------------
// CRC32 (IEEE): zlib's native crc32 (Node >= 20.15 and 22.2) when present, a slicing-by-8 table otherwise.

type NativeCrc32 = (data: Uint8Array, value?: number) => number;
const nativeCrc32: NativeCrc32 | undefined = (zlib as { crc32?: NativeCrc32 }).crc32;

const CRC32_POLY = 0xedb88320;
const CRC32C_POLY = 0x82f63b78;

/** Slicing-by-8 tables for a reflected 32-bit CRC: table k maps a byte followed by k zero bytes. */
function crc32Tables(poly: number): Int32Array {
  const t = new Int32Array(256 * 8);
  for (let i = 0; i < 256; i++) {
    let c = i;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ poly : c >>> 1;
    t[i] = c;
  }
  for (let i = 0; i < 256; i++) {
    let c = t[i]!;
    for (let k = 1; k < 8; k++) {
      c = t[c & 0xff]! ^ (c >>> 8);
      t[k * 256 + i] = c;
    }
  }
  return t;
}

let crc32TableCache: Int32Array | undefined;
const CRC32C_TABLE = crc32Tables(CRC32C_POLY);

/** Updates a reflected 32-bit CRC register (pre-inverted) over `buf`; returns the new register. */
function crc32Update(t: Int32Array, crc: number, buf: Uint8Array): number {
  let c = crc | 0;
  let i = 0;
  const n = buf.length;
  const end8 = n - (n & 7);
  while (i < end8) {
    const lo = c ^ (buf[i]! | (buf[i + 1]! << 8) | (buf[i + 2]! << 16) | (buf[i + 3]! << 24));
    c =
      t[1792 + (lo & 0xff)]! ^
      t[1536 + ((lo >>> 8) & 0xff)]! ^
      t[1280 + ((lo >>> 16) & 0xff)]! ^
      t[1024 + (lo >>> 24)]! ^
      t[768 + buf[i + 4]!]! ^
      t[512 + buf[i + 5]!]! ^
      t[256 + buf[i + 6]!]! ^
      t[buf[i + 7]!]!;
    i += 8;
  }
  while (i < n) c = t[(c ^ buf[i++]!) & 0xff]! ^ (c >>> 8);
  return c;
}

function uint32Be(value: number): Buffer {
  const out = Buffer.allocUnsafe(4);
  out.writeUInt32BE(value >>> 0, 0);
  return out;
}

class Crc32Checksummer implements Checksummer {
  private crc = 0; // final-form value (zlib semantics) when native; otherwise the inverted register
  update(chunk: Uint8Array): void {
    if (nativeCrc32) {
      this.crc = nativeCrc32(chunk, this.crc);
    } else {
      crc32TableCache ??= crc32Tables(CRC32_POLY);
      this.crc = ~crc32Update(crc32TableCache, ~this.crc, chunk);
    }
  }
  digest(): Buffer {
    return uint32Be(this.crc);
  }
}

/** The table implementation of CRC32, exported for tests of the fallback path only. */
export function crc32Fallback(data: Uint8Array, previous = 0): number {
  crc32TableCache ??= crc32Tables(CRC32_POLY);
  return ~crc32Update(crc32TableCache, ~previous, data) >>> 0;
}

class Crc32cChecksummer implements Checksummer {
  private reg = -1; // init ~0
  update(chunk: Uint8Array): void {
    this.reg = crc32Update(CRC32C_TABLE, this.reg, chunk);
  }
  digest(): Buffer {
    return uint32Be(~this.reg);
  }
}

// ---------------------------------------------------------------------------------------------------------
// CRC64/NVME: reflected poly 0x9A6C9329AC4BC9B5, init ~0, xorout ~0. The 64-bit register is two int32
// halves so the per-byte path never touches BigInt (which would be an order of magnitude slower).

const CRC64_POLY_HI = 0x9a6c9329 | 0;
const CRC64_POLY_LO = 0xac4bc9b5 | 0;

function crc64Tables(): { hi: Int32Array; lo: Int32Array } {
  const hi = new Int32Array(256 * 8);
  const lo = new Int32Array(256 * 8);
  for (let i = 0; i < 256; i++) {
    let h = 0;
    let l = i;
    for (let k = 0; k < 8; k++) {
      const bit = l & 1;
      l = (l >>> 1) | (h << 31);
      h = h >>> 1;
      if (bit) {
        h ^= CRC64_POLY_HI;
        l ^= CRC64_POLY_LO;
      }
    }
    hi[i] = h;
    lo[i] = l;
  }
  for (let i = 0; i < 256; i++) {
    let h = hi[i]!;
    let l = lo[i]!;
    for (let k = 1; k < 8; k++) {
      const idx = l & 0xff;
      l = ((l >>> 8) | (h << 24)) ^ lo[idx]!;
      h = (h >>> 8) ^ hi[idx]!;
      hi[k * 256 + i] = h;
      lo[k * 256 + i] = l;
    }
  }
  return { hi, lo };
}

const CRC64 = crc64Tables();

class Crc64NvmeChecksummer implements Checksummer {
  private hi = -1; // init ~0
  private lo = -1;
  update(buf: Uint8Array): void {
    const TH = CRC64.hi;
    const TL = CRC64.lo;
    let h = this.hi;
    let l = this.lo;
    let i = 0;
    const n = buf.length;
    const end8 = n - (n & 7);
    while (i < end8) {
      // XOR the next 8 bytes (little-endian) into the register, then look up each of its 8 bytes in the
      // table for its distance from the end of the word.
      const a = l ^ (buf[i]! | (buf[i + 1]! << 8) | (buf[i + 2]! << 16) | (buf[i + 3]! << 24));
      const b = h ^ (buf[i + 4]! | (buf[i + 5]! << 8) | (buf[i + 6]! << 16) | (buf[i + 7]! << 24));
      const i7 = 1792 + (a & 0xff);
      const i6 = 1536 + ((a >>> 8) & 0xff);
      const i5 = 1280 + ((a >>> 16) & 0xff);
      const i4 = 1024 + (a >>> 24);
      const i3 = 768 + (b & 0xff);
      const i2 = 512 + ((b >>> 8) & 0xff);
      const i1 = 256 + ((b >>> 16) & 0xff);
      const i0 = b >>> 24;
      l = TL[i7]! ^ TL[i6]! ^ TL[i5]! ^ TL[i4]! ^ TL[i3]! ^ TL[i2]! ^ TL[i1]! ^ TL[i0]!;
      h = TH[i7]! ^ TH[i6]! ^ TH[i5]! ^ TH[i4]! ^ TH[i3]! ^ TH[i2]! ^ TH[i1]! ^ TH[i0]!;
      i += 8;
    }
    while (i < n) {
      const idx = (l ^ buf[i++]!) & 0xff;
      l = ((l >>> 8) | (h << 24)) ^ TL[idx]!;
      h = (h >>> 8) ^ TH[idx]!;
    }
    this.hi = h;
    this.lo = l;
  }
  digest(): Buffer {
    const out = Buffer.allocUnsafe(8);
    out.writeUInt32BE(~this.hi >>> 0, 0);
    out.writeUInt32BE(~this.lo >>> 0, 4);
    return out;
  }
}

class HashChecksummer implements Checksummer {
  private readonly hash: Hash;
  constructor(name: 'sha1' | 'sha256') {
    this.hash = createHash(name);
  }
  update(chunk: Uint8Array): void {
    this.hash.update(chunk);
  }
  digest(): Buffer {
    // Digest a copy so the checksummer stays usable (and digest() repeatable).
    return this.hash.copy().digest();
  }
}

// ---------------------------------------------------------------------------------------------------------
// CRC combine (zlib's crc32_combine, generalised): crc(A || B) from crc(A), crc(B) and len(B), by
// multiplying crc(A) by x^(8*len(B)) modulo the polynomial. Runs once per part, so BigInt is fine here.

const CRC_PARAMS: Record<CrcAlgorithm, { width: bigint; poly: bigint }> = {
  CRC32: { width: 32n, poly: 0xedb88320n },
  CRC32C: { width: 32n, poly: 0x82f63b78n },
  CRC64NVME: { width: 64n, poly: 0x9a6c9329ac4bc9b5n },
};

const x2nTables = new Map<CrcAlgorithm, bigint[]>();

/** a * b mod p, both in reflected bit order (the x^0 coefficient is the top bit). */
function multModP(a: bigint, b: bigint, { width, poly }: { width: bigint; poly: bigint }): bigint {
  let m = 1n << (width - 1n);
  let p = 0n;
  while (m !== 0n) {
    if (a & m) {
      p ^= b;
      if ((a & (m - 1n)) === 0n) break;
    }
    m >>= 1n;
    b = b & 1n ? (b >> 1n) ^ poly : b >> 1n;
  }
  return p;
}

/** Table of x^(2^k) mod p for k = 0..63. */
function x2nTable(alg: CrcAlgorithm): bigint[] {
  let table = x2nTables.get(alg);
  if (!table) {
    const { width, poly } = CRC_PARAMS[alg];
    table = [1n << (width - 2n)]; // x^1
    for (let k = 1; k < 64; k++) {
      const prev = table[k - 1]!;
      table.push(multModP(prev, prev, { width, poly }));
    }
    x2nTables.set(alg, table);
  }
  return table;
}

/**
 * crc(A || B) given crc(A) = `a`, crc(B) = `tail.crc` (raw big-endian digests as createChecksummer returns them)
 * and len(B) = `tail.length` bytes. Used for FULL_OBJECT multipart checksums without rereading the parts.
 */
export function combineCrc(alg: CrcAlgorithm, a: Buffer, tail: { crc: Buffer; length: number }): Buffer {
  const { crc: b, length: lengthB } = tail;
  const { width, poly } = CRC_PARAMS[alg];
  const size = Number(width / 8n);
  if (a.length !== size || b.length !== size) throw new RangeError(`combineCrc: ${alg} digests are ${size} bytes`);
  if (!Number.isSafeInteger(lengthB) || lengthB < 0)
    throw new RangeError('combineCrc: lengthB must be a non-negative integer');
  const table = x2nTable(alg);
  // x^(8 * lengthB) mod p: walk the bits of lengthB, starting at k = 3 for the factor 8.
  let xn = 1n << (width - 1n); // x^0
  let n = BigInt(lengthB);
  let k = 3;
  while (n > 0n) {
    if (n & 1n) xn = multModP(table[k]!, xn, { width, poly });
    n >>= 1n;
    k++;
  }
  const combined = multModP(xn, readBe(a), { width, poly }) ^ readBe(b);
  const out = Buffer.alloc(size);
  let v = combined;
  for (let i = size - 1; i >= 0; i--) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}

function readBe(buf: Buffer): bigint {
  let v = 0n;
  for (const byte of buf) v = (v << 8n) | BigInt(byte);
  return v;
}
