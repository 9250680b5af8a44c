// TierService's sweep over a real MetadataStore and BlobStore, against an in-memory remote: a sweep stops at its
// budget and the next resumes where it stopped (versions that failed are retried on the next pass over the bucket,
// not at the head of every sweep), and the walk starts over after the last bucket.

import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemoryRemote } from '../../../test/helpers/memory-remote.js';
import { body, openServices, type ServiceFixture } from '../../../test/helpers/services.js';
import { LifecycleRepo } from '../../storage/db/lifecycle-repo.js';
import { TierRepo } from '../../storage/db/tier-repo.js';
import { RemoteError } from '../replication/remote-store.js';
import { TierService } from './tier-service.js';

let fx: ServiceFixture;
let remote: MemoryRemote;

beforeEach(async () => {
  fx = await openServices('2026-06-01T00:00:00Z');
  remote = new MemoryRemote();
});
afterEach(() => fx.close());

function tierService(maxPerSweep: number): TierService {
  return new TierService({
    meta: fx.meta,
    repo: new TierRepo(fx.meta.db),
    lifecycle: new LifecycleRepo(fx.meta.db),
    objects: fx.objects,
    blobs: fx.blobs,
    remote,
    enabled: true,
    dataDir: fx.dir,
    readThroughTimeoutMs: 5000,
    maxConcurrentRehydrate: 2,
    presignTtlSeconds: 60,
    inlineMaxBytes: 1 << 20,
    logger: pino({ level: 'silent' }),
    maxPerSweep,
    now: fx.clock.now,
  });
}

const stubs = (): string[] =>
  fx.meta.db.prepare("SELECT key FROM objects WHERE tier_state = 'stub' ORDER BY key").pluck().all() as string[];

describe('the tier sweep', () => {
  it('stops at its budget and resumes where it stopped, so failing versions do not hold the rest back', async () => {
    fx.buckets.create('cold');
    // Objects under 128 KiB are not transitioned (S3's minimum), so these are 200 KiB.
    fx.buckets.putConfig('cold', 'lifecycle', {
      rules: [
        {
          id: 'r',
          status: 'Enabled',
          filter: { prefix: '' },
          transitions: [{ date: '2020-01-01T00:00:00.000Z', storageClass: 'GLACIER' }],
        },
      ],
    });
    for (const key of ['a', 'b', 'c', 'd', 'e'])
      await fx.objects.put({
        bucket: 'cold',
        key,
        body: body(Buffer.alloc(200 * 1024, key)),
        headers: {},
        userMeta: {},
      });
    const tiers = tierService(2);
    const signal = new AbortController().signal;

    remote.failWith = new RemoteError('unreachable');
    expect(await tiers.sweep(fx.clock.date(), signal)).toMatchObject({ tiered: 0, failed: 2, complete: false });
    remote.failWith = undefined;
    expect(await tiers.sweep(fx.clock.date(), signal)).toMatchObject({ tiered: 2, failed: 0, complete: false });
    expect(stubs()).toEqual(['c', 'd']);
    expect(await tiers.sweep(fx.clock.date(), signal)).toMatchObject({ tiered: 1, complete: true });
    expect(stubs()).toEqual(['c', 'd', 'e']);
    // The next sweep starts over and picks up the two that failed.
    expect(await tiers.sweep(fx.clock.date(), signal)).toMatchObject({ tiered: 2, complete: false });
    expect(stubs()).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(await tiers.sweep(fx.clock.date(), signal)).toMatchObject({ tiered: 0, complete: true });
  });
});
