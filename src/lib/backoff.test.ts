import { describe, expect, it } from 'vitest';
import { fullJitterDelay } from './backoff.js';

const policy = { baseMs: 2000, capMs: 3_600_000 };

describe('fullJitterDelay', () => {
  it('spans [0, base * 2^(n-1)) for the n-th failure', () => {
    expect(fullJitterDelay(1, policy, () => 0)).toBe(0);
    expect(fullJitterDelay(1, policy, () => 0.999999)).toBe(1999);
    expect(fullJitterDelay(2, policy, () => 0.5)).toBe(2000);
    expect(fullJitterDelay(3, policy, () => 0.5)).toBe(4000);
    expect(fullJitterDelay(8, policy, () => 0.999999)).toBe(255_999);
  });

  it('never exceeds the cap, however many failures', () => {
    for (const n of [12, 13, 50, 1000, Number.MAX_SAFE_INTEGER]) {
      const d = fullJitterDelay(n, policy, () => 0.999999);
      expect(d).toBeLessThan(3_600_000);
      expect(d).toBeGreaterThan(3_590_000);
    }
  });

  it('treats a zero or negative count as the first failure', () => {
    expect(fullJitterDelay(0, policy, () => 0.5)).toBe(1000);
    expect(fullJitterDelay(-3, policy, () => 0.5)).toBe(1000);
  });

  it('draws from the random source every call (jitter, not a fixed schedule)', () => {
    const values = [0.1, 0.9];
    const random = (): number => values.shift() ?? 0;
    expect(fullJitterDelay(4, policy, random)).toBe(1600);
    expect(fullJitterDelay(4, policy, random)).toBe(14_400);
  });
});
