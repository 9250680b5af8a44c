// argon2id hashing for admin passwords, at one cost for the whole instance: the cost of ADMIN_PASSWORD_HASH (which
// `store hash-password` makes with the library's defaults). Every login then costs the same, whoever the user is,
// and the stand-in hash verified for an unknown username costs the same as a real one.

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

/** An argon2id hash of `password` at `cost` (the library's defaults when undefined). */
export function hashPassword(password: string, cost?: Argon2Cost): Promise<string> {
  return argon2.hash(password, { type: argon2.argon2id, ...cost });
}
