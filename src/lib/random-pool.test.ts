// The pooled random source: draws never share bytes (also across a refill), fit their target, and refuse sizes
// outside 1 to 64 bytes.

import { describe, expect, it } from 'vitest';
import { randomBuffer, randomInto } from './random-pool.js';

describe('random pool', () => {
  it('hands every draw bytes of its own, across many refills', () => {
    const seen = new Set<string>();
    // 13-byte and 32-byte draws do not divide 4 KiB, so draws run up to the end of the pool and refill it.
    for (let i = 0; i < 2000; i++) {
      const bytes = randomBuffer(i % 2 === 0 ? 13 : 32);
      expect(bytes.length).toBe(i % 2 === 0 ? 13 : 32);
      const hex = bytes.toString('hex');
      expect(seen.has(hex)).toBe(false);
      seen.add(hex);
    }
  });

  it('spreads its bytes over every value (a constant or zeroed pool would not)', () => {
    const counts = new Array<number>(256).fill(0);
    for (let i = 0; i < 2000; i++) for (const byte of randomBuffer(64)) counts[byte] = (counts[byte] as number) + 1;
    // 128,000 bytes: each value is expected 500 times; 300 is far outside chance.
    expect(Math.min(...counts)).toBeGreaterThan(300);
  });

  it('writes into the target at the offset asked and nowhere else', () => {
    const target = Buffer.alloc(40);
    randomInto(target, 10, 16);
    expect(target.subarray(0, 10).equals(Buffer.alloc(10))).toBe(true);
    expect(target.subarray(26).equals(Buffer.alloc(14))).toBe(true);
    expect(target.subarray(10, 26).equals(Buffer.alloc(16))).toBe(false);
  });

  it('refuses draws outside 1 to 64 bytes and draws that do not fit', () => {
    expect(() => randomBuffer(0)).toThrow(RangeError);
    expect(() => randomBuffer(65)).toThrow(RangeError);
    expect(() => randomBuffer(1.5)).toThrow(RangeError);
    expect(() => randomInto(Buffer.alloc(8), 4, 5)).toThrow(RangeError);
    expect(() => randomInto(Buffer.alloc(8), -1, 2)).toThrow(RangeError);
  });
});
