// Reconcile jobs (table replication_jobs): one row per job with its counters. A job left 'running' by a stop or a
// crash is marked failed at boot, so no job is ever stuck running.

import type { Db } from './database.js';

export type JobState = 'running' | 'completed' | 'failed';

export interface ReplicationJob {
  id: string;
  kind: string;
  bucket: string | undefined;
  state: JobState;
  scanned: number;
  enqueued: number;
  errors: number;
  error: string | undefined;
  startedAt: number;
  finishedAt: number | undefined;
}

interface RawJob {
  id: string;
  kind: string;
  bucket: string | null;
  state: JobState;
  scanned: number;
  enqueued: number;
  errors: number;
  error: string | null;
  started_at: number;
  finished_at: number | null;
}

function toJob(r: RawJob): ReplicationJob {
  return {
    id: r.id,
    kind: r.kind,
    bucket: r.bucket ?? undefined,
    state: r.state,
    scanned: r.scanned,
    enqueued: r.enqueued,
    errors: r.errors,
    error: r.error ?? undefined,
    startedAt: r.started_at,
    finishedAt: r.finished_at ?? undefined,
  };
}

export class ReplicationJobsRepo {
  private readonly insertStmt;
  private readonly getStmt;
  private readonly runningStmt;
  private readonly progressStmt;
  private readonly finishStmt;
  private readonly failRunningStmt;

  constructor(db: Db) {
    this.insertStmt = db.prepare<[string, string, string | null, number]>(
      "INSERT INTO replication_jobs (id, kind, bucket, state, started_at) VALUES (?, ?, ?, 'running', ?)",
    );
    this.getStmt = db.prepare<[string], RawJob>('SELECT * FROM replication_jobs WHERE id = ?');
    this.runningStmt = db.prepare<[], RawJob>("SELECT * FROM replication_jobs WHERE state = 'running' LIMIT 1");
    this.progressStmt = db.prepare<[number, number, number, string]>(
      'UPDATE replication_jobs SET scanned = ?, enqueued = ?, errors = ? WHERE id = ?',
    );
    this.finishStmt = db.prepare<[JobState, number, number, number, string | null, number, string]>(
      "UPDATE replication_jobs SET state = ?, scanned = ?, enqueued = ?, errors = ?, error = ?, finished_at = ? WHERE id = ? AND state = 'running'",
    );
    this.failRunningStmt = db.prepare<[string, number]>(
      "UPDATE replication_jobs SET state = 'failed', error = ?, finished_at = ? WHERE state = 'running'",
    );
  }

  insert({ id, kind, bucket }: { id: string; kind: string; bucket: string | undefined }, now: number): void {
    this.insertStmt.run(id, kind, bucket ?? null, now);
  }

  find(id: string): ReplicationJob | undefined {
    const raw = this.getStmt.get(id);
    return raw ? toJob(raw) : undefined;
  }

  /** The job in state running, if any (at most one by construction). */
  findRunning(): ReplicationJob | undefined {
    const raw = this.runningStmt.get();
    return raw ? toJob(raw) : undefined;
  }

  progress(id: string, counts: { scanned: number; enqueued: number; errors: number }): void {
    this.progressStmt.run(counts.scanned, counts.enqueued, counts.errors, id);
  }

  finish(
    id: string,
    outcome: {
      state: 'completed' | 'failed';
      counts: { scanned: number; enqueued: number; errors: number };
      error: string | undefined;
    },
    now: number,
  ): void {
    const { state, counts, error } = outcome;
    this.finishStmt.run(state, counts.scanned, counts.enqueued, counts.errors, error ?? null, now, id);
  }

  /** At boot: jobs a stop or crash interrupted become failed. Returns how many. */
  failInterrupted(reason: string, now: number): number {
    return this.failRunningStmt.run(reason, now).changes;
  }
}
