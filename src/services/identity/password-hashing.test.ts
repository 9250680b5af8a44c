import argon2 from 'argon2';
import { describe, expect, it } from 'vitest';
import { argon2CostOf, DEFAULT_ARGON2_COST, hashPassword, standInHash } from './password-hashing.js';

describe('argon2CostOf', () => {
  it('reads m, t and p in any order', () => {
    expect(argon2CostOf('$argon2id$v=19$m=65536,t=3,p=4$c2FsdA$aGFzaA')).toEqual({
      memoryCost: 65536,
      timeCost: 3,
      parallelism: 4,
    });
    expect(argon2CostOf('$argon2id$v=19$m=4096,p=1,t=2$c2FsdA$aGFzaA')).toEqual({
      memoryCost: 4096,
      timeCost: 2,
      parallelism: 1,
    });
  });

  it('answers undefined for anything else', () => {
    expect(argon2CostOf('plain')).toBeUndefined();
    expect(argon2CostOf('$argon2id$v=19$m=4096,t=1$c2FsdA$aGFzaA')).toBeUndefined();
  });

  it('round-trips through hashPassword', async () => {
    const cost = { memoryCost: 2048, timeCost: 2, parallelism: 1 };
    const hash = await hashPassword('some password', cost);
    expect(hash).toMatch(/^\$argon2id\$/);
    expect(argon2CostOf(hash)).toEqual(cost);
  });
});

describe('standInHash', () => {
  it('is a well-formed argon2id hash at the given cost that no password matches, different every time', async () => {
    const cost = { memoryCost: 2048, timeCost: 2, parallelism: 1 };
    const hash = standInHash(cost);
    expect(argon2CostOf(hash)).toEqual(cost);
    expect(standInHash(cost)).not.toBe(hash);
    // verify runs the full argon2 computation at that cost and answers false (it does not throw on the format)
    expect(await argon2.verify(hash, 'any password')).toBe(false);
    expect(await argon2.verify(hash, '')).toBe(false);
  });

  it('defaults to the cost the library hashes with', async () => {
    expect(argon2CostOf(standInHash())).toEqual(DEFAULT_ARGON2_COST);
    expect(argon2CostOf(await argon2.hash('x', { type: argon2.argon2id }))).toEqual(DEFAULT_ARGON2_COST);
  });
});
