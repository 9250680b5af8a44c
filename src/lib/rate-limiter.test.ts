import { describe, expect, it } from 'vitest';
import { SlidingWindowLimiter, TokenBucketLimiter } from './rate-limiter.js';

function clock(start = 1_000_000): { now: () => number; advance: (ms: number) => void } {
  let t = start;
  return {
    now: () => t,
    advance: (ms) => {
      t += ms;
    },
  };
}

describe('SlidingWindowLimiter', () => {
  it('allows exactly `limit` attempts per window and says when the oldest one leaves it', () => {
    const c = clock();
    const limiter = new SlidingWindowLimiter({ limit: 5, windowMs: 60_000, now: c.now });
    for (let i = 0; i < 5; i++) {
      expect(limiter.take('a').allowed).toBe(true);
      c.advance(1_000);
    }
    // First attempt was at t0; now t0+5s: 55 s to wait.
    expect(limiter.take('a')).toEqual({ allowed: false, retryAfterSeconds: 55 });
    c.advance(54_999);
    expect(limiter.take('a')).toEqual({ allowed: false, retryAfterSeconds: 1 });
    c.advance(1);
    expect(limiter.take('a').allowed).toBe(true);
    // The window slides: the second attempt (t0+1s) is still inside it, so a seventh is refused.
    expect(limiter.take('a').allowed).toBe(false);
  });

  it('keeps keys apart', () => {
    const limiter = new SlidingWindowLimiter({ limit: 1, windowMs: 60_000, now: clock().now });
    expect(limiter.take('a').allowed).toBe(true);
    expect(limiter.take('a').allowed).toBe(false);
    expect(limiter.take('b').allowed).toBe(true);
  });

  it('does not let refused attempts extend the wait', () => {
    const c = clock();
    const limiter = new SlidingWindowLimiter({ limit: 1, windowMs: 10_000, now: c.now });
    limiter.take('a');
    for (let i = 0; i < 9; i++) {
      c.advance(1_000);
      expect(limiter.take('a').allowed).toBe(false);
    }
    c.advance(1_000);
    expect(limiter.take('a').allowed).toBe(true);
  });

  it('forgets the least recently seen keys beyond maxKeys', () => {
    const limiter = new SlidingWindowLimiter({ limit: 1, windowMs: 60_000, now: clock().now, maxKeys: 3 });
    for (const key of ['a', 'b', 'c']) limiter.take(key);
    limiter.take('a'); // refused, but touches a: b is now the oldest
    limiter.take('d');
    expect(limiter.trackedKeys).toBe(3);
    expect(limiter.take('b').allowed).toBe(true); // forgotten
    expect(limiter.take('a').allowed).toBe(false); // remembered
  });
});

describe('TokenBucketLimiter', () => {
  it('allows a burst of `capacity`, then the refill rate, with a Retry-After of at least 1 s', () => {
    const c = clock();
    const limiter = new TokenBucketLimiter({ capacity: 3, perSecond: 0.5, now: c.now });
    expect([1, 2, 3].map(() => limiter.take('a').allowed)).toEqual([true, true, true]);
    expect(limiter.take('a')).toEqual({ allowed: false, retryAfterSeconds: 2 });
    c.advance(1_999);
    expect(limiter.take('a').allowed).toBe(false);
    c.advance(1);
    expect(limiter.take('a').allowed).toBe(true);
    expect(limiter.take('a').allowed).toBe(false);
  });

  it('never holds more than capacity after a long idle time', () => {
    const c = clock();
    const limiter = new TokenBucketLimiter({ capacity: 2, perSecond: 10, now: c.now });
    limiter.take('a');
    c.advance(3_600_000);
    expect([1, 2, 3].map(() => limiter.take('a').allowed)).toEqual([true, true, false]);
  });

  it('is not fooled by a clock that steps backwards', () => {
    const c = clock();
    const limiter = new TokenBucketLimiter({ capacity: 1, perSecond: 1, now: c.now });
    limiter.take('a');
    c.advance(-10_000);
    expect(limiter.take('a').allowed).toBe(false);
  });
});
