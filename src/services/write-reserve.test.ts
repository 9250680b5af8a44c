import { describe, expect, it } from 'vitest';
import { AppError } from '../core/errors.js';
import { WriteReserve } from './write-reserve.js';

const MiB = 1024 * 1024;

/** A reserve over a fake volume with `free` bytes and a hand-moved clock; counts the statfs calls. */
function reserveOver(free: { bytes: number }, reserveBytes = 10 * MiB) {
  const clock = { t: 1000 };
  const calls = { n: 0 };
  const reserve = new WriteReserve({
    path: '/data', reserveBytes, now: () => clock.t, maxAgeMs: 250,
    freeBytes: async () => {
      calls.n++;
      return free.bytes;
    },
  });
  return { reserve, clock, calls };
}

const refusal = (p: Promise<unknown>): Promise<string | undefined> => p.then(() => undefined, (err: unknown) => (err instanceof AppError ? err.code : String(err)));

describe('WriteReserve', () => {
  it('admits writes that leave the reserve free and refuses the one that would not (InsufficientStorage 507)', async () => {
    const { reserve } = reserveOver({ bytes: 30 * MiB });
    await reserve.admit(5 * MiB);
    await reserve.admit(15 * MiB); // 30 - 5 - 15 = 10: exactly the reserve left
    expect(await refusal(reserve.admit(1))).toBe('InsufficientStorage');
    expect(await refusal(reserve.admit(0))).toBeUndefined(); // a completion adds no bytes: still at the reserve, not under
  });

  it('counts the bytes admitted against one reading, and reads again after maxAgeMs', async () => {
    const free = { bytes: 12 * MiB };
    const { reserve, clock, calls } = reserveOver(free);
    await reserve.admit(MiB);
    await reserve.admit(MiB);
    expect(calls.n).toBe(1);
    expect(await refusal(reserve.admit(MiB))).toBe('InsufficientStorage');
    free.bytes = 100 * MiB; // space freed
    clock.t += 250;
    await reserve.admit(50 * MiB);
    expect(calls.n).toBe(2);
  });

  it('shares one statfs among concurrent callers', async () => {
    const { reserve, calls } = reserveOver({ bytes: 100 * MiB });
    await Promise.all(Array.from({ length: 10 }, () => reserve.admit(MiB)));
    expect(calls.n).toBe(1);
  });

  it('does nothing when the reserve is 0, and admits when the free space cannot be read', async () => {
    const off = reserveOver({ bytes: 0 }, 0);
    await off.reserve.admit(MiB);
    expect(off.calls.n).toBe(0);
    const unreadable = new WriteReserve({ path: '/nope', reserveBytes: MiB, freeBytes: () => Promise.reject(new Error('ENOENT')) });
    await unreadable.admit(MiB);
  });
});
