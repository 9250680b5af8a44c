// The webhook outbox (table webhook_outbox): rows inserted in the transaction that commits an object change, read
// in due-time order by the delivery runner, and moved to delivered or failed by small transactions of its own.
// Every write here is one statement; callers inside a transaction (the insert) get its atomicity.

import type { Db } from './database.js';

export type OutboxStatus = 'pending' | 'delivered' | 'failed';

export interface NewOutboxRow {
  /** The X-Store-Delivery UUID: fixed at insert, the same for every attempt. */
  deliveryId: string;
  eventType: string;
  /** The exact JSON bytes to send (and sign). */
  body: string;
  /** Epoch ms; also the first attempt's due time. */
  createdAt: number;
}

export interface OutboxRow {
  id: number;
  deliveryId: string;
  eventType: string;
  body: string;
  attempts: number;
  nextAttemptAt: number;
  createdAt: number;
}

export type OutboxCounts = Record<OutboxStatus, number>;

interface RawRow {
  id: number;
  delivery_id: string;
  event_type: string;
  body: string;
  attempts: number;
  next_attempt_at: number;
  created_at: number;
}

const LAST_ERROR = 'webhook.last_error';

export class WebhookOutboxRepo {
  private readonly insertStmt;
  private readonly dueStmt;
  private readonly upcomingStmt;
  private readonly maxIdStmt;
  private readonly deliveredStmt;
  private readonly retryStmt;
  private readonly failedStmt;
  private readonly pruneStmt;
  private readonly countsStmt;
  private readonly oldestPendingStmt;
  private readonly getLastErrorStmt;
  private readonly setLastErrorStmt;

  constructor(private readonly db: Db) {
    this.insertStmt = db.prepare<[string, string, string, number, number]>(
      'INSERT INTO webhook_outbox (delivery_id, event_type, body, next_attempt_at, created_at) VALUES (?, ?, ?, ?, ?)',
    );
    // The literal status = 'pending' lets SQLite use the partial index webhook_outbox_due.
    this.dueStmt = db.prepare<[number, number, number], RawRow>(
      `SELECT id, delivery_id, event_type, body, attempts, next_attempt_at, created_at FROM webhook_outbox
       WHERE status = 'pending' AND next_attempt_at <= ? AND id <= ? ORDER BY next_attempt_at, id LIMIT ?`,
    );
    this.upcomingStmt = db.prepare<[number, number], { id: number; next_attempt_at: number }>(
      "SELECT id, next_attempt_at FROM webhook_outbox WHERE status = 'pending' AND id <= ? ORDER BY next_attempt_at, id LIMIT ?",
    );
    this.maxIdStmt = db.prepare<[], number | null>('SELECT MAX(id) FROM webhook_outbox').pluck();
    this.deliveredStmt = db.prepare<[number, number, number, number]>(
      "UPDATE webhook_outbox SET status = 'delivered', attempts = ?, last_attempt_at = ?, finished_at = ? WHERE id = ? AND status = 'pending'",
    );
    this.retryStmt = db.prepare<[number, number, string, number, number]>(
      "UPDATE webhook_outbox SET attempts = ?, next_attempt_at = ?, last_error = ?, last_attempt_at = ? WHERE id = ? AND status = 'pending'",
    );
    this.failedStmt = db.prepare<[number, string, number, number, number]>(
      "UPDATE webhook_outbox SET status = 'failed', attempts = ?, last_error = ?, last_attempt_at = ?, finished_at = ? WHERE id = ? AND status = 'pending'",
    );
    this.pruneStmt = db.prepare<[number, number]>(
      `DELETE FROM webhook_outbox WHERE id IN (
         SELECT id FROM webhook_outbox WHERE status <> 'pending' AND finished_at < ? ORDER BY finished_at LIMIT ?)`,
    );
    this.countsStmt = db.prepare<[], { status: OutboxStatus; n: number }>('SELECT status, n FROM webhook_outbox_counts');
    this.oldestPendingStmt = db.prepare<[], number | null>(
      "SELECT MIN(created_at) FROM webhook_outbox WHERE status = 'pending'",
    ).pluck();
    this.getLastErrorStmt = db.prepare<[string], string>('SELECT value FROM instance WHERE name = ?').pluck();
    this.setLastErrorStmt = db.prepare<[string, string]>(
      'INSERT INTO instance (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value',
    );
  }

  /**
   * Adds a pending row, due at once, and returns its id (ids only grow). Call inside the transaction that commits
   * the change it describes.
   */
  insert(row: NewOutboxRow): number {
    return Number(this.insertStmt.run(row.deliveryId, row.eventType, row.body, row.createdAt, row.createdAt).lastInsertRowid);
  }

  /** Pending rows with id <= `maxId` due at `now`, earliest due first (ties in insertion order), at most `limit`. */
  due(now: number, maxId: number, limit: number): OutboxRow[] {
    return this.dueStmt.all(now, maxId, limit).map((r) => ({
      id: r.id, deliveryId: r.delivery_id, eventType: r.event_type, body: r.body, attempts: r.attempts,
      nextAttemptAt: r.next_attempt_at, createdAt: r.created_at,
    }));
  }

  /** The first `limit` pending rows with id <= `maxId` by due time (id and due time only; an index-only read). */
  upcoming(maxId: number, limit: number): { id: number; nextAttemptAt: number }[] {
    return this.upcomingStmt.all(maxId, limit).map((r) => ({ id: r.id, nextAttemptAt: r.next_attempt_at }));
  }

  /** The highest id ever present now (0 for an empty table). */
  maxId(): number {
    return this.maxIdStmt.get() ?? 0;
  }

  markDelivered(id: number, attempts: number, now: number): void {
    this.deliveredStmt.run(attempts, now, now, id);
  }

  /** Records a failed attempt and when to try again. `error` must already be free of secrets. */
  markRetry(id: number, attempts: number, nextAttemptAt: number, error: string, now: number): void {
    this.db.transaction(() => {
      this.retryStmt.run(attempts, nextAttemptAt, error, now, id);
      this.setLastError(error, now);
    })();
  }

  /** Dead-letters a row after its last allowed attempt. */
  markFailed(id: number, attempts: number, error: string, now: number): void {
    this.db.transaction(() => {
      this.failedStmt.run(attempts, error, now, now, id);
      this.setLastError(error, now);
    })();
  }

  /** Deletes up to `limit` delivered or failed rows finished before `before`; returns how many. */
  prune(before: number, limit: number): number {
    return this.pruneStmt.run(before, limit).changes;
  }

  counts(): OutboxCounts {
    const counts: OutboxCounts = { pending: 0, delivered: 0, failed: 0 };
    for (const { status, n } of this.countsStmt.all()) counts[status] = n;
    return counts;
  }

  /** created_at of the oldest pending row (an index-only scan of the pending rows), or undefined. */
  oldestPendingCreatedAt(): number | undefined {
    return this.oldestPendingStmt.get() ?? undefined;
  }

  /** The most recent failed attempt's reason and time, kept across restarts. */
  lastError(): { message: string; at: number } | undefined {
    const value = this.getLastErrorStmt.get(LAST_ERROR);
    if (value === undefined) return undefined;
    const parsed = JSON.parse(value) as { message: string; at: number };
    return { message: parsed.message, at: parsed.at };
  }

  private setLastError(message: string, at: number): void {
    this.setLastErrorStmt.run(LAST_ERROR, JSON.stringify({ message, at }));
  }
}
