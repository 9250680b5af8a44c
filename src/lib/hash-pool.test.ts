// HashPool: a pooled MD5 equals node's for any chunking (batch boundaries included), hashers sharing a thread stay
// separate, the caller may reuse its chunks at once, batches pass from one hasher to the next (bounded, never leaking
// bytes into a digest), and a closed pool starts its threads again.

import { createHash, randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { HashPool, localMd5, type AsyncHasher } from './hash-pool.js';

const MiB = 1024 * 1024;
const pool = new HashPool(2);
afterAll(() => pool.close());

async function feed(hasher: AsyncHasher, data: Buffer, sizes: number[]): Promise<Buffer> {
  let offset = 0;
  for (let i = 0; offset < data.length; i++) {
    const n = sizes[i % sizes.length] as number;
    await hasher.update(data.subarray(offset, offset + n));
    offset += n;
  }
  return hasher.digest();
}

const md5 = (data: Buffer): string => createHash('md5').update(data).digest('hex');

describe('HashPool', () => {
  it.each([0, 1, MiB - 1, MiB, MiB + 1, 3 * MiB + 4321])(
    'hashes %i bytes as node does, whatever the chunking',
    async (size) => {
      const data = randomBytes(size);
      for (const sizes of [[65536], [1, 7000, 300000], [5 * MiB]]) {
        expect((await feed(pool.md5(), data, sizes)).toString('hex')).toBe(md5(data));
      }
    },
  );

  it('keeps hashers on the same thread apart, even interleaved', async () => {
    const single = new HashPool(1);
    const a = single.md5();
    const b = single.md5();
    const dataA = randomBytes(3 * MiB);
    const dataB = randomBytes(2 * MiB + 5);
    await Promise.all([feed(a, dataA, [MiB / 2]), feed(b, dataB, [300000])]).then(([da, db]) => {
      expect(da.toString('hex')).toBe(md5(dataA));
      expect(db.toString('hex')).toBe(md5(dataB));
    });
    await single.close();
  });

  it('copies each chunk, so the caller may overwrite it as soon as update() resolves', async () => {
    const hasher = pool.md5();
    const chunk = Buffer.alloc(700 * 1024);
    const expected = createHash('md5');
    for (let i = 0; i < 5; i++) {
      chunk.fill(i);
      expected.update(chunk);
      await hasher.update(chunk);
    }
    expect((await hasher.digest()).equals(expected.digest())).toBe(true);
  });

  it('starts new threads after close(), and a discarded hasher leaves the others intact', async () => {
    const own = new HashPool(1);
    const dropped = own.md5();
    await dropped.update(randomBytes(2 * MiB));
    dropped.discard();
    dropped.discard();
    await own.close();
    const data = randomBytes(MiB + 1);
    expect((await feed(own.md5(), data, [MiB])).toString('hex')).toBe(md5(data));
    await own.close();
  });

  it('gives its batches to the next hashers, whose digests do not see the earlier bytes', async () => {
    const own = new HashPool(1);
    expect(own.idleBatches).toBe(0);
    const first = randomBytes(2 * MiB + 123);
    expect((await feed(own.md5(), first, [65536])).toString('hex')).toBe(md5(first));
    const kept = own.idleBatches;
    expect(kept).toBeGreaterThanOrEqual(1);
    // A short body after a long one: the reused batch still holds the long body's bytes past the short one's end.
    const second = Buffer.from('short');
    const hasher = own.md5();
    await hasher.update(second);
    expect(own.idleBatches).toBe(kept - 1);
    expect((await hasher.digest()).toString('hex')).toBe(md5(second));
    expect(own.idleBatches).toBe(kept);
    // A hasher that gets no bytes takes no batch.
    await own.md5().digest();
    expect(own.idleBatches).toBe(kept);
    await own.close();
  });

  it("takes back a discarded hasher's batches and keeps at most 8 idle", async () => {
    const own = new HashPool(1);
    const dropped = own.md5();
    await dropped.update(randomBytes(MiB / 2));
    dropped.discard();
    expect(own.idleBatches).toBe(1);
    const many = Array.from({ length: 12 }, () => own.md5());
    for (const hasher of many) await hasher.update(randomBytes(1000));
    expect(own.idleBatches).toBe(0);
    await Promise.all(many.map((hasher) => hasher.digest()));
    expect(own.idleBatches).toBe(8);
    await own.close();
  });

  it('localMd5 keeps the same contract on the calling thread', async () => {
    const data = randomBytes(100_000);
    expect((await feed(localMd5(), data, [999])).toString('hex')).toBe(md5(data));
  });
});
