// Retry delays: full-jitter exponential backoff (AWS Architecture Blog, "Exponential Backoff And Jitter"):
// the n-th retry waits a uniformly random time in [0, min(cap, base * 2^(n-1))).

export interface BackoffPolicy {
  baseMs: number;
  capMs: number;
}

/**
 * The delay before retrying after `failures` failed attempts (1 for the first failure). `random` returns a number in
 * [0, 1) (Math.random by default; tests inject their own). The window doubles per failure up to the cap; full
 * jitter spreads retries of many failed deliveries so they do not hit a recovering receiver together.
 */
export function fullJitterDelay(failures: number, policy: BackoffPolicy, random: () => number = Math.random): number {
  const exponent = Math.max(0, Math.min(failures - 1, 62)); // 2^62 ms is far past any cap: no overflow to Infinity
  const window = Math.min(policy.capMs, policy.baseMs * 2 ** exponent);
  return Math.floor(random() * window);
}
