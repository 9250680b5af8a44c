// Signed webhooks (SPEC "Signed webhooks"): the outbox row written with the commit, the outcomes of delivery written
// back, pruning, and the status the admin API shows. Delivery itself (webhook-dispatcher.ts, driven by the runner in
// workers/webhook-worker.ts) runs on the delivery thread (src/app/webhook-delivery-thread.ts, started by
// src/app/webhook-thread.ts), which is told of each durable commit through `setDurableListener` and hands its outcomes
// to
// `recordOutcomes`.

import { randomUUID } from 'node:crypto';
import { serializeEvent, type ObjectEvent, type ObjectEventType } from '../../core/object-event.js';
import type { BackoffPolicy } from '../../lib/backoff.js';
import type { Logger } from '../../observability/logger.js';
import type { OutboxOutcome, OutboxTotals, WebhookOutboxRepo } from '../../storage/db/webhook-outbox-repo.js';
import type { EventOutbox } from './event-pipeline.js';
import type { WebhookTarget } from './webhook-dispatcher.js';

export type { WebhookTarget };

/** Outbox rows by status (SPEC "Outbox and status labels": pending, delivered, failed). */
export interface OutboxCounts {
  pending: number;
  delivered: number;
  failed: number;
}

export interface WebhookServiceOptions {
  repo: WebhookOutboxRepo;
  /** Resolves once every commit so far is on disk (MetadataStore.durable). */
  durable: () => Promise<void>;
  /** Undefined: webhooks are off (no row is written; status still reports leftovers). */
  target?: WebhookTarget | undefined;
  /** `store-webhooks/<version>`. */
  userAgent: string;
  logger: Logger;
  now?: () => number;
  /** Delivered and failed rows are kept this long. Default 7 days. */
  retentionMs?: number;
}

export interface WebhookStatus {
  enabled: boolean;
  counts: OutboxCounts;
  /** Age of the oldest pending row; null when nothing is pending. */
  oldestPendingAgeSeconds: number | null;
  /** The last failed attempt's reason (never a URL, credential or secret) and when; null if none yet. */
  lastError: { message: string; at: string } | null;
}

export const WEBHOOK_BACKOFF: BackoffPolicy = { baseMs: 2000, capMs: 3_600_000 };
/** Requests in flight at once, at most, and rows claimed at a time: wherever delivery runs. */
export const WEBHOOK_CONCURRENCY = 8;
export const WEBHOOK_BATCH_SIZE = 64;
export const WEBHOOK_RETENTION_MS = 7 * 24 * 3_600_000;
const PRUNE_BATCH = 1000;

export class WebhookService implements EventOutbox {
  private readonly opts: WebhookServiceOptions;
  private readonly types: ReadonlySet<ObjectEventType>;
  private readonly now: () => number;
  /** Told of each durable commit's row id (the delivery thread's watermark). */
  private onDurable: (rowId: number) => void = () => undefined;
  /** Rows with ids up to here are durable: at boot every row present (read back from the data files), then commits. */
  private durableId: number;
  /**
   * Kept in memory: pending counted once at boot, then moved by commits and outcomes; the others from the totals row.
   */
  private readonly counts: OutboxCounts;
  private lastError: OutboxTotals['lastError'];

  constructor(opts: WebhookServiceOptions) {
    this.opts = opts;
    this.types = new Set(opts.target?.events ?? []);
    this.now = opts.now ?? Date.now;
    const totals = opts.repo.totals();
    this.counts = { pending: opts.repo.pendingCount(), delivered: totals.delivered, failed: totals.failed };
    this.lastError = totals.lastError;
    this.durableId = opts.repo.maxId();
  }

  get enabled(): boolean {
    return this.opts.target !== undefined;
  }

  accepts(type: ObjectEventType): boolean {
    return this.types.has(type);
  }

  /**
   * Writes the event's outbox row with a fresh delivery id; returns the row id. Call inside the committing transaction.
   */
  enqueue(event: ObjectEvent): number {
    return this.opts.repo.insert({
      deliveryId: randomUUID(),
      eventType: event.type,
      body: serializeEvent(event),
      createdAt: this.now(),
    });
  }

  /**
   * Row `rowId` has committed: once the commit is durable it may be delivered, and the runner is woken. The barrier
   * is asked for right after the commit, so it is the one the writer waits for too (no fsync of its own). Resolves
   * then; never rejects (a failed fsync leaves the row for after the next durable commit or a restart).
   */
  committed(rowId: number): Promise<void> {
    this.counts.pending++;
    return this.opts.durable().then(
      () => {
        if (rowId <= this.durableId) return;
        this.durableId = rowId;
        this.onDurable(rowId);
      },
      (err: unknown) =>
        this.opts.logger.error({ err }, 'durability barrier failed; webhook delivery waits for the next commit'),
    );
  }

  /** Outbox rows with ids up to this one are durable (may be delivered). */
  get durableUpTo(): number {
    return this.durableId;
  }

  /** The delivery thread's watermark: told of the row id of each commit once it is durable. One listener. */
  setDurableListener(listener: (rowId: number) => void): void {
    this.onDurable = listener;
  }

  /**
   * Writes a batch of delivery outcomes in one transaction and moves the counts; throws if it cannot be written (the
   * rows stay pending and are sent again).
   */
  recordOutcomes(outcomes: readonly OutboxOutcome[]): void {
    if (outcomes.length === 0) return;
    const after = this.opts.repo.recordOutcomes(outcomes, this.now());
    const finished = outcomes.filter((o) => o.status !== 'retry').length;
    this.counts.pending = Math.max(0, this.counts.pending - finished);
    this.counts.delivered = after.delivered;
    this.counts.failed = after.failed;
    this.lastError = after.lastError;
  }

  /** Deletes delivered and failed rows older than the retention (7 days), in batches; returns how many. */
  prune(): number {
    const before = this.now() - (this.opts.retentionMs ?? WEBHOOK_RETENTION_MS);
    let removed = 0;
    for (const status of ['delivered', 'failed'] as const) {
      for (;;) {
        const n = this.opts.repo.prune(status, before, PRUNE_BATCH);
        this.counts[status] = Math.max(0, this.counts[status] - n);
        removed += n;
        if (n < PRUNE_BATCH) break;
      }
    }
    return removed;
  }

  /** Rows by status, from memory (no query): cheap enough for every metrics scrape. */
  outboxCounts(): OutboxCounts {
    return { ...this.counts };
  }

  status(): WebhookStatus {
    const oldest = this.counts.pending > 0 ? this.opts.repo.oldestPendingCreatedAt() : undefined;
    const last = this.lastError;
    return {
      enabled: this.enabled,
      counts: this.outboxCounts(),
      oldestPendingAgeSeconds: oldest === undefined ? null : Math.max(0, Math.floor((this.now() - oldest) / 1000)),
      lastError: last ? { message: last.message, at: new Date(last.at).toISOString() } : null,
    };
  }
}
