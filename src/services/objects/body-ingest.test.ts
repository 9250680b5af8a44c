// A body is charged to its write's free-space lease as it arrives: a body that runs into the reserve fails with
// InsufficientStorage, leaves no staging file, and ends its lease; so does every other outcome.

import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AppError } from '../../core/errors.js';
import { openServices, type ServiceFixture } from '../../../test/helpers/services.js';
import { ingestBody } from './body-ingest.js';
import type { WriteLease } from './write-reserve.js';

let fx: ServiceFixture;
beforeEach(async () => {
  fx = await openServices('2026-01-01T00:00:00Z');
});
afterEach(async () => {
  await fx.close();
});

/** A lease that refuses once more than `limit` bytes were charged, and records what happened to it. */
function leaseUpTo(limit: number): WriteLease & { charged: number; released: number } {
  const lease = {
    charged: 0,
    released: 0,
    charge(bytes: number) {
      if (lease.charged + bytes > limit) throw new AppError('InsufficientStorage');
      lease.charged += bytes;
    },
    release() {
      lease.released += 1;
    },
  };
  return lease;
}

const chunks = (count: number, size: number): Readable =>
  Readable.from(Array.from({ length: count }, () => Buffer.alloc(size, 7)));

describe('ingestBody and the free-space lease', () => {
  it.each([
    ['a small body of unknown size', 4, 100_000],
    ['a streamed body of unknown size', 40, 256 * 1024],
  ])(
    '%s that runs into the reserve fails with InsufficientStorage, stages nothing and ends its lease',
    async (_name, count, size) => {
      const lease = leaseUpTo(3 * size);
      await expect(
        ingestBody(fx.blobs, { source: chunks(count, size), size: undefined }, { maxSize: 5 * 1024 ** 3, lease }),
      ).rejects.toMatchObject({ code: 'InsufficientStorage' });
      expect(lease.charged).toBe(3 * size);
      expect(lease.released).toBe(1);
      expect(readdirSync(join(fx.dir, 'tmp'))).toEqual([]);
    },
  );

  it('charges every byte of a body that fits and ends the lease once it is staged', async () => {
    const lease = leaseUpTo(Number.MAX_SAFE_INTEGER);
    const ingested = await ingestBody(
      fx.blobs,
      { source: chunks(10, 300_000), size: 3_000_000 },
      { maxSize: 5 * 1024 ** 3, lease },
    );
    expect(lease).toMatchObject({ charged: 3_000_000, released: 1 });
    await ingested.staged.discard();
  });

  it('ends the lease when the body fails for another reason (shorter than declared)', async () => {
    const lease = leaseUpTo(Number.MAX_SAFE_INTEGER);
    await expect(
      ingestBody(fx.blobs, { source: chunks(2, 1000), size: 5000 }, { maxSize: 5 * 1024 ** 3, lease }),
    ).rejects.toMatchObject({ code: 'IncompleteBody' });
    expect(lease.released).toBe(1);
  });
});
