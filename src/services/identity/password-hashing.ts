// argon2id hashing for admin passwords, at one cost for the whole instance: the cost of ADMIN_PASSWORD_HASH (which
// `store hash-password` makes with the library's defaults). Every login then costs the same, whoever the user is,
// and the stand-in hash verified for an unknown username costs the same as a real one.

import { randomBytes } from 'node:crypto';
import argon2 from 'argon2';

export interface Argon2Cost {
  memoryCost: number;
  timeCost: number;
  parallelism: number;
}

/** The cost parameters of an argon2 hash (`$argon2id$v=19$m=65536,t=3,p=4$...`), or undefined if unreadable. */
export function argon2CostOf(hash: string): Argon2Cost | undefined {
  const params = hash.split('$')[3];
  if (!params) return undefined;
  const values = new Map(params.split(',').map((kv) => kv.split('=') as [string, string]));
  const [m, t, p] = ['m', 't', 'p'].map((k) => Number(values.get(k)));
  if (!Number.isInteger(m) || !Number.isInteger(t) || !Number.isInteger(p)) return undefined;
  return { memoryCost: m as number, timeCost: t as number, parallelism: p as number };
}

/** The argon2 library's defaults: what `store hash-password` and `store init` hash with. */
export const DEFAULT_ARGON2_COST: Argon2Cost = { memoryCost: 65536, timeCost: 3, parallelism: 4 };

/**
 * A well-formed argon2id hash at `cost` that no password matches (random salt and digest): verifying a password
 * against it costs exactly what verifying against a real hash of that cost does. Made without hashing, so it costs
 * no time and none of argon2's memory (64 MiB at the defaults) to make.
 */
export function standInHash(cost: Argon2Cost = DEFAULT_ARGON2_COST): string {
  const b64 = (n: number): string => randomBytes(n).toString('base64').replace(/=+$/, '');
  return `$argon2id$v=19$m=${cost.memoryCost},t=${cost.timeCost},p=${cost.parallelism}$${b64(16)}$${b64(32)}`;
}

/** An argon2id hash of `password` at `cost` (the library's defaults when undefined). */
export function hashPassword(password: string, cost?: Argon2Cost): Promise<string> {
  return argon2.hash(password, { type: argon2.argon2id, ...cost });
}
