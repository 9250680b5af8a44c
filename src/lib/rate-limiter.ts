// Per-key request throttles, in memory: an exact sliding window (at most N events in any window) and a token bucket
// (a sustained rate with bursts). Both answer how long to wait; both forget keys least recently seen first when they
// track more than `maxKeys`, so a flood of distinct keys cannot grow memory without bound.

export interface RateDecision {
  allowed: boolean;
  /** Whole seconds until the next attempt would be allowed (0 when allowed). */
  retryAfterSeconds: number;
}

interface LimiterOptions {
  now?: () => number;
  /** Keys tracked at most (default 10,000). */
  maxKeys?: number;
}

const ALLOWED: RateDecision = { allowed: true, retryAfterSeconds: 0 };

/** A Map used as an LRU: touching a key moves it to the end; the oldest entries are evicted first. */
class LruMap<V> {
  private readonly map = new Map<string, V>();
  constructor(private readonly maxKeys: number) {}

  get(key: string): V | undefined {
    const value = this.map.get(key);
    if (value !== undefined) {
      this.map.delete(key);
      this.map.set(key, value);
    }
    return value;
  }

  set(key: string, value: V): void {
    this.map.delete(key);
    this.map.set(key, value);
    while (this.map.size > this.maxKeys) {
      const oldest = this.map.keys().next().value as string;
      this.map.delete(oldest);
    }
  }

  get size(): number {
    return this.map.size;
  }
}

const waitSeconds = (ms: number): number => Math.max(1, Math.ceil(ms / 1000));

/** At most `limit` events per key in any `windowMs` (an exact log of the last `limit` event times). */
export class SlidingWindowLimiter {
  private readonly now: () => number;
  private readonly logs: LruMap<number[]>;

  constructor(private readonly opts: LimiterOptions & { limit: number; windowMs: number }) {
    this.now = opts.now ?? Date.now;
    this.logs = new LruMap(opts.maxKeys ?? 10_000);
  }

  /** Records an attempt for `key` if allowed; a refused attempt is not recorded (it does not extend the wait). */
  take(key: string): RateDecision {
    const now = this.now();
    const log = (this.logs.get(key) ?? []).filter((t) => t > now - this.opts.windowMs);
    if (log.length >= this.opts.limit) {
      this.logs.set(key, log);
      return { allowed: false, retryAfterSeconds: waitSeconds((log[0] as number) + this.opts.windowMs - now) };
    }
    log.push(now);
    this.logs.set(key, log);
    return ALLOWED;
  }

  get trackedKeys(): number {
    return this.logs.size;
  }
}

/** A bucket of `capacity` tokens per key, refilled at `perSecond`; each request takes one. */
export class TokenBucketLimiter {
  private readonly now: () => number;
  private readonly buckets: LruMap<{ tokens: number; at: number }>;

  constructor(private readonly opts: LimiterOptions & { capacity: number; perSecond: number }) {
    this.now = opts.now ?? Date.now;
    this.buckets = new LruMap(opts.maxKeys ?? 10_000);
  }

  take(key: string): RateDecision {
    const now = this.now();
    const previous = this.buckets.get(key);
    const elapsed = previous ? Math.max(0, now - previous.at) / 1000 : 0;
    const tokens = previous
      ? Math.min(this.opts.capacity, previous.tokens + elapsed * this.opts.perSecond)
      : this.opts.capacity;
    if (tokens < 1) {
      this.buckets.set(key, { tokens, at: now });
      return { allowed: false, retryAfterSeconds: waitSeconds(((1 - tokens) / this.opts.perSecond) * 1000) };
    }
    this.buckets.set(key, { tokens: tokens - 1, at: now });
    return ALLOWED;
  }

  get trackedKeys(): number {
    return this.buckets.size;
  }
}
