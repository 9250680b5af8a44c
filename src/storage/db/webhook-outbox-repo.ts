// The webhook outbox (table webhook_outbox): rows inserted in the transaction that commits an object change, read
// in due-time order by the delivery runner, and moved to delivered, retried or failed in batches (one transaction per
// batch of outcomes). Beside it (webhook_outbox_totals) the running totals of delivered and failed rows and the last
// error. Ids only grow: pruning never removes the newest row, so SQLite never hands out an id twice.

import { runTransaction, type Db } from './database.js';

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

/** The result of one attempt. `error` must already be free of secrets. */
export type OutboxOutcome =
  | { id: number; attempts: number; status: 'delivered' }
  | { id: number; attempts: number; status: 'retry'; nextAttemptAt: number; error: string }
  | { id: number; attempts: number; status: 'failed'; error: string };

export interface OutboxTotals {
  delivered: number;
  failed: number;
  lastError: { message: string; at: number } | undefined;
}

interface RawRow {
  id: number;
  delivery_id: string;
  event_type: string;
  body: string;
  attempts: number;
  next_attempt_at: number;
  created_at: number;
}

const TOTALS = 'totals';

export class WebhookOutboxRepo {
  private readonly insertStmt;
  private readonly dueStmt;
  private readonly upcomingStmt;
  private readonly maxIdStmt;
  private readonly deliveredStmt;
  private readonly retryStmt;
  private readonly failedStmt;
  private readonly pruneStmt;
  private readonly pendingCountStmt;
  private readonly oldestPendingStmt;
  private readonly getTotalsStmt;
  private readonly setTotalsStmt;

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
    this.pruneStmt = db.prepare<[string, number, number]>(
      `DELETE FROM webhook_outbox WHERE id IN (
         SELECT id FROM webhook_outbox WHERE status <> 'pending' AND status = ? AND finished_at < ? ORDER BY finished_at LIMIT ?)
       AND id < (SELECT MAX(id) FROM webhook_outbox)`,
    );
    this.pendingCountStmt = db
      .prepare<[], number>("SELECT COUNT(*) FROM webhook_outbox WHERE status = 'pending'")
      .pluck();
    this.oldestPendingStmt = db
      .prepare<[], number | null>("SELECT MIN(created_at) FROM webhook_outbox WHERE status = 'pending'")
      .pluck();
    this.getTotalsStmt = db.prepare<[string], string>('SELECT value FROM webhook_outbox_totals WHERE name = ?').pluck();
    this.setTotalsStmt = db.prepare<[string, string]>(
      'INSERT INTO webhook_outbox_totals (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value',
    );
  }

  /**
   * Adds a pending row, due at once, and returns its id (larger than every id before). Call inside the transaction
   * that commits the change it describes.
   */
  insert(row: NewOutboxRow): number {
    return Number(
      this.insertStmt.run(row.deliveryId, row.eventType, row.body, row.createdAt, row.createdAt).lastInsertRowid,
    );
  }

  /** Pending rows with id <= `maxId` due at `now`, earliest due first (ties in insertion order), at most `limit`. */
  due(now: number, maxId: number, limit: number): OutboxRow[] {
    return this.dueStmt.all(now, maxId, limit).map((r) => ({
      id: r.id,
      deliveryId: r.delivery_id,
      eventType: r.event_type,
      body: r.body,
      attempts: r.attempts,
      nextAttemptAt: r.next_attempt_at,
      createdAt: r.created_at,
    }));
  }

  /** The first `limit` pending rows with id <= `maxId` by due time (id and due time only; an index-only read). */
  upcoming(maxId: number, limit: number): { id: number; nextAttemptAt: number }[] {
    return this.upcomingStmt.all(maxId, limit).map((r) => ({ id: r.id, nextAttemptAt: r.next_attempt_at }));
  }

  /** The highest id present (0 for an empty table). */
  maxId(): number {
    return this.maxIdStmt.get() ?? 0;
  }

  /**
   * Records a batch of attempt outcomes in one transaction (one set of page writes for the batch, not one per
   * row), with the running totals and the batch's last error. Returns the totals after it.
   */
  recordOutcomes(outcomes: readonly OutboxOutcome[], now: number): OutboxTotals {
    return runTransaction(this.db, () => {
      const totals = this.totals();
      for (const o of outcomes) {
        if (o.status === 'delivered') {
          totals.delivered += this.deliveredStmt.run(o.attempts, now, now, o.id).changes;
        } else if (o.status === 'failed') {
          totals.failed += this.failedStmt.run(o.attempts, o.error, now, now, o.id).changes;
          totals.lastError = { message: o.error, at: now };
        } else {
          this.retryStmt.run(o.attempts, o.nextAttemptAt, o.error, now, o.id);
          totals.lastError = { message: o.error, at: now };
        }
      }
      this.setTotals(totals);
      return totals;
    });
  }

  /** Deletes up to `limit` rows of `status` finished before `before` (never the newest row); returns how many. */
  prune(status: 'delivered' | 'failed', before: number, limit: number): number {
    return runTransaction(this.db, () => {
      const removed = this.pruneStmt.run(status, before, limit).changes;
      if (removed > 0) {
        const totals = this.totals();
        totals[status] = Math.max(0, totals[status] - removed);
        this.setTotals(totals);
      }
      return removed;
    });
  }

  /** Pending rows now (an index-only count of the pending rows; read once at boot). */
  pendingCount(): number {
    return this.pendingCountStmt.get() ?? 0;
  }

  /** Delivered and failed rows kept, and the last failed attempt's reason and time. */
  totals(): OutboxTotals {
    const value = this.getTotalsStmt.get(TOTALS);
    if (value === undefined) return { delivered: 0, failed: 0, lastError: undefined };
    const parsed = JSON.parse(value) as {
      delivered: number;
      failed: number;
      lastError?: { message: string; at: number };
    };
    return { delivered: parsed.delivered, failed: parsed.failed, lastError: parsed.lastError };
  }

  /** created_at of the oldest pending row (an index-only scan of the pending rows), or undefined. */
  oldestPendingCreatedAt(): number | undefined {
    return this.oldestPendingStmt.get() ?? undefined;
  }

  private setTotals(totals: OutboxTotals): void {
    this.setTotalsStmt.run(TOTALS, JSON.stringify(totals));
  }
}
