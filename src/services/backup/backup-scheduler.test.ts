// The scheduler on an injected clock over real services in a temp directory: cron and interval timing, the
// retention union, run-now joining a run in flight, a crash mid-run leaving no partial snapshot, and a status that
// never shows the directory.

import { cpSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { body, openServices, type ServiceFixture } from '../../../test/helpers/services.js';
import { createLogger } from '../../observability/logger.js';
import { MetadataSnapshot } from '../../storage/db/metadata-snapshot.js';
import { ReadPins } from '../objects/object-reader.js';
import { BackupScheduler, type BackupSchedule, type SnapshotPusher } from './backup-scheduler.js';
import { BackupService } from './backup-service.js';
import { statfsFreeBytes, type FreeBytes } from '../free-space.js';
import { SnapshotDir, stampOf } from './snapshot-dir.js';

const DAY = 86_400_000;
const silent = createLogger('fatal');
let fx: ServiceFixture;
let snapshotDir: string;

beforeEach(async () => {
  fx = await openServices('2026-03-01T00:07:00Z');
  snapshotDir = join(fx.dir, 'backups');
  fx.buckets.create('alpha');
  fx.buckets.create('beta');
  await fx.objects.put({ bucket: 'alpha', key: 'a', body: body('alpha bytes'), headers: {}, userMeta: {} });
  await fx.objects.put({ bucket: 'beta', key: 'b', body: body(Buffer.alloc(200_000, 1)), headers: {}, userMeta: {} });
});

afterEach(async () => {
  await fx.close();
});

function scheduler(
  opts: {
    schedule?: BackupSchedule | undefined;
    scope?: 'instance' | 'buckets';
    keepLast?: number;
    maxAgeDays?: number;
    freeBytes?: FreeBytes;
    pusher?: SnapshotPusher;
    dir?: string;
  } = {},
): BackupScheduler {
  const backups = new BackupService({
    openSnapshot: () => MetadataSnapshot.open(join(fx.dir, 'meta.db')),
    blobs: fx.blobs,
    pins: new ReadPins(),
    storeVersion: 'test',
    now: fx.clock.now,
  });
  return new BackupScheduler({
    backups,
    dir: new SnapshotDir(opts.dir ?? snapshotDir, opts.freeBytes ?? statfsFreeBytes),
    schedule: 'schedule' in opts ? opts.schedule : { intervalMinutes: 60 },
    scope: opts.scope ?? 'instance',
    keepLast: opts.keepLast ?? 7,
    maxAgeDays: opts.maxAgeDays ?? 30,
    pusher: opts.pusher,
    logger: silent,
    now: fx.clock.now,
  });
}

const zips = (dir = snapshotDir): string[] =>
  readdirSync(dir)
    .filter((n) => n.endsWith('.zip') && !n.startsWith('.tmp-'))
    .sort();

describe('timing on an injected clock', () => {
  it('interval: the first run one interval after boot, then one interval after each run', async () => {
    const s = scheduler({ schedule: { intervalMinutes: 60 } });
    await s.init();
    expect((await s.status()).nextRunAt).toBe('2026-03-01T01:07:00.000Z');
    fx.clock.set('2026-03-01T01:06:59Z');
    s.tick();
    expect((await s.status()).running).toBe(false);
    fx.clock.set('2026-03-01T01:07:00Z');
    s.tick();
    const status = await s.status();
    expect(status.running).toBe(true);
    expect(status.nextRunAt).toBe('2026-03-01T02:07:00.000Z');
    await s.runNow().done;
    expect(zips()).toEqual([`instance-${stampOf(Date.parse('2026-03-01T01:07:00Z'))}.zip`]);
  });

  it('interval: after a restart the next run is one interval after the newest snapshot (or at once when overdue)', async () => {
    mkdirSync(snapshotDir, { recursive: true });
    writeFileSync(join(snapshotDir, `instance-${stampOf(Date.parse('2026-03-01T00:00:00Z'))}.zip`), 'x');
    const s = scheduler({ schedule: { intervalMinutes: 30 } });
    await s.init();
    expect((await s.status()).nextRunAt).toBe('2026-03-01T00:30:00.000Z');
    const overdue = scheduler({ schedule: { intervalMinutes: 5 } });
    await overdue.init();
    expect((await overdue.status()).nextRunAt).toBe('2026-03-01T00:07:00.000Z');
  });

  it('cron: runs at each matching minute (UTC), not before', async () => {
    const s = scheduler({ schedule: { cron: '*/15 * * * *' } });
    await s.init();
    expect((await s.status()).nextRunAt).toBe('2026-03-01T00:15:00.000Z');
    fx.clock.set('2026-03-01T00:14:59.999Z');
    s.tick();
    expect((await s.status()).running).toBe(false);
    fx.clock.set('2026-03-01T00:15:00.500Z');
    s.tick();
    expect((await s.status()).nextRunAt).toBe('2026-03-01T00:30:00.000Z');
    await s.runNow().done;
    fx.clock.set('2026-03-01T00:30:01Z');
    s.tick();
    await s.runNow().done;
    expect(zips()).toHaveLength(2);
    const daily = scheduler({ schedule: { cron: '30 2 * * 1' } });
    await daily.init();
    expect((await daily.status()).nextRunAt).toBe('2026-03-02T02:30:00.000Z'); // the next Monday 02:30
  });
});

describe('runs', () => {
  it('run-now starts a run; a second call and a due tick join it instead of starting another', async () => {
    const s = scheduler();
    await s.init();
    const first = s.runNow();
    const second = s.runNow();
    fx.clock.ms += 2 * 3_600_000;
    s.tick();
    expect(first.started).toBe(true);
    expect(second.started).toBe(false);
    expect(second.done).toBe(first.done);
    const outcome = await first.done;
    expect(outcome).toMatchObject({ result: 'ok', snapshots: 1 });
    expect(zips()).toHaveLength(1);
    expect((await s.status()).runs).toEqual({ started: 1, succeeded: 1, failed: 0 });
  });

  it('scope buckets writes one zip per bucket; snapshot files are 0600 in a 0700 directory; pushes each', async () => {
    const pushed: string[] = [];
    const s = scheduler({ scope: 'buckets', pusher: { push: async (name) => void pushed.push(name) } });
    await s.init();
    await s.runNow().done;
    const names = zips();
    expect(names.map((n) => n.replace(/-\d{8}T\d{9}Z\.zip$/, ''))).toEqual(['bucket-alpha', 'bucket-beta']);
    expect(pushed.sort()).toEqual(names);
    expect(statSync(snapshotDir).mode & 0o777).toBe(0o700);
    for (const name of names) expect(statSync(join(snapshotDir, name)).mode & 0o777).toBe(0o600);
  });

  it('is off without a schedule: run-now is a Conflict', async () => {
    const s = scheduler({ schedule: undefined });
    await s.init();
    expect(() => s.runNow()).toThrow(expect.objectContaining({ code: 'Conflict' }) as Error);
    expect((await s.status()).enabled).toBe(false);
  });

  it('checks free space first and reports a failure by code, never by path', async () => {
    const s = scheduler({ freeBytes: async () => 1000 });
    await s.init();
    const outcome = await s.runNow().done;
    expect(outcome).toMatchObject({ result: 'failed', error: 'InsufficientStorage', snapshots: 0 });
    expect(readdirSync(snapshotDir)).toEqual([]);
    const status = await s.status();
    expect(status.lastRun?.error).toBe('InsufficientStorage');
    expect(JSON.stringify(status)).not.toContain(fx.dir);
  });

  it('a crash during a run leaves no partial snapshot file: only a temp file, removed at the next boot', async () => {
    await fx.objects.put({
      bucket: 'alpha',
      key: 'big',
      body: body(Buffer.alloc(30 * 1024 * 1024, 3)),
      headers: {},
      userMeta: {},
    });
    const s = scheduler();
    await s.init();
    const run = s.runNow();
    // The moment the temp file exists, copy the directory: that is what a kill -9 at that instant leaves on disk.
    const crashed = join(fx.dir, 'crashed');
    for (let i = 0; i < 2000 && !readdirSync(snapshotDir).some((n) => n.startsWith('.tmp-')); i++)
      await new Promise((r) => setTimeout(r, 1));
    cpSync(snapshotDir, crashed, { recursive: true });
    await run.done;
    expect(readdirSync(crashed).some((n) => n.startsWith('.tmp-'))).toBe(true);
    expect(zips(crashed)).toEqual([]);
    const rebooted = scheduler({ dir: crashed });
    await rebooted.init();
    expect(readdirSync(crashed)).toEqual([]);
    expect((await rebooted.status()).snapshots.count).toBe(0);
  });

  it('stopping mid-run removes the temp file and records the run as failed', async () => {
    await fx.objects.put({
      bucket: 'alpha',
      key: 'big',
      body: body(Buffer.alloc(30 * 1024 * 1024, 3)),
      headers: {},
      userMeta: {},
    });
    const s = scheduler();
    await s.init();
    const run = s.runNow();
    for (let i = 0; i < 2000 && !readdirSync(snapshotDir).some((n) => n.startsWith('.tmp-')); i++)
      await new Promise((r) => setTimeout(r, 1));
    await s.close();
    expect((await run.done).result).toBe('failed');
    expect(readdirSync(snapshotDir)).toEqual([]);
  });
});

describe('retention', () => {
  const seed = (ages: number[], series = 'instance'): void => {
    mkdirSync(snapshotDir, { recursive: true });
    for (const days of ages)
      writeFileSync(join(snapshotDir, `${series}-${stampOf(fx.clock.ms - days * DAY)}.zip`), 'x');
  };

  it('prunes only snapshots both older than maxAgeDays and outside the newest keepLast', async () => {
    seed([0.5, 1, 2, 3, 6, 8, 10, 40]);
    const s = scheduler({ keepLast: 3, maxAgeDays: 5 });
    await s.init();
    // The newest 3 (0.5, 1, 2 days) stay whatever their age; of the rest only those older than 5 days go.
    expect(await s.prune()).toBe(4);
    const left = zips().map(
      (n) =>
        Math.round(
          ((fx.clock.ms -
            Date.parse(
              n.replace(/^instance-(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})(\d{3})Z\.zip$/, '$1-$2-$3T$4:$5:$6.$7Z'),
            )) /
            DAY) *
            10,
        ) / 10,
    );
    expect(left.sort((a, b) => a - b)).toEqual([0.5, 1, 2, 3]);
  });

  it('keepLast is a hard floor (all old), and young snapshots stay however many there are', async () => {
    seed([40, 50, 60, 70]);
    seed([0.1, 0.2, 0.3, 0.4, 0.5, 0.6], 'bucket-alpha');
    const s = scheduler({ keepLast: 2, maxAgeDays: 30 });
    await s.init();
    expect(await s.prune()).toBe(2);
    expect(zips().filter((n) => n.startsWith('instance-'))).toHaveLength(2);
    expect(zips().filter((n) => n.startsWith('bucket-alpha-'))).toHaveLength(6);
  });
});
