// Bucket notification targets (notification_targets) and their outbox (notification_outbox): rows inserted in the
// transaction that commits an object change, claimed per target in key order, and moved to delivered, retried or
// failed (dead-lettered); dead letters listed and made pending again (docs/notifications.md "Delivery").

import type { Db } from './database.js';

export interface TargetRow {
  id: string;
  kind: string;
  /** Non-secret settings, JSON. */
  config: string;
  /** Sealed secrets, or undefined when the target has none. */
  secrets: Buffer | undefined;
  createdAt: number;
  updatedAt: number;
}

export interface NewNotificationRow {
  targetId: string;
  bucket: string;
  key: string;
  eventName: string;
  body: string;
  createdAt: number;
}

export interface NotificationRow extends NewNotificationRow {
  id: number;
  attempts: number;
  nextAttemptAt: number;
  lastError: string | undefined;
  finishedAt: number | undefined;
}

export type NotificationOutcome =
  | { id: number; targetId: string; attempts: number; status: 'delivered' }
  | { id: number; targetId: string; attempts: number; status: 'retry'; nextAttemptAt: number; error: string }
  | { id: number; targetId: string; attempts: number; status: 'failed'; error: string };

/** One target's rows by status (delivered: those not yet pruned), and when its oldest pending row was made. */
export interface TargetCounts {
  targetId: string;
  pending: number;
  delivered: number;
  failed: number;
  oldestPendingAt: number | undefined;
}

interface RawTarget {
  id: string;
  kind: string;
  config: string;
  secrets: Buffer | null;
  created_at: number;
  updated_at: number;
}

interface RawRow {
  id: number;
  target_id: string;
  bucket: string;
  key: string;
  event_name: string;
  body: string;
  attempts: number;
  next_attempt_at: number;
  created_at: number;
  last_error: string | null;
  finished_at: number | null;
}

const ROW_COLUMNS =
  'id, target_id, bucket, key, event_name, body, attempts, next_attempt_at, created_at, last_error, finished_at';

function toRow(r: RawRow): NotificationRow {
  return {
    id: r.id,
    targetId: r.target_id,
    bucket: r.bucket,
    key: r.key,
    eventName: r.event_name,
    body: r.body,
    attempts: r.attempts,
    nextAttemptAt: r.next_attempt_at,
    createdAt: r.created_at,
    lastError: r.last_error ?? undefined,
    finishedAt: r.finished_at ?? undefined,
  };
}

function toTarget(r: RawTarget): TargetRow {
  return {
    id: r.id,
    kind: r.kind,
    config: r.config,
    secrets: r.secrets ?? undefined,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

export class NotificationRepo {
  private readonly stmts;

  constructor(private readonly db: Db) {
    this.stmts = {
      listTargets: db.prepare<[], RawTarget>('SELECT * FROM notification_targets ORDER BY id'),
      upsertTarget: db.prepare<[string, string, string, Buffer | null, number, number]>(
        `INSERT INTO notification_targets (id, kind, config, secrets, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (id) DO UPDATE SET kind = excluded.kind, config = excluded.config, secrets = excluded.secrets,
         updated_at = excluded.updated_at`,
      ),
      deleteTarget: db.prepare<[string]>('DELETE FROM notification_targets WHERE id = ?'),
      deleteRowsOf: db.prepare<[string]>('DELETE FROM notification_outbox WHERE target_id = ?'),
      insert: db.prepare<[string, string, string, string, string, number, number]>(
        `INSERT INTO notification_outbox (target_id, bucket, key, event_name, body, next_attempt_at, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
      ),
      // A key's rows go out in id order: a row is due only when no older row of its key is still pending.
      due: db.prepare<[string, number, number, number], RawRow>(
        `SELECT ${ROW_COLUMNS} FROM notification_outbox o
         WHERE o.status = 'pending' AND o.target_id = ? AND o.next_attempt_at <= ? AND o.id <= ?
           AND NOT EXISTS (SELECT 1 FROM notification_outbox p WHERE p.status = 'pending' AND p.target_id = o.target_id
                           AND p.bucket = o.bucket AND p.key = o.key AND p.id < o.id)
         ORDER BY o.next_attempt_at, o.id LIMIT ?`,
      ),
      nextDue: db
        .prepare<[string], number | null>(
          "SELECT MIN(next_attempt_at) FROM notification_outbox WHERE status = 'pending' AND target_id = ?",
        )
        .pluck(),
      maxId: db.prepare<[], number | null>('SELECT MAX(id) FROM notification_outbox').pluck(),
      delivered: db.prepare<[number, number, number]>(
        "UPDATE notification_outbox SET status = 'delivered', attempts = ?, finished_at = ?, last_error = NULL WHERE id = ? AND status = 'pending'",
      ),
      retry: db.prepare<[number, number, string, number]>(
        "UPDATE notification_outbox SET attempts = ?, next_attempt_at = ?, last_error = ? WHERE id = ? AND status = 'pending'",
      ),
      failed: db.prepare<[number, string, number, number]>(
        "UPDATE notification_outbox SET status = 'failed', attempts = ?, last_error = ?, finished_at = ? WHERE id = ? AND status = 'pending'",
      ),
      // Each figure from an index range or a counter: never a scan of the delivered rows (migration 17).
      counts: db.prepare<
        [],
        { target_id: string; pending: number; delivered: number; failed: number; oldest: number | null }
      >(
        `SELECT t.id AS target_id, t.delivered_count AS delivered,
           (SELECT COUNT(*) FROM notification_outbox o WHERE o.target_id = t.id AND o.status = 'pending') AS pending,
           (SELECT created_at FROM notification_outbox WHERE id = (SELECT MIN(o.id) FROM notification_outbox o
             WHERE o.target_id = t.id AND o.status = 'pending')) AS oldest,
           (SELECT COUNT(*) FROM notification_outbox o WHERE o.target_id = t.id AND o.status = 'failed') AS failed
         FROM notification_targets t ORDER BY t.id`,
      ),
      lastError: db
        .prepare<[string], string | null>(
          `SELECT last_error FROM notification_outbox WHERE target_id = ? AND last_error IS NOT NULL
           ORDER BY id DESC LIMIT 1`,
        )
        .pluck(),
      failedPage: db.prepare<[string, number, number], RawRow>(
        `SELECT ${ROW_COLUMNS} FROM notification_outbox WHERE target_id = ? AND status = 'failed' AND id > ?
         ORDER BY id LIMIT ?`,
      ),
      retryFailed: db.prepare<[number, string]>(
        `UPDATE notification_outbox SET status = 'pending', attempts = 0, next_attempt_at = ?, finished_at = NULL
         WHERE target_id = ? AND status = 'failed'`,
      ),
      retryOne: db.prepare<[number, string, number]>(
        `UPDATE notification_outbox SET status = 'pending', attempts = 0, next_attempt_at = ?, finished_at = NULL
         WHERE target_id = ? AND id = ? AND status = 'failed'`,
      ),
      prune: db.prepare<[string, number]>(
        `DELETE FROM notification_outbox WHERE target_id = ? AND status = 'delivered' AND finished_at < ?
         AND id < (SELECT MAX(id) FROM notification_outbox)`,
      ),
      addDelivered: db.prepare<[number, string]>(
        'UPDATE notification_targets SET delivered_count = MAX(0, delivered_count + ?) WHERE id = ?',
      ),
      targetIds: db.prepare<[], string>('SELECT id FROM notification_targets').pluck(),
    };
  }

  listTargets(): TargetRow[] {
    return this.stmts.listTargets.all().map(toTarget);
  }

  /** Creates or replaces a target row. */
  saveTarget(row: TargetRow): void {
    this.stmts.upsertTarget.run(row.id, row.kind, row.config, row.secrets ?? null, row.createdAt, row.updatedAt);
  }

  /** Removes a target and every outbox row of it; returns whether it existed. Call inside a transaction. */
  deleteTarget(id: string): boolean {
    this.stmts.deleteRowsOf.run(id);
    return this.stmts.deleteTarget.run(id).changes > 0;
  }

  /** Adds a pending row due at once; returns its id. Call inside the transaction that commits the change. */
  insert(row: NewNotificationRow): number {
    const r = this.stmts.insert.run(
      row.targetId,
      row.bucket,
      row.key,
      row.eventName,
      row.body,
      row.createdAt,
      row.createdAt,
    );
    return Number(r.lastInsertRowid);
  }

  /** A target's pending rows with id <= maxId due at `now`, each the oldest pending row of its key, at most `limit`. */
  due(target: string, opts: { now: number; maxId: number; limit: number }): NotificationRow[] {
    return this.stmts.due.all(target, opts.now, opts.maxId, opts.limit).map(toRow);
  }

  /** The earliest due time of a target's pending rows, or undefined. */
  nextDueAt(target: string): number | undefined {
    return this.stmts.nextDue.get(target) ?? undefined;
  }

  maxId(): number {
    return this.stmts.maxId.get() ?? 0;
  }

  /** Writes attempt outcomes. Call inside a transaction. */
  recordOutcomes(outcomes: readonly NotificationOutcome[], now: number): void {
    const delivered = new Map<string, number>();
    for (const o of outcomes) {
      if (o.status === 'delivered') {
        if (this.stmts.delivered.run(o.attempts, now, o.id).changes > 0) {
          delivered.set(o.targetId, (delivered.get(o.targetId) ?? 0) + 1);
        }
      } else if (o.status === 'failed') this.stmts.failed.run(o.attempts, o.error, now, o.id);
      else this.stmts.retry.run(o.attempts, o.nextAttemptAt, o.error, o.id);
    }
    for (const [target, n] of delivered) this.stmts.addDelivered.run(n, target);
  }

  /** Every target's counts; cheap at any outbox size (index ranges of pending and failed rows, a counter). */
  counts(): TargetCounts[] {
    return this.stmts.counts.all().map((r) => ({
      targetId: r.target_id,
      pending: r.pending,
      delivered: r.delivered,
      failed: r.failed,
      oldestPendingAt: r.oldest ?? undefined,
    }));
  }

  /** The error class of a target's latest failed attempt, if any row still carries one. */
  lastError(target: string): string | undefined {
    return this.stmts.lastError.get(target) ?? undefined;
  }

  /** A target's dead letters after id `after`, oldest first. */
  failedPage(target: string, after: number, limit: number): NotificationRow[] {
    return this.stmts.failedPage.all(target, after, limit).map(toRow);
  }

  /** Makes a target's dead letters (or the one with `id`) pending again, due at `now`; returns how many. */
  retryFailed(target: string, now: number, id?: number): number {
    if (id !== undefined) return this.stmts.retryOne.run(now, target, id).changes;
    return this.stmts.retryFailed.run(now, target).changes;
  }

  /** Deletes delivered rows finished before `before` (never the newest row); returns how many. In a transaction. */
  prune(before: number): number {
    let total = 0;
    for (const target of this.stmts.targetIds.all()) {
      const n = this.stmts.prune.run(target, before).changes;
      if (n > 0) this.stmts.addDelivered.run(-n, target);
      total += n;
    }
    return total;
  }
}
