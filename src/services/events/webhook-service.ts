// Signed webhooks (SPEC "Signed webhooks"): the outbox row written with the commit, delivery of due rows in due-time
// order with bounded concurrency, full-jitter retries, dead-lettering after maxAttempts, pruning, and the status the
// admin API shows. The runner loop that calls deliverDue() lives in workers/webhook-worker.ts.

import { randomUUID } from 'node:crypto';
import { serializeEvent, type ObjectEvent, type ObjectEventType } from '../../core/object-event.js';
import { fullJitterDelay, type BackoffPolicy } from '../../lib/backoff.js';
import type { Logger } from '../../observability/logger.js';
import type { OutboxCounts, OutboxRow, WebhookOutboxRepo } from '../../storage/db/webhook-outbox-repo.js';
import { WebhookClient, type WebhookPostResult, type WebhookTransport } from '../../clients/webhook-client.js';
import type { EventOutbox } from './event-pipeline.js';
import { signatureHeader } from './webhook-signature.js';

export type { OutboxCounts };

/** Where and how to deliver; validated at boot (config.ts). */
export interface WebhookTarget {
  url: string;
  secret: string;
  events: readonly ObjectEventType[];
  maxAttempts: number;
  timeoutMs: number;
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
  transport?: WebhookTransport;
  now?: () => number;
  /** In [0, 1): the backoff jitter. */
  random?: () => number;
  /** Deliveries in flight at once, at most. Default 8. */
  concurrency?: number;
  /** Rows claimed per batch. Default 64. */
  batchSize?: number;
  backoff?: BackoffPolicy;
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

export interface DeliveryRun {
  attempted: number;
  delivered: number;
  retried: number;
  failed: number;
}

export const WEBHOOK_BACKOFF: BackoffPolicy = { baseMs: 2000, capMs: 3_600_000 };
export const WEBHOOK_RETENTION_MS = 7 * 24 * 3_600_000;
/** Batches per deliverDue() call, so a long backlog still returns to the runner (pruning, shutdown) regularly. */
const MAX_BATCHES_PER_RUN = 16;
const PRUNE_BATCH = 1000;

export class WebhookService implements EventOutbox {
  private readonly opts: WebhookServiceOptions;
  private readonly target: WebhookTarget | undefined;
  private readonly url: URL | undefined;
  private readonly types: ReadonlySet<ObjectEventType>;
  private readonly transport: WebhookTransport;
  private readonly now: () => number;
  private readonly random: () => number;
  private readonly concurrency: number;
  private readonly batchSize: number;
  private onCommitted: () => void = () => undefined;

  constructor(opts: WebhookServiceOptions) {
    this.opts = opts;
    this.target = opts.target;
    this.url = opts.target ? new URL(opts.target.url) : undefined;
    this.types = new Set(opts.target?.events ?? []);
    this.concurrency = opts.concurrency ?? 8;
    this.batchSize = opts.batchSize ?? 64;
    this.transport = opts.transport ?? new WebhookClient({ maxSockets: this.concurrency });
    this.now = opts.now ?? Date.now;
    this.random = opts.random ?? Math.random;
  }

  get enabled(): boolean {
    return this.target !== undefined;
  }

  accepts(type: ObjectEventType): boolean {
    return this.types.has(type);
  }

  /** Writes the event's outbox row with a fresh delivery id. Call inside the committing transaction. */
  enqueue(event: ObjectEvent): void {
    this.opts.repo.insert({ deliveryId: randomUUID(), eventType: event.type, body: serializeEvent(event), createdAt: this.now() });
  }

  committed(): void {
    this.onCommitted();
  }

  /** Called after a row commits (the runner's wake-up). One listener; the last one set wins. */
  setCommitListener(listener: () => void): void {
    this.onCommitted = listener;
  }

  /**
   * Attempts every row due now, in due-time order, `concurrency` at a time, in batches (at most 16). A row is sent
   * only once its commit is durable. Aborting `signal` (shutdown) cancels requests in flight without counting them
   * as attempts: those rows stay due. Never throws for a receiver's failure.
   */
  async deliverDue(signal: AbortSignal): Promise<DeliveryRun> {
    const run: DeliveryRun = { attempted: 0, delivered: 0, retried: 0, failed: 0 };
    if (!this.target || !this.url) return run;
    for (let batch = 0; batch < MAX_BATCHES_PER_RUN && !signal.aborted; batch++) {
      const rows = this.opts.repo.due(this.now(), this.batchSize);
      if (rows.length === 0) break;
      // Read first, then wait: the barrier covers every commit made before it is asked for, these rows' included.
      await this.opts.durable();
      await eachConcurrently(rows, this.concurrency, (row) => this.attempt(row, signal, run));
      if (rows.length < this.batchSize) break;
    }
    return run;
  }

  /** The earliest due time of a pending row (epoch ms), or undefined. */
  nextDueAt(): number | undefined {
    return this.target ? this.opts.repo.nextDueAt() : undefined;
  }

  /** Deletes delivered and failed rows older than the retention (7 days); returns how many. */
  prune(): number {
    const before = this.now() - (this.opts.retentionMs ?? WEBHOOK_RETENTION_MS);
    let removed = 0;
    for (;;) {
      const n = this.opts.repo.prune(before, PRUNE_BATCH);
      removed += n;
      if (n < PRUNE_BATCH) return removed;
    }
  }

  /** Rows by status from the trigger-maintained counts table (three rows): cheap enough for every scrape. */
  outboxCounts(): OutboxCounts {
    return this.opts.repo.counts();
  }

  status(): WebhookStatus {
    const oldest = this.opts.repo.oldestPendingCreatedAt();
    const last = this.opts.repo.lastError();
    return {
      enabled: this.enabled,
      counts: this.outboxCounts(),
      oldestPendingAgeSeconds: oldest === undefined ? null : Math.max(0, Math.floor((this.now() - oldest) / 1000)),
      lastError: last ? { message: last.message, at: new Date(last.at).toISOString() } : null,
    };
  }

  close(): void {
    this.transport.close();
  }

  private async attempt(row: OutboxRow, signal: AbortSignal, run: DeliveryRun): Promise<void> {
    const target = this.target as WebhookTarget;
    const sentAt = this.now();
    const result = await this.transport.post({
      url: this.url as URL,
      headers: {
        'content-type': 'application/json',
        'user-agent': this.opts.userAgent,
        'x-store-event': row.eventType,
        'x-store-delivery': row.deliveryId,
        'x-store-signature': signatureHeader(target.secret, Math.floor(sentAt / 1000), row.body),
      },
      body: row.body,
      timeoutMs: target.timeoutMs,
      signal,
    });
    if (result.kind === 'aborted') return;
    const attempts = row.attempts + 1;
    const now = this.now();
    run.attempted++;
    const failure = failureReason(result);
    if (failure === undefined) {
      this.opts.repo.markDelivered(row.id, attempts, now);
      run.delivered++;
    } else if (attempts >= target.maxAttempts) {
      this.opts.repo.markFailed(row.id, attempts, failure, now);
      run.failed++;
      this.opts.logger.warn({ deliveryId: row.deliveryId, eventType: row.eventType, attempts, reason: failure }, 'webhook delivery failed for good');
    } else {
      const delay = fullJitterDelay(attempts, this.opts.backoff ?? WEBHOOK_BACKOFF, this.random);
      this.opts.repo.markRetry(row.id, attempts, now + delay, failure, now);
      run.retried++;
    }
  }
}

/** Undefined for success (any 2xx); otherwise the reason, safe to store and show. */
function failureReason(result: Exclude<WebhookPostResult, { kind: 'aborted' }>): string | undefined {
  if (result.kind === 'error') return result.reason;
  if (result.status >= 200 && result.status < 300) return undefined;
  // Redirects are never followed (SPEC delivery rule 6): a 3xx is a failure like any other non-2xx.
  if (result.status >= 300 && result.status < 400) return `redirect not followed (HTTP ${result.status})`;
  return `HTTP ${result.status}`;
}

/** Runs `fn` over `items` with at most `limit` in flight. */
async function eachConcurrently<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await fn(items[next++] as T);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
