// kill -9 during a replication drain and during a tier sweep. After the restart nothing is lost or left in a wrong
// state: the outbox drains and the remote mirror equals the local objects exactly (no missing key, no extra key,
// every byte right); every tiered object is either local or a stub whose remote copy exists and reads back, and
// the remote holds no tier copy that no version refers to once the tier GC has run.

import { randomBytes } from 'node:crypto';
import {
  CreateBucketCommand,
  GetObjectCommand,
  PutBucketLifecycleConfigurationCommand,
  PutObjectCommand,
} from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import {
  remoteListing,
  remoteObject,
  replicationEnv,
  replicationStatus,
  sha256,
  startStoreTarget,
  waitFor,
} from '../helpers/replication.js';
import { startStore } from '../helpers/store.js';

const MIB = 1024 * 1024;

describe('kill -9', () => {
  it('during a drain: after the restart the outbox drains and the remote equals the local objects', async () => {
    const t = await startStoreTarget();
    const source = await startStore({
      env: replicationEnv(t.target, {
        STORE_REPLICATION_BATCH_KEYS: '4',
        STORE_REPLICATION_LARGE_OBJECT_THRESHOLD_BYTES: String(5 * MIB),
      }),
    });
    await source.s3.send(new CreateBucketCommand({ Bucket: 'data' }));
    const bodies = new Map<string, Buffer>();
    for (let i = 0; i < 24; i++) bodies.set(`obj-${i}`, randomBytes(i % 4 === 0 ? 6 * MIB : 256 * 1024));
    for (const [key, body] of bodies)
      await source.s3.send(new PutObjectCommand({ Bucket: 'data', Key: key, Body: body }));
    // Some keys are on the remote, the rest still pending or in flight: kill now.
    await waitFor('a drain in progress', async () => (await remoteListing(t.target, 'data/')).size >= 2, {
      timeoutMs: 20_000,
      everyMs: 10,
    });
    await source.kill();

    await source.restart();
    await waitFor(
      'the outbox to drain after the restart',
      async () => {
        const st = await replicationStatus(source.server, await source.admin());
        return st.outbox.pending + st.outbox.inflight + st.outbox.failed === 0;
      },
      { timeoutMs: 60_000, everyMs: 200 },
    );
    const listing = await remoteListing(t.target, 'data/');
    expect([...listing.keys()].sort()).toEqual([...bodies.keys()].map((k) => `data/${k}`).sort());
    for (const [key, body] of bodies) expect((await remoteObject(t.target, `data/${key}`))?.sha256).toBe(sha256(body));
  }, 120_000);

  it('during a tier sweep: every object reads back, every stub has its remote copy, and no remote copy is orphaned', async () => {
    const t = await startStoreTarget();
    const source = await startStore({
      env: replicationEnv(t.target, {
        STORE_REPLICATION_ENABLED: 'false',
        STORE_TIER_ENABLED: 'true',
        STORE_LIFECYCLE_INTERVAL_MS: '100',
      }),
    });
    await source.s3.send(new CreateBucketCommand({ Bucket: 'cold' }));
    const bodies = new Map<string, Buffer>();
    for (let i = 0; i < 30; i++) bodies.set(`o-${i}`, randomBytes(MIB));
    for (const [key, body] of bodies)
      await source.s3.send(new PutObjectCommand({ Bucket: 'cold', Key: key, Body: body }));
    await source.s3.send(
      new PutBucketLifecycleConfigurationCommand({
        Bucket: 'cold',
        LifecycleConfiguration: {
          Rules: [
            {
              ID: 'all',
              Status: 'Enabled',
              Filter: { Prefix: '' },
              Transitions: [{ Date: new Date('2020-01-01T00:00:00Z'), StorageClass: 'DEEP_ARCHIVE' }],
            },
          ],
        },
      }),
    );
    await waitFor(
      'the sweep to start uploading',
      async () => (await remoteListing(t.target, '.store/tier/')).size >= 1,
      { timeoutMs: 20_000, everyMs: 5 },
    );
    await source.kill();

    await source.restart();
    const tiering = async (): Promise<{ stubs: number; restored: number; pendingRemoteDeletes: number }> =>
      (await source.adminCall('GET', '/tiering/status')).body as {
        stubs: number;
        restored: number;
        pendingRemoteDeletes: number;
      };
    await waitFor(
      'every object tiered and the tier GC done',
      async () => {
        const st = await tiering();
        return st.stubs === 30 && st.pendingRemoteDeletes === 0;
      },
      { timeoutMs: 60_000, everyMs: 200 },
    );
    // Exactly one remote copy per stub: copies of uploads the crash cut short were deleted.
    await waitFor('no orphaned remote copy', async () => (await remoteListing(t.target, '.store/tier/')).size === 30, {
      timeoutMs: 20_000,
      everyMs: 200,
    });
    for (const [key, body] of bodies) {
      const res = await source.s3.send(new GetObjectCommand({ Bucket: 'cold', Key: key }));
      const bytes = Buffer.from(
        await (res.Body as { transformToByteArray(): Promise<Uint8Array> }).transformToByteArray(),
      );
      expect(sha256(bytes)).toBe(sha256(body));
      expect(res.StorageClass).toBe('DEEP_ARCHIVE');
    }
  }, 120_000);
});
