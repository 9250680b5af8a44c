// Analytics history: per-bucket usage samples (table usage_samples, bucket '' = the instance total), requests and
// errors per minute (request_minutes), and the process runs that wrote them (server_uptime). Reads are grouped into
// fixed windows in SQL, so a response never carries more rows than it has points.

import type { Db } from './database.js';

/** The bucket name under which each tick records the instance total ('' is never a bucket name). */
export const TOTAL_BUCKET = '';

export interface UsageSampleRow {
  bucket: string;
  bytes: number;
  objects: number;
  versions: number;
}

/** The last sample of one window: `window` is its index from the range's start. */
export interface SampleWindow extends Omit<UsageSampleRow, 'bucket'> {
  window: number;
  at: number;
}

export interface RequestCount {
  minute: number;
  surface: string;
  routeClass: string;
  requests: number;
  clientErrors: number;
  serverErrors: number;
}

export interface RequestWindow {
  window: number;
  surface: string;
  requests: number;
  clientErrors: number;
  serverErrors: number;
}

export interface OperationTotal {
  surface: string;
  routeClass: string;
  requests: number;
  clientErrors: number;
  serverErrors: number;
}

export interface UptimeRow {
  startedAt: number;
  lastSeenAt: number;
}

export class AnalyticsRepo {
  private readonly sampleStmt;
  private readonly windowsStmt;
  private readonly baselineStmt;
  private readonly addRequestsStmt;
  private readonly requestWindowsStmt;
  private readonly operationsStmt;
  private readonly startStmt;
  private readonly touchStmt;
  private readonly uptimeStmt;
  private readonly pruneSamplesStmt;
  private readonly pruneRequestsStmt;
  private readonly pruneUptimeStmt;

  constructor(db: Db) {
    this.sampleStmt = db.prepare(
      'INSERT OR REPLACE INTO usage_samples (at, bucket, bytes, objects, versions) VALUES (@at, @bucket, @bytes, @objects, @versions)',
    );
    // SQLite: with a lone max() aggregate, the bare columns come from the row holding the maximum (the last sample).
    // better-sqlite3 may bind the numbers as REAL, so the window index is cast, not left to integer division.
    this.windowsStmt = db.prepare<[number, number, string, number, number], SampleWindow>(
      `SELECT CAST((at - ?) / ? AS INTEGER) AS window, max(at) AS at, bytes, objects, versions FROM usage_samples
       WHERE bucket = ? AND at >= ? AND at < ? GROUP BY window ORDER BY window`,
    );
    this.baselineStmt = db.prepare<[number, number], UsageSampleRow & { at: number }>(
      `SELECT bucket, min(at) AS at, bytes, objects, versions FROM usage_samples
       WHERE at >= ? AND at < ? AND bucket <> '' GROUP BY bucket`,
    );
    this.addRequestsStmt = db.prepare(
      `INSERT INTO request_minutes (minute, surface, route_class, requests, client_errors, server_errors)
       VALUES (@minute, @surface, @routeClass, @requests, @clientErrors, @serverErrors)
       ON CONFLICT (minute, surface, route_class) DO UPDATE SET requests = requests + excluded.requests,
         client_errors = client_errors + excluded.client_errors, server_errors = server_errors + excluded.server_errors`,
    );
    this.requestWindowsStmt = db.prepare<[number, number, number, number], RequestWindow>(
      `SELECT CAST((minute - ?) / ? AS INTEGER) AS window, surface, sum(requests) AS requests, sum(client_errors) AS clientErrors,
         sum(server_errors) AS serverErrors
       FROM request_minutes WHERE minute >= ? AND minute < ? GROUP BY window, surface ORDER BY window, surface`,
    );
    this.operationsStmt = db.prepare<[number, number], OperationTotal>(
      `SELECT surface, route_class AS routeClass, sum(requests) AS requests, sum(client_errors) AS clientErrors,
         sum(server_errors) AS serverErrors
       FROM request_minutes WHERE minute >= ? AND minute < ? GROUP BY surface, route_class`,
    );
    this.startStmt = db.prepare<[number, number]>(
      'INSERT OR REPLACE INTO server_uptime (started_at, last_seen_at) VALUES (?, ?)',
    );
    // An upsert: a run whose start could not be recorded (a full disk at boot) appears with its first tick instead.
    this.touchStmt = db.prepare<[number, number]>(
      `INSERT INTO server_uptime (started_at, last_seen_at) VALUES (?, ?)
       ON CONFLICT (started_at) DO UPDATE SET last_seen_at = max(last_seen_at, excluded.last_seen_at)`,
    );
    this.uptimeStmt = db.prepare<[number, number], UptimeRow>(
      `SELECT started_at AS startedAt, last_seen_at AS lastSeenAt FROM server_uptime
       WHERE last_seen_at >= ? AND started_at < ? ORDER BY started_at`,
    );
    // Bounded deletes: a first prune after a long pause must not hold the writer for seconds.
    this.pruneSamplesStmt = db.prepare<[number, number]>(
      'DELETE FROM usage_samples WHERE (at, bucket) IN (SELECT at, bucket FROM usage_samples WHERE at < ? ORDER BY at LIMIT ?)',
    );
    this.pruneRequestsStmt = db.prepare<[number, number]>(
      `DELETE FROM request_minutes WHERE (minute, surface, route_class) IN
         (SELECT minute, surface, route_class FROM request_minutes WHERE minute < ? ORDER BY minute LIMIT ?)`,
    );
    this.pruneUptimeStmt = db.prepare<[number]>('DELETE FROM server_uptime WHERE last_seen_at < ?');
  }

  /** Records one tick's samples (all at the same time `at`). Call inside a transaction. */
  insertSamples(at: number, rows: readonly UsageSampleRow[]): void {
    for (const row of rows) this.sampleStmt.run({ at, ...row });
  }

  /** The last sample of each window [from + i*step, from + (i+1)*step) that has one, for one bucket (or the total). */
  sampleWindows(bucket: string, { from, to, step }: { from: number; to: number; step: number }): SampleWindow[] {
    return this.windowsStmt.all(from, step, bucket, from, to);
  }

  /** Each bucket's first sample in [from, to) (the total excluded). */
  firstSamples(from: number, to: number): Map<string, UsageSampleRow & { at: number }> {
    return new Map(this.baselineStmt.all(from, to).map((row) => [row.bucket, row]));
  }

  /** Adds request counts to their minutes (a minute written twice sums). Call inside a transaction. */
  addRequests(rows: readonly RequestCount[]): void {
    for (const row of rows) this.addRequestsStmt.run(row);
  }

  /** Requests per window and surface over [from, to). */
  requestWindows(from: number, to: number, step: number): RequestWindow[] {
    return this.requestWindowsStmt.all(from, step, from, to);
  }

  /** Requests per surface and route class over [from, to). */
  operationTotals(from: number, to: number): OperationTotal[] {
    return this.operationsStmt.all(from, to);
  }

  /** Records the start of a process run. */
  startRun(startedAt: number): void {
    this.startStmt.run(startedAt, startedAt);
  }

  /** Extends a process run to `at` (it was up then), recording the run if its start was not. */
  touchRun(startedAt: number, at: number): void {
    this.touchStmt.run(startedAt, at);
  }

  /** The runs overlapping [from, to), oldest first. */
  runs(from: number, to: number): UptimeRow[] {
    return this.uptimeStmt.all(from, to);
  }

  /**
   * Deletes at most `limit` samples and `limit` request rows older than `before`, and the runs that ended before it.
   * Returns the rows deleted. Call inside a transaction.
   */
  prune(before: number, limit: number): number {
    const samples = this.pruneSamplesStmt.run(before, limit).changes;
    const requests = this.pruneRequestsStmt.run(before, limit).changes;
    this.pruneUptimeStmt.run(before);
    return samples + requests;
  }
}
