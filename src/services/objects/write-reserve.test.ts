// The free-space reserve: writes are admitted by what they declared plus what the writes in flight still owe, every
// byte is charged as it arrives (so bodies of unknown size are counted too), and a fresh reading never forgets the
// bytes of uploads in flight.

import { describe, expect, it } from 'vitest';
import { AppError } from '../../core/errors.js';
import { UNFLUSHED_SLACK_BYTES, WriteReserve, type WriteLease } from './write-reserve.js';

const MiB = 1024 * 1024;

/** A reserve over a fake volume with `free` bytes and a hand-moved clock; counts the statfs calls. */
function reserveOver(free: { bytes: number }, reserveBytes = 10 * MiB) {
  const clock = { t: 1000 };
  const calls = { n: 0 };
  const reserve = new WriteReserve({
    path: '/data',
    reserveBytes,
    now: () => clock.t,
    maxAgeMs: 250,
    freeBytes: async () => {
      calls.n++;
      return free.bytes;
    },
  });
  return { reserve, clock, calls };
}

const refusal = (p: Promise<unknown>): Promise<string | undefined> =>
  p.then(
    () => undefined,
    (err: unknown) => (err instanceof AppError ? err.code : String(err)),
  );
const chargeRefusal = (lease: WriteLease, bytes: number): string | undefined => {
  try {
    lease.charge(bytes);
    return undefined;
  } catch (err) {
    return err instanceof AppError ? err.code : String(err);
  }
};

/** Charges `bytes` in 64 KiB chunks, as a body arrives. */
function stream(lease: WriteLease, bytes: number): void {
  for (let sent = 0; sent < bytes; sent += 65_536) lease.charge(Math.min(65_536, bytes - sent));
}

describe('WriteReserve', () => {
  it('admits writes that leave the reserve free and refuses the one that would not (InsufficientStorage 507)', async () => {
    const { reserve } = reserveOver({ bytes: 30 * MiB });
    await reserve.admit(5 * MiB);
    await reserve.admit(14 * MiB);
    expect(await refusal(reserve.admit(2 * MiB))).toBe('InsufficientStorage');
    expect(await refusal(reserve.admit(0))).toBeUndefined(); // a completion adds no bytes: still above the reserve
  });

  it('counts what the writes in flight still owe across a fresh reading (the reading cannot see unsent bytes)', async () => {
    const free = { bytes: 40 * MiB };
    const { reserve, clock } = reserveOver(free);
    const first = await reserve.admit(20 * MiB);
    stream(first, 2 * MiB);
    clock.t += 1000; // the reading is stale: the next admission reads again, and still counts the 18 MiB owed
    expect(await refusal(reserve.admit(15 * MiB))).toBe('InsufficientStorage');
    expect(await refusal(reserve.admit(5 * MiB))).toBeUndefined();
  });

  it('charges a body of unknown size as it arrives and cuts it at the reserve', async () => {
    const { reserve } = reserveOver({ bytes: 20 * MiB });
    const unknown = await reserve.admit(undefined);
    stream(unknown, 9 * MiB);
    expect(chargeRefusal(unknown, 2 * MiB)).toBe('InsufficientStorage');
    unknown.release();
  });

  it('checks the bytes beyond a declared size, and lets the declared ones through', async () => {
    const { reserve } = reserveOver({ bytes: 20 * MiB });
    const lease = await reserve.admit(9 * MiB);
    expect(await refusal(reserve.admit(2 * MiB))).toBe('InsufficientStorage');
    stream(lease, 9 * MiB);
    expect(chargeRefusal(lease, 2 * MiB)).toBe('InsufficientStorage');
  });

  it('two concurrent uploads cannot both take what only one fits, whenever the free space is read again', async () => {
    const free = { bytes: 30 * MiB };
    const { reserve, clock } = reserveOver(free);
    const a = await reserve.admit(15 * MiB);
    for (let step = 0; step < 15; step++) {
      stream(a, MiB);
      free.bytes -= MiB; // the volume sees the bytes as they are written
      clock.t += 300;
    }
    // The reading taken meanwhile trusts only what was charged more than UNFLUSHED_SLACK_BYTES ago.
    expect(await refusal(reserve.admit(15 * MiB))).toBe('InsufficientStorage');
    a.release();
    clock.t += 300;
    expect(await refusal(reserve.admit(4 * MiB))).toBeUndefined();
  });

  it('counts the bytes of an ended write until a reading issued after it includes them', async () => {
    const free = { bytes: 30 * MiB };
    const { reserve, clock } = reserveOver(free);
    const a = await reserve.admit(8 * MiB);
    stream(a, 8 * MiB);
    a.release();
    // The reading is fresh (not yet re-read): the 8 MiB still count.
    expect(await refusal(reserve.admit(13 * MiB))).toBe('InsufficientStorage');
    free.bytes -= 8 * MiB;
    clock.t += 300;
    expect(await refusal(reserve.admit(11 * MiB))).toBeUndefined();
  });

  it('releasing a lease early gives back what it declared and did not send, once', async () => {
    const { reserve } = reserveOver({ bytes: 30 * MiB });
    const a = await reserve.admit(15 * MiB);
    a.release();
    a.release();
    a.charge(MiB); // a charge after release is ignored
    expect(await refusal(reserve.admit(15 * MiB))).toBeUndefined();
  });

  it('shares one statfs among concurrent callers, and reads again after maxAgeMs', async () => {
    const { reserve, calls, clock } = reserveOver({ bytes: 100 * MiB });
    await Promise.all(Array.from({ length: 10 }, () => reserve.admit(MiB)));
    expect(calls.n).toBe(1);
    clock.t += 250;
    await reserve.admit(MiB);
    expect(calls.n).toBe(2);
  });

  it('reads again in the background when a long upload charges on a stale reading', async () => {
    const { reserve, calls, clock } = reserveOver({ bytes: 100 * MiB });
    const lease = await reserve.admit(50 * MiB);
    clock.t += 1000;
    stream(lease, UNFLUSHED_SLACK_BYTES);
    await new Promise((r) => setImmediate(r));
    expect(calls.n).toBe(2);
  });

  it('does nothing when the reserve is 0, and admits when the free space cannot be read', async () => {
    const off = reserveOver({ bytes: 0 }, 0);
    stream(await off.reserve.admit(MiB), 10 * MiB);
    expect(off.calls.n).toBe(0);
    const unreadable = new WriteReserve({
      path: '/nope',
      reserveBytes: MiB,
      freeBytes: () => Promise.reject(new Error('ENOENT')),
    });
    stream(await unreadable.admit(undefined), 10 * MiB);
  });
});
