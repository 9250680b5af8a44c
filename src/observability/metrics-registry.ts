// The metrics registry: exactly the families of SPEC "Metric families", plus the webhook outbox and audit-drop
// families, and the runtime metrics as store_process_* / store_nodejs_*. One instance, built in app.ts. prom-client
// holds the gauges and the runtime metrics; the per-request families are counted by request-metrics.ts. A scrape
// reads only in-memory values: gauges fed by workers, counters fed by requests; never the database.

import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import type { RequestLabels } from './metric-labels.js';
import { RequestMetrics } from './request-metrics.js';
import type { AuthScheme } from '../sigv4/types.js';

export type ReplicationOutboxStatus = 'pending' | 'inflight' | 'failed';
export type WebhookOutboxStatus = 'pending' | 'delivered' | 'failed';
export type IntegrityStatus = 'ok' | 'corrupt' | 'unchecked';

const REPLICATION_STATUSES: readonly ReplicationOutboxStatus[] = ['pending', 'inflight', 'failed'];
const WEBHOOK_STATUSES: readonly WebhookOutboxStatus[] = ['pending', 'delivered', 'failed'];
const INTEGRITY_STATUSES: readonly IntegrityStatus[] = ['ok', 'corrupt', 'unchecked'];

/** The surfaces that answer requests: the S3 plane and the admin API (the console and /metrics serve no writes). */
export type InternalErrorSurface = 's3' | 'admin';
const INTERNAL_ERROR_SURFACES: readonly InternalErrorSurface[] = ['s3', 'admin'];

/** One bucket's usage as of the last rollup: bytes and count of every stored version (delete markers excluded). */
export interface BucketUsage {
  bucket: string;
  bytes: number;
  objects: number;
  /** The bucket's quota limits (docs/quotas.md); absent ones have no series. */
  quotaBytes?: number | undefined;
  quotaObjects?: number | undefined;
}

export interface MetricsRegistryOptions {
  /** Registers store_integrity_objects and store_integrity_last_run_timestamp (only when a scrubber runs). */
  integrity?: boolean;
}

/**
 * prom-client's gauges that end in `_total` (sums of the per-type `store_nodejs_active_*{type}` gauges, which stay)
 * break the Prometheus naming rule promtool lints for (`_total` is for counters), so they are not exported.
 */
const DROPPED_DEFAULTS = [
  'store_nodejs_active_handles_total',
  'store_nodejs_active_requests_total',
  'store_nodejs_active_resources_total',
];

export class MetricsRegistry {
  /** The exposition's Content-Type: `text/plain; version=0.0.4; charset=utf-8`. */
  readonly contentType: string;
  private readonly registry = new Registry();
  /** The HTTP families and store_s3_operations_total: counted outside prom-client, appended to each scrape. */
  private readonly requests = new RequestMetrics();
  private readonly storageBytes: Gauge<'bucket'>;
  private readonly objectCount: Gauge<'bucket'>;
  private readonly quotaBytes: Gauge<'bucket'>;
  private readonly quotaObjects: Gauge<'bucket'>;
  private readonly replicationOutbox: Gauge<'status'>;
  private readonly webhookOutbox: Gauge<'status'>;
  private readonly integrity: { objects: Gauge<'status'>; lastRun: Gauge } | undefined;
  private readonly internalErrors: Counter<'surface'>;
  /** Plain counts, rendered at scrape time: a prom-client inc on every request costs more than the count. */
  private readonly authCounts: Record<AuthScheme, number> = { sigv4: 0, sigv2: 0, anonymous: 0 };
  private readAuditDrops: () => number = () => 0;
  private readReadPins: () => number = () => 0;
  private readWebhookOutbox: (() => Partial<Record<WebhookOutboxStatus, number>>) | undefined;
  private readonly notificationDeliveries: Counter<'kind' | 'outcome'>;
  private readNotificationQueue: () => readonly { kind: string; status: string; count: number }[] = () => [];

  constructor(opts: MetricsRegistryOptions = {}) {
    const registers = [this.registry];
    this.contentType = this.registry.contentType;
    collectDefaultMetrics({ register: this.registry, prefix: 'store_' });
    for (const name of DROPPED_DEFAULTS) this.registry.removeSingleMetric(name);

    this.storageBytes = new Gauge({
      name: 'store_storage_bytes',
      help: 'Bytes stored per bucket, every version counted, as of the last usage rollup.',
      labelNames: ['bucket'],
      registers,
    });
    this.objectCount = new Gauge({
      name: 'store_object_count',
      help: 'Current objects per bucket (delete markers excluded), as of the last usage rollup.',
      labelNames: ['bucket'],
      registers,
    });
    this.quotaBytes = new Gauge({
      name: 'store_bucket_quota_bytes',
      help: 'The byte quota of each bucket that has one, as of the last usage rollup.',
      labelNames: ['bucket'],
      registers,
    });
    this.quotaObjects = new Gauge({
      name: 'store_bucket_quota_objects',
      help: 'The object quota of each bucket that has one, as of the last usage rollup.',
      labelNames: ['bucket'],
      registers,
    });
    this.replicationOutbox = statusGauge(
      {
        name: 'store_replication_outbox_depth',
        help: 'Replication outbox rows by status.',
        statuses: REPLICATION_STATUSES,
      },
      registers,
    );
    this.webhookOutbox = statusGauge(
      { name: 'store_webhook_outbox_depth', help: 'Webhook outbox rows by status.', statuses: WEBHOOK_STATUSES },
      registers,
    );
    const readAuditDrops = (): number => this.readAuditDrops();
    new Counter({
      name: 'store_audit_dropped_total',
      help: 'Audit records dropped because the audit buffer was full.',
      registers,
      collect() {
        // The audit service owns the count; the counter mirrors it at scrape time.
        this.reset();
        const dropped = readAuditDrops();
        if (Number.isFinite(dropped) && dropped > 0) this.inc(dropped);
      },
    });
    this.internalErrors = new Counter({
      name: 'store_internal_errors_total',
      help: 'Requests answered 500 InternalError because of an unexpected failure inside Store (each is logged with its stack).',
      labelNames: ['surface'],
      registers,
    });
    for (const surface of INTERNAL_ERROR_SURFACES) this.internalErrors.inc({ surface }, 0);
    const authCounts = this.authCounts;
    new Counter({
      name: 'store_s3_auth_total',
      help: 'S3 requests by how they were signed: sigv4, sigv2 (legacy; STORE_SIGV2) or anonymous.',
      labelNames: ['scheme'],
      registers,
      collect() {
        this.reset();
        for (const [scheme, count] of Object.entries(authCounts)) this.inc({ scheme }, count);
      },
    });
    this.notificationDeliveries = new Counter({
      name: 'store_notification_deliveries_total',
      help: 'Bucket notification delivery attempts by target kind and outcome (delivered, retried, failed).',
      labelNames: ['kind', 'outcome'],
      registers,
    });
    const readNotificationQueue = () => this.readNotificationQueue();
    new Gauge({
      name: 'store_notification_queue',
      help: 'Bucket notification outbox rows by target kind and status (pending, delivered, failed).',
      labelNames: ['kind', 'status'],
      registers,
      collect() {
        this.reset();
        for (const q of readNotificationQueue()) this.set({ kind: q.kind, status: q.status }, q.count);
      },
    });
    const readReadPins = (): number => this.readReadPins();
    new Gauge({
      name: 'store_blob_read_pins',
      help: 'Blobs pinned by reads in progress (a GET, a copy, a backup); 0 when idle.',
      registers,
      collect() {
        this.set(readReadPins());
      },
    });
    this.integrity = opts.integrity
      ? {
          objects: statusGauge(
            {
              name: 'store_integrity_objects',
              help: 'Objects by result of their last integrity check.',
              statuses: INTEGRITY_STATUSES,
            },
            registers,
          ),
          lastRun: new Gauge({
            name: 'store_integrity_last_run_timestamp',
            help: 'Unix time (seconds) the last integrity scrub finished.',
            registers,
          }),
        }
      : undefined;
  }

  /** The text exposition (format 0.0.4) of every family. */
  async scrape(): Promise<string> {
    if (this.readWebhookOutbox) this.setWebhookOutbox(this.readWebhookOutbox());
    // prom-client ends its text with a line feed and separates families with a blank line; the request families follow.
    return `${await this.registry.metrics()}\n${this.requests.exposition()}\n`;
  }

  /** Records one finished request: the HTTP families, and store_s3_operations_total for the S3 surface. */
  observeRequest(labels: RequestLabels, seconds: number): void {
    this.requests.observe(labels, seconds);
  }

  /** Replaces every per-bucket series: a bucket missing from `rows` (deleted) has no series afterwards. */
  setBucketUsage(rows: readonly BucketUsage[]): void {
    this.storageBytes.reset();
    this.objectCount.reset();
    this.quotaBytes.reset();
    this.quotaObjects.reset();
    for (const row of rows) {
      this.storageBytes.set({ bucket: row.bucket }, row.bytes);
      this.objectCount.set({ bucket: row.bucket }, row.objects);
      if (row.quotaBytes !== undefined) this.quotaBytes.set({ bucket: row.bucket }, row.quotaBytes);
      if (row.quotaObjects !== undefined) this.quotaObjects.set({ bucket: row.bucket }, row.quotaObjects);
    }
  }

  /** Replication outbox depth by status; a status left out reads 0. */
  setReplicationOutbox(counts: Partial<Record<ReplicationOutboxStatus, number>>): void {
    setStatuses(this.replicationOutbox, REPLICATION_STATUSES, counts);
  }

  /** Webhook outbox rows by status; a status left out reads 0. Fed by the webhook runner. */
  setWebhookOutbox(counts: Partial<Record<WebhookOutboxStatus, number>>): void {
    setStatuses(this.webhookOutbox, WEBHOOK_STATUSES, counts);
  }

  /** Where store_webhook_outbox_depth reads its counts at each scrape (the webhook service keeps them in memory). */
  registerWebhookOutbox(read: () => Partial<Record<WebhookOutboxStatus, number>>): void {
    this.readWebhookOutbox = read;
  }

  /** Counts one bucket notification attempt (store_notification_deliveries_total). */
  countNotification(kind: string, outcome: 'delivered' | 'retried' | 'failed'): void {
    this.notificationDeliveries.inc({ kind, outcome });
  }

  /** Where store_notification_queue reads at each scrape (a snapshot the dispatcher keeps, never a query). */
  registerNotificationQueue(read: () => readonly { kind: string; status: string; count: number }[]): void {
    this.readNotificationQueue = read;
  }

  /** Counts one S3 request by how it was signed (store_s3_auth_total{scheme}); refused signatures are not counted. */
  countAuth(scheme: AuthScheme): void {
    this.authCounts[scheme]++;
  }

  /** Counts one request answered 500 InternalError on `surface` (the error is logged with its stack there). */
  countInternalError(surface: InternalErrorSurface): void {
    this.internalErrors.inc({ surface });
  }

  /** Where store_blob_read_pins reads its value at each scrape: the pins held right now. */
  registerReadPins(read: () => number): void {
    this.readReadPins = read;
  }

  /** Where store_audit_dropped_total reads its value at each scrape: the audit service's running count of drops. */
  registerAuditDrops(read: () => number): void {
    this.readAuditDrops = read;
  }

  /** True when the integrity families are registered (a scrubber is enabled). */
  get hasIntegrity(): boolean {
    return this.integrity !== undefined;
  }

  /** Integrity results; ignored unless the registry was built with `integrity: true`. */
  setIntegrity(counts: Partial<Record<IntegrityStatus, number>>, lastRunAt?: Date): void {
    if (!this.integrity) return;
    setStatuses(this.integrity.objects, INTEGRITY_STATUSES, counts);
    if (lastRunAt) this.integrity.lastRun.set(lastRunAt.getTime() / 1000);
  }
}

/** A gauge with one `status` series per known status, all starting at 0 so a dashboard sees the family at once. */
function statusGauge(
  { name, help, statuses }: { name: string; help: string; statuses: readonly string[] },
  registers: Registry[],
): Gauge<'status'> {
  const gauge = new Gauge({ name, help, labelNames: ['status'], registers });
  for (const status of statuses) gauge.set({ status }, 0);
  return gauge;
}

/** Only known statuses become series: an unexpected key from a caller cannot add a label value. */
function setStatuses<S extends string>(
  gauge: Gauge<'status'>,
  statuses: readonly S[],
  counts: Partial<Record<S, number>>,
): void {
  for (const status of statuses) gauge.set({ status }, counts[status] ?? 0);
}
