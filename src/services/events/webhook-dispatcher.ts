// Webhook delivery: due outbox rows whose commit is known durable are claimed into a ready queue and sent with at
// most `concurrency` requests in flight; each finished request frees its slot for the next ready row at once, so a
// receiver that hangs holds one slot until the timeout, not the whole runner. Outcomes (delivered on a 2xx, retried
// with full-jitter backoff, failed after maxAttempts) are handed over in batches to be written, one small transaction
// per batch, by the connection that owns the database's writes (WebhookService.recordOutcomes).
//
// "Known durable" is a watermark: every row with an id at or below it is on disk. The committing writer's own
// durability barrier advances it (WebhookService.committed), so delivery never asks for an fsync of its own.
//
// The dispatcher only reads the outbox, so it can run on the delivery thread with a connection of its own
// (src/app/webhook-delivery-thread.ts).

import { fullJitterDelay, type BackoffPolicy } from '../../lib/backoff.js';
import type { Logger } from '../../observability/logger.js';
import type { OutboxOutcome, OutboxRow, WebhookOutboxRepo } from '../../storage/db/webhook-outbox-repo.js';
import type { WebhookPostResult, WebhookTransport } from '../../clients/webhook-client.js';
import type { ObjectEventType } from '../../core/object-event.js';
import { signatureHeader } from './webhook-signature.js';

/** Where and how to deliver; validated at boot (config/webhook-config.ts). */
export interface WebhookTarget {
  url: string;
  secret: string;
  events: readonly ObjectEventType[];
  maxAttempts: number;
  timeoutMs: number;
}

/** Attempts made so far and their outcomes (cumulative). */
export interface DeliveryRun {
  attempted: number;
  delivered: number;
  retried: number;
  failed: number;
}

/** The outbox reads delivery needs: any connection to the database will do. */
export type OutboxReader = Pick<WebhookOutboxRepo, 'due' | 'upcoming' | 'maxId'>;

export interface WebhookDispatcherOptions {
  repo: OutboxReader;
  target: WebhookTarget;
  transport: WebhookTransport;
  userAgent: string;
  logger: Logger;
  now: () => number;
  random: () => number;
  concurrency: number;
  batchSize: number;
  backoff: BackoffPolicy;
  /** Rows with ids up to here are durable when it starts (default: every row present, as at boot). */
  durableUpTo?: number;
  /**
   * Writes a batch of outcomes; the rows are released (may be claimed again) once it settles. A rejection is logged:
   * those rows are then sent again, which receivers absorb by deduping on X-Store-Delivery.
   */
  record: (outcomes: OutboxOutcome[]) => Promise<void>;
}

/** Outcomes wait at most this long to be written together. */
const RECORD_DELAY_MS = 50;

export class WebhookDispatcher {
  readonly totals: DeliveryRun = { attempted: 0, delivered: 0, retried: 0, failed: 0 };
  private readonly url: URL;
  /** Claimed rows not yet sent, durable, in due-time order. */
  private ready: OutboxRow[] = [];
  /** Ids of rows ready, in flight, or with an outcome not yet written: never claimed twice. */
  private readonly claimed = new Set<number>();
  private readonly active = new Set<Promise<void>>();
  private outcomes: OutboxOutcome[] = [];
  /** Batches handed to `record` and not yet settled. */
  private readonly recording = new Set<Promise<void>>();
  private recordTimer: NodeJS.Timeout | undefined;
  private signal: AbortSignal = new AbortController().signal;
  private onDrained: () => void = () => undefined;
  /** Rows with ids up to here are durable. At boot: every row present (they were read back from the data files). */
  private durableUpTo: number;

  constructor(private readonly opts: WebhookDispatcherOptions) {
    this.url = new URL(opts.target.url);
    this.durableUpTo = opts.durableUpTo ?? opts.repo.maxId();
  }

  /** The commit of row `id` (and so of every row before it) is durable. */
  advance(id: number): void {
    if (id > this.durableUpTo) this.durableUpTo = id;
  }

  /**
   * Called when outcomes were written and no claimed row is left to send: time to claim more (the runner's wake-up).
   */
  setDrainedListener(listener: () => void): void {
    this.onDrained = listener;
  }

  /**
   * Claims up to a batch of due, durable rows (when none is waiting) and starts sending in free slots. Returns the
   * rows claimed, without waiting for the requests. Aborting `signal` (shutdown) cancels requests in flight without
   * counting them as attempts: those rows stay due.
   */
  poll(signal: AbortSignal): number {
    this.signal = signal;
    let claimed = 0;
    if (this.ready.length === 0 && !signal.aborted) {
      const rows = this.opts.repo
        .due(this.opts.now(), this.durableUpTo, this.opts.batchSize + this.claimed.size)
        .filter((r) => !this.claimed.has(r.id))
        .slice(0, this.opts.batchSize);
      for (const row of rows) this.claimed.add(row.id);
      this.ready.push(...rows);
      claimed = rows.length;
    }
    this.pump();
    return claimed;
  }

  /** True while rows are claimed (ready, in flight, or with outcomes to write): it will report when it is done. */
  get isBusy(): boolean {
    return this.claimed.size > 0;
  }

  /** The earliest due time of a durable pending row not already claimed, or undefined. */
  nextDueAt(): number | undefined {
    return this.opts.repo.upcoming(this.durableUpTo, this.claimed.size + 1).find((r) => !this.claimed.has(r.id))
      ?.nextAttemptAt;
  }

  /** Resolves once no request is in flight (after a shutdown abort: promptly) and every outcome is written. */
  async idle(): Promise<void> {
    while (this.active.size > 0) await Promise.all(this.active);
    void this.record();
    while (this.recording.size > 0) await Promise.all(this.recording);
  }

  private pump(): void {
    while (this.active.size < this.opts.concurrency && this.ready.length > 0 && !this.signal.aborted) {
      const row = this.ready.shift() as OutboxRow;
      const sending: Promise<void> = this.attempt(row, this.signal)
        .catch((err: unknown) => {
          this.claimed.delete(row.id);
          this.opts.logger.error({ err, deliveryId: row.deliveryId }, 'webhook attempt failed unexpectedly');
        })
        .finally(() => {
          this.active.delete(sending);
          this.pump();
        });
      this.active.add(sending);
    }
    if (this.signal.aborted) {
      for (const row of this.ready) this.claimed.delete(row.id);
      this.ready = [];
    }
  }

  private async attempt(row: OutboxRow, signal: AbortSignal): Promise<void> {
    const { target } = this.opts;
    const sentAt = this.opts.now();
    const result = await this.opts.transport.post({
      url: this.url,
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
    if (result.kind === 'aborted') {
      this.claimed.delete(row.id);
      return;
    }
    const attempts = row.attempts + 1;
    this.totals.attempted++;
    const failure = failureReason(result);
    if (failure === undefined) {
      this.outcomes.push({ id: row.id, attempts, status: 'delivered' });
      this.totals.delivered++;
    } else if (attempts >= target.maxAttempts) {
      this.outcomes.push({ id: row.id, attempts, status: 'failed', error: failure });
      this.totals.failed++;
      this.opts.logger.warn(
        { deliveryId: row.deliveryId, eventType: row.eventType, attempts, reason: failure },
        'webhook delivery failed for good',
      );
    } else {
      const nextAttemptAt = this.opts.now() + fullJitterDelay(attempts, this.opts.backoff, this.opts.random);
      this.outcomes.push({ id: row.id, attempts, status: 'retry', nextAttemptAt, error: failure });
      this.totals.retried++;
    }
    if (this.outcomes.length >= this.opts.batchSize) void this.record();
    else this.recordTimer ??= setTimeout(() => void this.record(), RECORD_DELAY_MS);
  }

  /**
   * Hands the outcomes gathered so far over to be written together, then releases their rows. A crash before they
   * are written re-sends them after the restart (at-least-once; receivers dedupe on X-Store-Delivery).
   */
  private record(): Promise<void> {
    clearTimeout(this.recordTimer);
    this.recordTimer = undefined;
    const batch = this.outcomes;
    if (batch.length === 0) return Promise.resolve();
    this.outcomes = [];
    const written: Promise<void> = this.opts
      .record(batch)
      .catch((err: unknown) => {
        this.opts.logger.error(
          { err, outcomes: batch.length },
          'recording webhook outcomes failed; those rows will be sent again',
        );
      })
      .finally(() => {
        this.recording.delete(written);
        for (const o of batch) this.claimed.delete(o.id);
        if (this.ready.length === 0) this.onDrained();
      });
    this.recording.add(written);
    return written;
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
