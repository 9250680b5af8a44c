// Disk full, the scheduled-backup directory (issue 11): STORE_SCHEDULED_BACKUP_DIR on a small tmpfs mounted by the
// test. A snapshot that the free-space check refuses, and one whose directory fills up while it is being written,
// both fail the run with InsufficientStorage and leave no file behind (no partial snapshot, no temp file); the
// server keeps serving; the next run succeeds once space is freed and holds every object byte-exact.

import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { CreateBucketCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { describe, expect, it, onTestFinished } from 'vitest';
import { adminCall } from '../helpers/admin-session.js';
import { sha256Hex } from '../helpers/data-dir-inspect.js';
import { waitFor } from '../helpers/replication.js';
import type { RunningServer } from '../helpers/server.js';
import { startStore } from '../helpers/store.js';
import { fill, mountTmpfs, tmpfsUnavailable } from '../helpers/tmpfs.js';
import { unzip } from '../helpers/zip-craft.js';

const MiB = 1024 * 1024;
/** The snapshot's free-space check wants its estimated size plus this (services/free-space.ts). */
const MARGIN = 64 * MiB;
const OBJECTS = 24;
const unavailable = tmpfsUnavailable();
if (unavailable) console.log(`disk-full backup suite skipped: ${unavailable}`);

interface LastRun {
  startedAt: string;
  result: 'ok' | 'failed';
  snapshots: number;
  error: string | null;
}

/** POST run-now (202, a new run) and wait for that run to finish; its outcome from the schedule status. */
async function runNow(server: RunningServer, token: string, during?: () => void): Promise<LastRun> {
  const before = Date.now();
  const started = await adminCall(server, token, { method: 'POST', path: '/backup/schedule/run-now' });
  expect(started).toMatchObject({ status: 202, body: { started: true } });
  during?.();
  return waitFor(
    'the backup run to finish',
    async () => {
      const status = (await adminCall(server, token, { method: 'GET', path: '/backup/schedule' })).body as {
        running: boolean;
        lastRun: LastRun | null;
      };
      return !status.running && status.lastRun && Date.parse(status.lastRun.startedAt) >= before - 1000
        ? status.lastRun
        : undefined;
    },
    { timeoutMs: 60_000, everyMs: 20 },
  );
}

describe.skipIf(unavailable !== undefined)('a full backup directory', () => {
  it('fails a snapshot cleanly (refused up front, or filling up mid-write) and succeeds once space is freed', async () => {
    const volume = mountTmpfs(OBJECTS * MiB + MARGIN + 24 * MiB);
    onTestFinished(() => volume.unmount());
    const dir = join(volume.dir, 'backups');
    const store = await startStore({
      env: {
        STORE_SCHEDULED_BACKUP_ENABLED: 'true',
        STORE_SCHEDULED_BACKUP_SCOPE: 'instance',
        STORE_SCHEDULED_BACKUP_DIR: dir,
        STORE_SCHEDULED_BACKUP_CRON: '0 0 1 1 *', // only run-now in this test
      },
    });
    const { server } = store;
    const token = await store.admin();
    const s3 = store.s3;
    const hashes = new Set<string>();
    try {
      await s3.send(new CreateBucketCommand({ Bucket: 'kept' }));
      for (let i = 0; i < OBJECTS; i++) {
        const body = randomBytes(MiB);
        hashes.add(sha256Hex(body));
        await s3.send(new PutObjectCommand({ Bucket: 'kept', Key: `obj/${i}`, Body: body }));
      }
      const files = (): string[] => readdirSync(dir).sort();

      // 1. Not enough room for the estimate plus the margin: refused before a byte is written.
      fill(join(volume.dir, 'filler'), 40 * MiB, volume.free);
      const refused = await runNow(server, token);
      expect(refused).toMatchObject({ result: 'failed', error: 'InsufficientStorage', snapshots: 0 });
      expect(files()).toEqual([]);

      // 2. Room at the start, but something else takes the rest while the snapshot is being written: the write fails
      //    with ENOSPC, reported as the same InsufficientStorage, and its temp file is removed at once.
      rmSync(join(volume.dir, 'filler'));
      fill(join(volume.dir, 'filler'), OBJECTS * MiB + MARGIN + 4 * MiB, volume.free);
      let midWrite: LastRun | undefined;
      let sawTemp = false;
      for (let attempt = 0; attempt < 3 && !sawTemp; attempt++) {
        midWrite = await runNow(server, token, () => {
          // Wait (synchronously: nothing else may run) for the temp file, then fill the volume to the last byte.
          const deadline = Date.now() + 10_000;
          while (!sawTemp && Date.now() < deadline) sawTemp = files().some((f) => f.startsWith('.tmp-'));
          fill(join(volume.dir, 'late-filler'), 0, volume.free);
        });
        if (!sawTemp || midWrite.result === 'ok') {
          // The run finished before the filler could land: free what it wrote and try again.
          console.log(`backup-dir race lost (attempt ${attempt + 1}): ${JSON.stringify(midWrite)}`);
          for (const f of files()) rmSync(join(dir, f));
          sawTemp = false;
        }
        rmSync(join(volume.dir, 'late-filler'), { force: true });
      }
      expect(sawTemp).toBe(true);
      expect(midWrite).toMatchObject({ result: 'failed', error: 'InsufficientStorage', snapshots: 0 });
      expect(files()).toEqual([]);
      expect((await fetch(`${server.url}/api/admin/ready`)).status).toBe(200);

      // 3. Space freed: the next run writes a complete snapshot holding every object.
      rmSync(join(volume.dir, 'filler'));
      const ok = await runNow(server, token);
      expect(ok).toMatchObject({ result: 'ok', snapshots: 1, error: null });
      const [snapshot, ...others] = files();
      expect(others).toEqual([]);
      expect(snapshot).toMatch(/^instance-\d{8}T\d{9}Z\.zip$/);
      expect(statSync(join(dir, snapshot as string)).mode & 0o777).toBe(0o600);
      const entries = await unzip(readFileSync(join(dir, snapshot as string)));
      const archived = new Set([...entries.values()].map((bytes) => sha256Hex(bytes)));
      expect([...hashes].filter((h) => !archived.has(h))).toEqual([]);
      console.log(
        `backup directory: refused up front (${refused.error}), failed mid-write (${midWrite?.error}), ` +
          `then a ${(statSync(join(dir, snapshot as string)).size / MiB).toFixed(1)} MiB snapshot with all ${OBJECTS} objects`,
      );
    } finally {
      expect(await store.stop()).toBe(0);
    }
  });
});
