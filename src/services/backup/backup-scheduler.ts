// Scheduled backups (STORE_SCHEDULED_BACKUP_*): when a run is due (cron or fixed interval, on an injectable clock),
// one snapshot of the instance or one per bucket is written to the snapshot directory, optionally pushed to the
// replication target, and old snapshots are pruned by the union rule. One run at a time: a tick or run-now while a
// run is in flight joins it. The status never shows the directory.

import { snapshotsToPrune } from '../../core/backup-retention.js';
import { AppError, isAppError } from '../../core/errors.js';
import { isStorageFull } from '../../core/system-errors.js';
import { cronParser } from '../../lib/cron.js';
import type { Logger } from '../../observability/logger.js';
import type { BackupScope, BackupService } from './backup-service.js';
import type { SnapshotDir } from './snapshot-dir.js';

/**
 * Copies a finished snapshot somewhere else (the replication target, under a reserved prefix such as
 * `.store/backups/` that replication and listings of user data never touch). Wired in app.ts when replication is on.
 */
export interface SnapshotPusher {
  push(name: string, path: string): Promise<void>;
}

export type BackupSchedule = { cron: string } | { intervalMinutes: number };

export interface BackupSchedulerOptions {
  backups: BackupService;
  dir: SnapshotDir;
  /** Undefined when scheduled backups are off (run-now then answers 409). */
  schedule: BackupSchedule | undefined;
  scope: 'instance' | 'buckets';
  keepLast: number;
  maxAgeDays: number;
  pusher?: SnapshotPusher | undefined;
  logger: Logger;
  now?: () => number;
}

export interface RunOutcome {
  result: 'ok' | 'failed';
  startedAt: number;
  finishedAt: number;
  snapshots: number;
  bytes: number;
  pruned: number;
  pushed: number;
  /** A short reason (an error code), never a path. */
  error?: string;
}

export interface BackupScheduleStatus {
  enabled: boolean;
  running: boolean;
  policy: {
    scope: 'instance' | 'buckets' | null;
    cron: string | null;
    intervalMinutes: number | null;
    keepLast: number;
    maxAgeDays: number;
    pushToReplication: boolean;
  };
  snapshots: { count: number; bytes: number; newestAt: string | null; oldestAt: string | null };
  runs: { started: number; succeeded: number; failed: number };
  lastRun: {
    startedAt: string;
    finishedAt: string;
    result: 'ok' | 'failed';
    snapshots: number;
    bytes: number;
    pruned: number;
    error: string | null;
  } | null;
  nextRunAt: string | null;
}

const MINUTE = 60_000;

export class BackupScheduler {
  private readonly now: () => number;
  private current: Promise<RunOutcome> | undefined;
  private abort: AbortController | undefined;
  private nextRunAt: number | undefined;
  private last: RunOutcome | undefined;
  private readonly runs = { started: 0, succeeded: 0, failed: 0 };

  constructor(private readonly opts: BackupSchedulerOptions) {
    this.now = opts.now ?? Date.now;
  }

  get enabled(): boolean {
    return this.opts.schedule !== undefined;
  }

  /** Prepares the directory, removes what a crash left, and plans the first run. */
  async init(): Promise<void> {
    if (!this.enabled) return;
    const removed = await this.opts.dir.init();
    if (removed > 0) this.opts.logger.info({ removed }, 'removed partial snapshot files left by an interrupted backup');
    const newest = (await this.opts.dir.list()).at(-1)?.createdAt;
    this.nextRunAt = this.plan(newest);
  }

  /** The next due time after `from` (cron), or one interval after the last snapshot (or now, if there is none yet). */
  private plan(lastSnapshotAt?: number): number {
    const schedule = this.opts.schedule as BackupSchedule;
    const now = this.now();
    if ('cron' in schedule) {
      return cronParser()
        .parse(schedule.cron, { tz: 'UTC', currentDate: new Date(now) })
        .next()
        .getTime();
    }
    const interval = schedule.intervalMinutes * MINUTE;
    return Math.max(now, (lastSnapshotAt ?? now) + interval);
  }

  /** The wake tick: starts a run when one is due (joining a run in flight instead of starting another). */
  tick(): void {
    if (!this.enabled || this.nextRunAt === undefined || this.now() < this.nextRunAt) return;
    const { started } = this.runNow();
    if (!started) this.opts.logger.info('scheduled backup due while a run is in flight: joined it');
    const schedule = this.opts.schedule as BackupSchedule;
    this.nextRunAt = 'cron' in schedule ? this.plan() : this.now() + schedule.intervalMinutes * MINUTE;
  }

  /**
   * Starts a run, or joins the one in flight. `done` never rejects (the outcome says how it went). Throws Conflict
   * when scheduled backups are off (there is no directory or scope to write to).
   */
  runNow(): { started: boolean; done: Promise<RunOutcome> } {
    if (!this.enabled)
      throw new AppError('Conflict', {
        message: 'Scheduled backups are off (STORE_SCHEDULED_BACKUP_ENABLED); use GET /backup for a one-off archive.',
      });
    if (this.current) return { started: false, done: this.current };
    this.abort = new AbortController();
    const run = this.run(this.abort.signal).finally(() => {
      this.current = undefined;
      this.abort = undefined;
    });
    this.current = run;
    return { started: true, done: run };
  }

  private async run(signal: AbortSignal): Promise<RunOutcome> {
    const startedAt = this.now();
    this.runs.started++;
    const outcome: RunOutcome = {
      result: 'ok',
      startedAt,
      finishedAt: startedAt,
      snapshots: 0,
      bytes: 0,
      pruned: 0,
      pushed: 0,
    };
    try {
      const scopes: { series: string; scope: BackupScope }[] =
        this.opts.scope === 'instance'
          ? [{ series: 'instance', scope: { kind: 'instance' } }]
          : this.opts.backups
              .bucketNames()
              .map((bucket) => ({ series: `bucket-${bucket}`, scope: { kind: 'bucket', bucket } }));
      for (const { series, scope } of scopes) {
        signal.throwIfAborted();
        const archive = this.opts.backups.createArchive(scope);
        const abandon = (): void => void archive.stream.destroy(new Error('backup run stopped'));
        signal.addEventListener('abort', abandon, { once: true });
        try {
          const name = this.opts.dir.nameFor(series, archive.createdAt);
          const file = await this.opts.dir.write(name, archive);
          outcome.snapshots++;
          outcome.bytes += file.size;
          if (this.opts.pusher) {
            await this.opts.pusher.push(name, file.path).then(
              () => void outcome.pushed++,
              (err: unknown) =>
                this.opts.logger.error(
                  { err, snapshot: name },
                  'pushing a snapshot to the replication target failed; it stays local',
                ),
            );
          }
        } finally {
          signal.removeEventListener('abort', abandon);
        }
      }
      outcome.pruned = await this.prune();
      this.runs.succeeded++;
    } catch (err) {
      outcome.result = 'failed';
      outcome.error = reasonOf(err);
      this.runs.failed++;
      this.opts.logger.error({ err: isAppError(err) ? err.message : outcome.error }, 'scheduled backup failed');
    }
    outcome.finishedAt = this.now();
    this.last = outcome;
    if (outcome.result === 'ok')
      this.opts.logger.info(
        { snapshots: outcome.snapshots, bytes: outcome.bytes, pruned: outcome.pruned },
        'scheduled backup finished',
      );
    return outcome;
  }

  /** Applies the retention union to each series. Returns how many snapshots were deleted. */
  async prune(): Promise<number> {
    const files = await this.opts.dir.list();
    const series = new Map<string, typeof files>();
    for (const f of files) series.set(f.series, [...(series.get(f.series) ?? []), f]);
    let pruned = 0;
    for (const group of series.values()) {
      for (const victim of snapshotsToPrune(group, this.opts, this.now())) {
        await this.opts.dir.remove(victim.name);
        pruned++;
      }
    }
    return pruned;
  }

  /** The redacted status (counts, times, policy; never the directory). */
  async status(): Promise<BackupScheduleStatus> {
    const schedule = this.opts.schedule;
    const files = this.enabled ? await this.opts.dir.list() : [];
    const iso = (t: number | undefined): string | null => (t === undefined ? null : new Date(t).toISOString());
    const last = this.last;
    return {
      enabled: this.enabled,
      running: this.current !== undefined,
      policy: {
        scope: this.enabled ? this.opts.scope : null,
        cron: schedule && 'cron' in schedule ? schedule.cron : null,
        intervalMinutes: schedule && 'intervalMinutes' in schedule ? schedule.intervalMinutes : null,
        keepLast: this.opts.keepLast,
        maxAgeDays: this.opts.maxAgeDays,
        pushToReplication: this.opts.pusher !== undefined,
      },
      snapshots: {
        count: files.length,
        bytes: files.reduce((n, f) => n + f.size, 0),
        newestAt: iso(files.at(-1)?.createdAt),
        oldestAt: iso(files[0]?.createdAt),
      },
      runs: { ...this.runs },
      lastRun: last
        ? {
            startedAt: iso(last.startedAt) as string,
            finishedAt: iso(last.finishedAt) as string,
            result: last.result,
            snapshots: last.snapshots,
            bytes: last.bytes,
            pruned: last.pruned,
            error: last.error ?? null,
          }
        : null,
      nextRunAt: iso(this.nextRunAt),
    };
  }

  /** Stops a run in flight (its temp file is removed) and waits for it. */
  async close(): Promise<void> {
    this.abort?.abort();
    await this.current;
  }
}

/** A reason safe to show: an AppError code or a system error code, never a message that may carry a path. */
function reasonOf(err: unknown): string {
  if (isAppError(err)) return err.code;
  // A directory that filled up mid-write fails the same way as one refused up front by the free-space check.
  if (isStorageFull(err)) return 'InsufficientStorage';
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' && /^[A-Z0-9_]+$/.test(code) ? code : 'BackupFailed';
}
