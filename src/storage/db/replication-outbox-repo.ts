// The replication outbox (table replication_outbox): one row per key whose latest change is not yet on the remote.
// The committing transaction upserts the row (a burst to one key stays one row, `gen` counts its changes); the drain
// claims due rows, applies each key's current state, and removes the row only if no change came in meanwhile (same
// gen). Failed rows (dead-lettered) stay until retried or superseded by a new change.

import { runTransaction, type Db } from './database.js';

export type IntentKind = 'object' | 'tags';
export type OutboxStatus = 'pending' | 'inflight' | 'failed';

export interface ReplicationIntent {
  id: number;
  bucket: string;
  key: string;
  kind: IntentKind;
  gen: number;
  attempts: number;
  createdAt: number;
}

export interface FailedIntent {
  id: number;
  bucket: string;
  key: string;
  attempts: number;
  lastError: string | undefined;
  failedAt: number;
}

interface RawIntent {
  id: number;
  bucket: string;
  key: string;
  kind: IntentKind;
  gen: number;
  attempts: number;
  created_at: number;
}

export class ReplicationOutboxRepo {
  private readonly upsertStmt;
  private readonly dueStmt;
  private readonly markInflightStmt;
  private readonly doneStmt;
  private readonly retryStmt;
  private readonly failStmt;
  private readonly countsStmt;
  private readonly oldestStmt;
  private readonly failedPageStmt;
  private readonly retryFailedStmt;
  private readonly retryOneStmt;
  private readonly resetInflightStmt;
  private readonly nextDueStmt;

  constructor(private readonly db: Db) {
    // A new change resets the row to pending with fresh attempts, due at once: a dead-lettered key is tried anew.
    // A pending tag change joined by an object change becomes an object change (which carries the tags too).
    this.upsertStmt = db.prepare<[string, string, IntentKind, number, number, number]>(
      `INSERT INTO replication_outbox (bucket, key, kind, next_attempt_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (bucket, key) DO UPDATE SET
         gen = gen + 1,
         kind = CASE WHEN kind = 'object' OR excluded.kind = 'object' THEN 'object' ELSE 'tags' END,
         status = 'pending', attempts = 0, next_attempt_at = excluded.next_attempt_at, last_error = NULL,
         updated_at = excluded.updated_at`,
    );
    this.dueStmt = db.prepare<[number, number], RawIntent>(
      `SELECT id, bucket, key, kind, gen, attempts, created_at FROM replication_outbox
       WHERE status = 'pending' AND next_attempt_at <= ? ORDER BY next_attempt_at, id LIMIT ?`,
    );
    this.nextDueStmt = db
      .prepare<[], number | null>("SELECT MIN(next_attempt_at) FROM replication_outbox WHERE status = 'pending'")
      .pluck();
    this.markInflightStmt = db.prepare<[number, number]>(
      "UPDATE replication_outbox SET status = 'inflight' WHERE id = ? AND gen = ?",
    );
    this.doneStmt = db.prepare<[number, number]>('DELETE FROM replication_outbox WHERE id = ? AND gen = ?');
    this.retryStmt = db.prepare<[number, number, string, number, number, number]>(
      "UPDATE replication_outbox SET status = 'pending', attempts = ?, next_attempt_at = ?, last_error = ?, updated_at = ? WHERE id = ? AND gen = ?",
    );
    this.failStmt = db.prepare<[number, string, number, number, number]>(
      "UPDATE replication_outbox SET status = 'failed', attempts = ?, last_error = ?, updated_at = ? WHERE id = ? AND gen = ?",
    );
    this.countsStmt = db.prepare<[], { status: OutboxStatus; n: number }>(
      'SELECT status, count(*) AS n FROM replication_outbox GROUP BY status',
    );
    this.oldestStmt = db
      .prepare<[], number | null>("SELECT MIN(created_at) FROM replication_outbox WHERE status <> 'failed'")
      .pluck();
    this.failedPageStmt = db.prepare<
      [number, number],
      { id: number; bucket: string; key: string; attempts: number; last_error: string | null; updated_at: number }
    >(
      "SELECT id, bucket, key, attempts, last_error, updated_at FROM replication_outbox WHERE status = 'failed' AND id > ? ORDER BY id LIMIT ?",
    );
    this.retryFailedStmt = db.prepare<[number, number]>(
      "UPDATE replication_outbox SET status = 'pending', attempts = 0, next_attempt_at = ?, updated_at = ? WHERE status = 'failed'",
    );
    this.retryOneStmt = db.prepare<[number, number, string, string]>(
      "UPDATE replication_outbox SET status = 'pending', attempts = 0, next_attempt_at = ?, updated_at = ? WHERE status = 'failed' AND bucket = ? AND key = ?",
    );
    this.resetInflightStmt = db.prepare("UPDATE replication_outbox SET status = 'pending' WHERE status = 'inflight'");
  }

  /** Records a change to (bucket, key). Call inside the transaction that commits the change. */
  enqueue({ bucket, key, kind }: { bucket: string; key: string; kind: IntentKind }, now: number): void {
    this.upsertStmt.run(bucket, key, kind, now, now, now);
  }

  /** Pending rows due at `now`, earliest due first (ties in first-enqueued order), at most `limit`. */
  due(now: number, limit: number): ReplicationIntent[] {
    return this.dueStmt.all(now, limit).map((r) => ({
      id: r.id,
      bucket: r.bucket,
      key: r.key,
      kind: r.kind,
      gen: r.gen,
      attempts: r.attempts,
      createdAt: r.created_at,
    }));
  }

  /** The earliest due time of a pending row (epoch ms), or undefined. */
  nextDueAt(): number | undefined {
    return this.nextDueStmt.get() ?? undefined;
  }

  /** Marks the claimed rows inflight, in one transaction. */
  markInflight(intents: readonly ReplicationIntent[]): void {
    runTransaction(this.db, () => {
      for (const i of intents) this.markInflightStmt.run(i.id, i.gen);
    });
  }

  /**
   * The key's state as claimed is on the remote: remove the row unless a newer change came in (then it stays pending).
   */
  done(intent: ReplicationIntent): void {
    this.doneStmt.run(intent.id, intent.gen);
  }

  /**
   * A failed attempt: pending again at `nextAttemptAt`, or failed (dead-lettered) when `dead`. `error` is a class,
   * never a message.
   */
  failed(
    intent: ReplicationIntent,
    attempt: { attempts: number; error: string; next: { dead: true } | { dead: false; at: number } },
    now: number,
  ): void {
    const { attempts, error, next } = attempt;
    if (next.dead) this.failStmt.run(attempts, error, now, intent.id, intent.gen);
    else this.retryStmt.run(attempts, next.at, error, now, intent.id, intent.gen);
  }

  /** Rows by status. */
  counts(): Record<OutboxStatus, number> {
    const out: Record<OutboxStatus, number> = { pending: 0, inflight: 0, failed: 0 };
    for (const r of this.countsStmt.all()) out[r.status] = r.n;
    return out;
  }

  /** created_at of the oldest row not dead-lettered, or undefined. */
  oldestWaitingCreatedAt(): number | undefined {
    return this.oldestStmt.get() ?? undefined;
  }

  /** Dead-lettered rows after row id `afterId`, oldest first. */
  failedPage(afterId: number, limit: number): FailedIntent[] {
    return this.failedPageStmt.all(afterId, limit).map((r) => ({
      id: r.id,
      bucket: r.bucket,
      key: r.key,
      attempts: r.attempts,
      lastError: r.last_error ?? undefined,
      failedAt: r.updated_at,
    }));
  }

  /** Makes dead-lettered rows pending again with fresh attempts (all, or one key); returns how many. */
  retryFailed(now: number, only?: { bucket: string; key: string }): number {
    return only === undefined
      ? this.retryFailedStmt.run(now, now).changes
      : this.retryOneStmt.run(now, now, only.bucket, only.key).changes;
  }

  /** At boot: rows in flight when the process stopped are pending again (their attempt's outcome is unknown). */
  resetInflight(): number {
    return this.resetInflightStmt.run().changes;
  }
}
