// The hostile harness's seeded randomness: a small PRNG (mulberry32) with named child streams, so that every plan
// item, fault and body is a function of the run's seed and its own label, whatever order the workers run in.

import { createCipheriv, createHash } from 'node:crypto';

/** A 32-bit seed from a label under `seed` (SHA-256: labels never collide in practice). */
function derive(seed: number, label: string): number {
  return createHash('sha256')
    .update(`${seed >>> 0}:${label}`)
    .digest()
    .readUInt32LE(0);
}

/** Seeded pseudo-random numbers. Not for cryptography: for plans that a seed replays. */
export class Rng {
  private state: number;

  constructor(readonly seed: number) {
    this.state = seed >>> 0;
  }

  /** The same stream for the same seed and label: one per plan item, per worker, per filler. */
  child(label: string | number): Rng {
    return new Rng(derive(this.seed, String(label)));
  }

  /** A float in [0, 1) (mulberry32). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [min, max], both included. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError('pick from an empty list');
    return items[Math.floor(this.next() * items.length)] as T;
  }

  /** One of the keys of `weights`, with probability proportional to its weight. */
  weighted<K extends string>(weights: Readonly<Record<K, number>>): K {
    const entries = Object.entries(weights) as [K, number][];
    const total = entries.reduce((sum, [, w]) => sum + w, 0);
    let x = this.next() * total;
    for (const [key, w] of entries) {
      x -= w;
      if (x < 0) return key;
    }
    return entries[entries.length - 1]![0];
  }

  /** `n` pseudo-random bytes (latin1-safe for header garbage when `printable` is false: any byte). */
  bytes(n: number): Buffer {
    const out = Buffer.alloc(n);
    for (let i = 0; i < n; i++) out[i] = Math.floor(this.next() * 256);
    return out;
  }
}

/**
 * The bytes of body `id` (`size` of them): AES-128-CTR of zeros under a key drawn from the seed and the id, so that
 * every body of a run is unique, reproducible from its id alone, and cheap to make again for a verification read.
 */
export function bodyBytes(seed: number, id: string, size: number): Buffer {
  const key = createHash('sha256')
    .update(`${seed >>> 0}:body:${id}`)
    .digest()
    .subarray(0, 16);
  return createCipheriv('aes-128-ctr', key, Buffer.alloc(16)).update(Buffer.alloc(size));
}

/** The run's seed: the variable `name` (HOSTILE_SEED unless told) when set (a replay), else a fresh random one. */
export function runSeed(env: NodeJS.ProcessEnv = process.env, name = 'HOSTILE_SEED'): number {
  const raw = env[name];
  if (raw !== undefined && raw !== '') {
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 0 || n > 0xffffffff)
      throw new Error(`${name} must be an integer 0..4294967295, got ${raw}`);
    return n;
  }
  return Math.floor(Math.random() * 0x100000000);
}
