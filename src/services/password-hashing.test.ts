import { describe, expect, it } from 'vitest';
import { argon2CostOf, hashPassword } from './password-hashing.js';

describe('argon2CostOf', () => {
  it('reads m, t and p in any order', () => {
    expect(argon2CostOf('$argon2id$v=19$m=65536,t=3,p=4$c2FsdA$aGFzaA')).toEqual({ memoryCost: 65536, timeCost: 3, parallelism: 4 });
    expect(argon2CostOf('$argon2id$v=19$m=4096,p=1,t=2$c2FsdA$aGFzaA')).toEqual({ memoryCost: 4096, timeCost: 2, parallelism: 1 });
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
