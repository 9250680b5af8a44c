// Backups meet replication and tiering (a second Store as the target): a scheduled snapshot is pushed under the
// reserved prefix `.store/backups/` (byte for byte, and never mirrored back as user data); a restore's reset is
// replicated like any write (restored objects appear on the target, removed ones go); a backup reads tiered stubs
// from the remote without rehydrating them, and their bytes restore.

import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import {
  CreateBucketCommand,
  GetObjectCommand,
  PutBucketLifecycleConfigurationCommand,
  PutObjectCommand,
} from '@aws-sdk/client-s3';
import { afterAll, describe, expect, it } from 'vitest';
import { makeV1Backup } from '../fixtures/make-v1-backup.mjs';
import { downloadArchive, uploadArchive } from '../helpers/backup-fixture.js';
import { uniqueBucket } from '../helpers/clients.js';
import {
  remoteListing,
  remoteObject,
  replicationEnv,
  replicationStatus,
  useStoreTarget,
  waitFor,
} from '../helpers/replication.js';
import { tempDir } from '../helpers/server.js';
import { startStore, useStore } from '../helpers/store.js';

const snapshots = join(tempDir('store-backup-push-'), 'snapshots');
const target = useStoreTarget();
const source = useStore(() => ({
  env: replicationEnv(target.target, {
    STORE_SCHEDULED_BACKUP_ENABLED: 'true',
    STORE_SCHEDULED_BACKUP_SCOPE: 'instance',
    STORE_SCHEDULED_BACKUP_CRON: '0 0 1 1 *',
    STORE_SCHEDULED_BACKUP_DIR: snapshots,
    STORE_SCHEDULED_BACKUP_PUSH_TO_REPLICATION: 'true',
    STORE_TIER_ENABLED: 'true',
    STORE_LIFECYCLE_INTERVAL_MS: '200',
  }),
}));
afterAll(() => rmSync(join(snapshots, '..'), { recursive: true, force: true }));

const sha256 = (data: Buffer | string): string => createHash('sha256').update(data).digest('hex');

async function drained(): Promise<void> {
  await waitFor('the replication outbox to drain', async () => {
    const st = await replicationStatus(source.server, await source.admin());
    return st.outbox.pending + st.outbox.inflight + st.outbox.failed === 0;
  });
}

describe('backups with a replication target', () => {
  it('does not warn at boot: replication is on, so snapshots are pushed', () => {
    expect(source.server.output()).not.toMatch(/snapshots stay local/);
  });

  it('replicates a restore: restored objects appear on the target, and what the reset removed goes', async () => {
    const doomed = uniqueBucket('doomed');
    await source.s3.send(new CreateBucketCommand({ Bucket: doomed }));
    await source.s3.send(new PutObjectCommand({ Bucket: doomed, Key: 'gone', Body: 'soon gone' }));
    await drained();
    expect(await remoteObject(target.target, `${doomed}/gone`)).toBeDefined();
    const res = await uploadArchive(source.server, await source.admin(), { bytes: await makeV1Backup() });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    await drained();
    expect((await remoteObject(target.target, 'legacy-photos/cat.txt'))?.sha256).toBe(sha256('a v1 cat\n'));
    expect(await remoteObject(target.target, `${doomed}/gone`)).toBeUndefined();
  });

  it('pushes each scheduled snapshot under .store/backups/, byte for byte, and replication never mirrors it as data', async () => {
    expect((await source.adminCall('POST', '/backup/schedule/run-now')).status).toBe(202);
    await waitFor(
      'the run',
      async () =>
        ((await source.adminCall('GET', '/backup/schedule')).body as { runs: { succeeded: number } }).runs.succeeded ===
        1,
    );
    const status = (await source.adminCall('GET', '/backup/schedule')).body;
    expect(status).toMatchObject({ policy: { pushToReplication: true }, lastRun: { result: 'ok', snapshots: 1 } });
    const [file] = readdirSync(snapshots);
    const pushed = await remoteObject(target.target, `.store/backups/${file as string}`);
    expect(pushed?.sha256).toBe(sha256(readFileSync(join(snapshots, file as string))));
    await drained();
    const keys = [...(await remoteListing(target.target)).keys()];
    expect(keys.filter((k) => k.startsWith('.store/backups/'))).toEqual([`.store/backups/${file as string}`]);
  });

  it('backs up a tiered stub by reading it from the remote (no rehydration), and it restores', async () => {
    const cold = uniqueBucket('cold');
    await source.s3.send(new CreateBucketCommand({ Bucket: cold }));
    const bytes = Buffer.alloc(300 * 1024, 5);
    await source.s3.send(new PutObjectCommand({ Bucket: cold, Key: 'frozen', Body: bytes }));
    await source.s3.send(
      new PutBucketLifecycleConfigurationCommand({
        Bucket: cold,
        LifecycleConfiguration: {
          Rules: [
            {
              ID: 'x',
              Status: 'Enabled',
              Filter: { Prefix: '' },
              Transitions: [{ Date: new Date('2020-01-01T00:00:00Z'), StorageClass: 'STANDARD_IA' }],
            },
          ],
        },
      }),
    );
    await waitFor(
      'a stub',
      async () => ((await source.adminCall('GET', '/tiering/status')).body as { stubs: number }).stubs === 1,
    );
    const archive = await downloadArchive(source.server, await source.admin(), `/buckets/${cold}/backup`);
    expect(archive.status).toBe(200);
    expect(((await source.adminCall('GET', '/tiering/status')).body as { stubs: number }).stubs).toBe(1);
    const fresh = await startStore();
    expect(
      (
        await uploadArchive(fresh.server, await fresh.admin(), {
          bytes: archive.bytes,
          path: `/buckets/${cold}/restore`,
        })
      ).status,
    ).toBe(200);
    const got = await fresh.s3.send(new GetObjectCommand({ Bucket: cold, Key: 'frozen' }));
    expect(sha256(Buffer.from(await got.Body!.transformToByteArray()))).toBe(sha256(bytes));
  });
});
