// The on-disk format of an encrypted blob (SSE-S3): header layout, key wrapping, segment sealing and the
// offset arithmetic that lets a range read decrypt only the segments it needs.
//
// File layout, format version 1 (all integers big-endian):
//
//   offset  size  field
//   0       4     magic "SBLB"
//   4       1     format version (1)
//   5       3     reserved, zero
//   8       4     segment size S: plaintext bytes per segment (the last segment may be shorter)
//   12      12    wrap nonce (random)
//   24      32    data key, encrypted with AES-256-GCM under the 32-byte master key, AAD = bytes 0..11
//   56      16    GCM tag of the wrapped data key
//   72      ...   segments 0..n-1, each = AES-256-GCM(data key, plaintext) || 16-byte tag
//
// - The data key is 256 random bits, fresh for every blob, and seals exactly one blob once (blobs are never
//   rewritten in place: new bytes get a new id and a new key).
// - Segment i is sealed with nonce = 0x00000000 || uint64(i) and AAD = uint64(i) || final flag (1 on the last
//   segment, else 0). GCM is broken only if a (key, nonce) pair repeats; the key is unique to this blob and the
//   index is unique within it, so deterministic nonces never repeat and need no storage. Binding the index
//   detects reordering (a moved segment fails its tag); the final flag detects truncation at a segment boundary
//   (the new last segment was sealed as non-final) and extension (the old last segment was sealed as final).
// - A blob of n plaintext bytes has max(1, ceil(n / S)) segments: an empty blob still has one empty final
//   segment, so cutting the file down to its header is detected too.
// - The wrap AAD covers magic, version and segment size, so editing the header fails the unwrap.
// - Segment i starts at 72 + i * (S + 16): computable, so a range read seeks straight to its segments.
// - The wrap uses a random 96-bit nonce under the master key. NIST SP 800-38D 8.3 bounds random nonces at 2^32
//   uses per key, so one master key may wrap up to 2^32 blobs, far beyond what one node stores.

import { createCipheriv, createDecipheriv } from 'node:crypto';
import { randomBuffer, randomInto } from '../../lib/random-pool.js';

export const MAGIC = Buffer.from('SBLB', 'latin1');
export const FORMAT_VERSION = 1;
export const HEADER_SIZE = 72;
export const TAG_SIZE = 16;
export const KEY_SIZE = 32;
export const DEFAULT_SEGMENT_SIZE = 64 * 1024;
export const MIN_SEGMENT_SIZE = 16;
export const MAX_SEGMENT_SIZE = 16 * 1024 * 1024;

const ALGORITHM = 'aes-256-gcm';
const WRAP_AAD_END = 12;
const WRAP_NONCE_AT = 12;
const WRAPPED_KEY_AT = 24;
const WRAP_TAG_AT = 56;

/** Why a header could not be opened; the caller turns it into a BlobCorruptError('header'). */
export class BadHeaderError extends Error {}

/** Builds a header around a fresh random data key. Returns both; the data key never leaves memory. */
export function createHeader(masterKey: Buffer, segmentSize: number): { header: Buffer; dataKey: Buffer } {
  const dataKey = randomBuffer(KEY_SIZE);
  const header = Buffer.alloc(HEADER_SIZE);
  MAGIC.copy(header, 0);
  header[4] = FORMAT_VERSION;
  header.writeUInt32BE(segmentSize, 8);
  randomInto(header, WRAP_NONCE_AT, 12);
  const nonce = header.subarray(WRAP_NONCE_AT, WRAPPED_KEY_AT);
  const cipher = createCipheriv(ALGORITHM, masterKey, nonce, { authTagLength: TAG_SIZE });
  cipher.setAAD(header.subarray(0, WRAP_AAD_END));
  cipher.update(dataKey).copy(header, WRAPPED_KEY_AT);
  cipher.final();
  cipher.getAuthTag().copy(header, WRAP_TAG_AT);
  return { header, dataKey };
}

/** Parses and unwraps a header. Throws BadHeaderError on a wrong magic, version, segment size or master key. */
export function openHeader(header: Buffer, masterKey: Buffer): { dataKey: Buffer; segmentSize: number } {
  if (header.length !== HEADER_SIZE || !header.subarray(0, 4).equals(MAGIC)) throw new BadHeaderError('bad magic');
  if (header[4] !== FORMAT_VERSION) throw new BadHeaderError(`unsupported format version ${header[4]}`);
  if (header[5] !== 0 || header[6] !== 0 || header[7] !== 0) throw new BadHeaderError('reserved bytes set');
  const segmentSize = header.readUInt32BE(8);
  if (segmentSize < MIN_SEGMENT_SIZE || segmentSize > MAX_SEGMENT_SIZE) throw new BadHeaderError('bad segment size');
  const decipher = createDecipheriv(ALGORITHM, masterKey, header.subarray(WRAP_NONCE_AT, WRAPPED_KEY_AT), {
    authTagLength: TAG_SIZE,
  });
  decipher.setAAD(header.subarray(0, WRAP_AAD_END));
  decipher.setAuthTag(header.subarray(WRAP_TAG_AT, HEADER_SIZE));
  const dataKey = decipher.update(header.subarray(WRAPPED_KEY_AT, WRAP_TAG_AT));
  try {
    decipher.final();
  } catch {
    // Deliberately no detail: the message must not hint at key material.
    throw new BadHeaderError('data key does not unwrap (wrong master key or edited header)');
  }
  return { dataKey, segmentSize };
}

function segmentNonce(index: number): Buffer {
  const nonce = Buffer.alloc(12);
  nonce.writeUInt32BE(Math.floor(index / 0x1_0000_0000), 4);
  nonce.writeUInt32BE(index >>> 0, 8);
  return nonce;
}

function segmentAad(index: number, isFinal: boolean): Buffer {
  const aad = Buffer.alloc(9);
  aad.writeUInt32BE(Math.floor(index / 0x1_0000_0000), 0);
  aad.writeUInt32BE(index >>> 0, 4);
  aad[8] = isFinal ? 1 : 0;
  return aad;
}

/** Seals one segment. Returns the ciphertext (same length as the plaintext, a new buffer) and its tag. */
export function sealSegment(
  dataKey: Buffer,
  seg: { index: number; isFinal: boolean; plaintext: Buffer },
): { ciphertext: Buffer; tag: Buffer } {
  const cipher = createCipheriv(ALGORITHM, dataKey, segmentNonce(seg.index), { authTagLength: TAG_SIZE });
  cipher.setAAD(segmentAad(seg.index, seg.isFinal));
  const ciphertext = cipher.update(seg.plaintext);
  cipher.final();
  return { ciphertext, tag: cipher.getAuthTag() };
}

/**
 * Opens one segment (`sealed` = ciphertext || tag). Returns the plaintext only once the tag has been
 * verified, or undefined when it does not verify (tampered, moved, or wrongly final/non-final).
 */
export function openSegment(
  dataKey: Buffer,
  seg: { index: number; isFinal: boolean; sealed: Buffer },
): Buffer | undefined {
  const split = seg.sealed.length - TAG_SIZE;
  const decipher = createDecipheriv(ALGORITHM, dataKey, segmentNonce(seg.index), { authTagLength: TAG_SIZE });
  decipher.setAAD(segmentAad(seg.index, seg.isFinal));
  decipher.setAuthTag(seg.sealed.subarray(split));
  const plaintext = decipher.update(seg.sealed.subarray(0, split));
  try {
    decipher.final();
  } catch {
    return undefined;
  }
  return plaintext;
}

/** The whole sealed form (header and segments, exactly the file format) of a plaintext held in memory. */
export function sealBuffer(masterKey: Buffer, segmentSize: number, plaintext: Buffer): Buffer {
  const { header, dataKey } = createHeader(masterKey, segmentSize);
  const layout = new SegmentLayout(plaintext.length, segmentSize);
  const out = Buffer.allocUnsafe(layout.fileSize());
  header.copy(out, 0);
  for (let index = 0; index < layout.count; index += 1) {
    const from = index * segmentSize;
    const seg = plaintext.subarray(from, from + layout.plainLength(index));
    const { ciphertext, tag } = sealSegment(dataKey, { index, isFinal: index === layout.count - 1, plaintext: seg });
    const at = layout.offsetOf(index);
    ciphertext.copy(out, at);
    tag.copy(out, at + seg.length);
  }
  return out;
}

/** Offset arithmetic for a blob of `size` plaintext bytes in segments of `segmentSize`. */
export class SegmentLayout {
  readonly count: number;

  constructor(
    readonly size: number,
    readonly segmentSize: number,
  ) {
    this.count = Math.max(1, Math.ceil(size / segmentSize));
  }

  /** Plaintext bytes in segment i. */
  plainLength(index: number): number {
    return index < this.count - 1 ? this.segmentSize : this.size - index * this.segmentSize;
  }

  /** File offset where segment i starts. */
  offsetOf(index: number): number {
    return HEADER_SIZE + index * (this.segmentSize + TAG_SIZE);
  }

  /** The exact size of a well-formed file. */
  fileSize(): number {
    return HEADER_SIZE + this.size + this.count * TAG_SIZE;
  }
}
