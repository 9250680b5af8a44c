// @ts-check
// The bytes the benchmark writes and how what it reads back is verified (bench/workloads.mjs): every object is a
// unique stamp followed by a shared random payload, so a server returning the wrong object fails verification.
import { randomFillSync } from 'node:crypto';

const MiB = 1024 * 1024;
/** The largest single object body (the 64 MiB scenarios); the shared payload is this long. */
export const LARGE_SIZE = 64 * MiB;
/** Every STAMP_SIZE-byte object prefix is unique, so a server returning the wrong object fails verification. */
const STAMP_SIZE = 16;

// Random payloads shared by every object; each object differs by its stamp. Filled once, lazily.
let largePayload = Buffer.alloc(0);
const payload = () => {
  if (largePayload.length === 0) largePayload = randomFillSync(Buffer.allocUnsafe(LARGE_SIZE));
  return largePayload;
};

/** @param {string} tag @param {number} n */
const stamp = (tag, n) => Buffer.from(`${tag}:${n}`.padEnd(STAMP_SIZE, '.').slice(0, STAMP_SIZE));
/**
 * The bytes of object `n` of a kind: its stamp, then the shared payload. @param {string} tag @param {number} n @param
 * {number} size
 */
export const objectBody = (tag, n, size) => [stamp(tag, n), payload().subarray(0, size - STAMP_SIZE)];

/** A response sink that compares streamed bytes with the expected parts and throws on the first difference. */
export class ExpectBytes {
  /** @param {Buffer[]} parts @param {string} what */
  constructor(parts, what) {
    this.expected = parts;
    this.what = what;
    this.total = parts.reduce((n, b) => n + b.length, 0);
    this.offset = 0;
    this.part = 0;
    this.inPart = 0;
  }

  /** @param {Buffer} chunk */
  update(chunk) {
    let at = 0;
    while (at < chunk.length) {
      const part = this.expected[this.part];
      if (!part) throw new Error(`${this.what}: body longer than the ${this.total} bytes written`);
      const n = Math.min(part.length - this.inPart, chunk.length - at);
      if (chunk.compare(part, this.inPart, this.inPart + n, at, at + n) !== 0) {
        throw new Error(
          `${this.what}: bytes differ from what was written, within offset ${this.offset}..${this.offset + n}`,
        );
      }
      at += n;
      this.offset += n;
      this.inPart += n;
      if (this.inPart === part.length) {
        this.part++;
        this.inPart = 0;
      }
    }
  }

  end() {
    if (this.offset !== this.total) throw new Error(`${this.what}: got ${this.offset} bytes, wrote ${this.total}`);
  }
}
