// Identifiers: UUID v7 (time-ordered, RFC 9562) for request ids, upload ids and version ids.

import { randomInto } from './random-pool.js';

let lastMs = 0;
let counter = 0;

/**
 * The 16 bytes of the id being made: drawn from the random pool (lib/random-pool.ts), then stamped (reused, never
 * handed out).
 */
const bytes = Buffer.alloc(16);

/** Two lower-case hex digits per byte value. */
const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

function hexOf(from: number, to: number): string {
  let out = '';
  for (let i = from; i < to; i++) out += HEX[bytes[i] as number] as string;
  return out;
}

/** A UUID v7: 48-bit Unix milliseconds, then random bits, with a counter keeping ids monotonic within a millisecond. */
export function uuidv7(now: number = Date.now()): string {
  randomInto(bytes, 0, 16);
  if (now <= lastMs) {
    counter = (counter + 1) & 0xfff;
    if (counter === 0) lastMs += 1; // 4096 ids in one millisecond: borrow the next millisecond
    now = lastMs;
  } else {
    lastMs = now;
    counter = bytes.readUInt16BE(6) & 0x7ff; // random start leaves room to count up
  }
  bytes.writeUIntBE(now, 0, 6);
  bytes[6] = 0x70 | (counter >> 8);
  bytes[7] = counter & 0xff;
  bytes[8] = 0x80 | ((bytes[8] as number) & 0x3f);
  return `${hexOf(0, 4)}-${hexOf(4, 6)}-${hexOf(6, 8)}-${hexOf(8, 10)}-${hexOf(10, 16)}`;
}

const UUID_SHAPE = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/** True for 36 hex-and-dash characters in the 8-4-4-4-12 shape (an incoming X-Request-Id we may reuse). */
export function isUuidShaped(value: string): boolean {
  return UUID_SHAPE.test(value);
}
