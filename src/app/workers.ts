// The background work of a running server, as one list: each worker's name, whether this configuration runs it,
// and how it starts from the services the composition root built (app.ts). `start` and `stop` walk the list; the
// status says which ran, for the admin API (GET /api/workers) and for tests.

import { join } from 'node:path';
import type { Config } from '../config/config.js';
import type { BackoffPolicy } from '../lib/backoff.js';
import type { Logger } from '../observability/logger.js';
import type { MetricsRegistry } from '../observability/metrics-registry.js';
import type { AnalyticsService } from '../services/analytics/analytics-service.js';
import type { AuditService } from '../services/audit/audit-service.js';
import type { BackupScheduler } from '../services/backup/backup-scheduler.js';
import type { BlobGcService } from '../services/blob-gc-service.js';
import type { WebhookService, WebhookTarget } from '../services/events/webhook-service.js';
import type { IntegrityService } from '../services/integrity/integrity-service.js';
import type { LifecycleService } from '../services/lifecycle-service.js';
import type { ObjectSearchService } from '../services/objects/object-search-service.js';
import type { UsageService } from '../services/usage-service.js';
import { startBackupScheduleWorker } from '../workers/backup-schedule-worker.js';
import { startIntegrityWorker } from '../workers/integrity-worker.js';
import { startLifecycleWorker } from '../workers/lifecycle-worker.js';
import { startRequestAnalyticsWorker } from '../workers/request-analytics-worker.js';
import { startLoop, type RunningLoop } from '../workers/runner.js';
import { startSearchIndexWorker } from '../workers/search-index-worker.js';
import { startUsageRollupWorker } from '../workers/usage-rollup-worker.js';
import type { RemoteFeatures } from './remote-features.js';
import { startWebhookThread } from './webhook-thread.js';

/** What the workers are started with: the built services and the configuration. */
export interface WorkerDeps {
  config: Config;
  logger: Logger;
  blobGc: BlobGcService;
  lifecycle: LifecycleService;
  audit: AuditService;
  analytics: AnalyticsService;
  usage: UsageService;
  metrics: MetricsRegistry;
  integrity: IntegrityService;
  search: ObjectSearchService;
  webhooks: WebhookService;
  /** Undefined when webhooks are off. */
  webhookTarget: WebhookTarget | undefined;
  webhookUserAgent: string;
  webhookBackoff?: BackoffPolicy | undefined;
  remoteFeatures: RemoteFeatures;
  backupScheduler: BackupScheduler;
  backupTickMs: number;
}

export interface WorkerSpec {
  name: string;
  /** Whether this server runs it (from the configuration, through the services built from it). */
  enabled(deps: WorkerDeps): boolean;
  /** Starts it; one worker may run several loops (replication's drain, tiering's sweep and collector). */
  start(deps: WorkerDeps): RunningLoop | RunningLoop[];
}

export interface WorkerStatus {
  name: string;
  enabled: boolean;
  running: boolean;
}

const always = (): boolean => true;

/** The webhook target of a configuration that has one (the webhooks worker is enabled only then). */
function targetOf(d: WorkerDeps): WebhookTarget {
  if (d.webhookTarget === undefined) throw new Error('the webhooks worker started without a WEBHOOK_URL');
  return d.webhookTarget;
}

/** Every background worker, in start order. */
export const WORKERS: readonly WorkerSpec[] = [
  {
    name: 'blob-gc',
    enabled: always,
    start: (d) =>
      startLoop({
        name: 'blob-gc',
        intervalMs: 1000,
        logger: d.logger,
        tick: async () => void (await d.blobGc.drainQueue()),
      }),
  },
  {
    name: 'lifecycle',
    enabled: always,
    start: (d) =>
      startLifecycleWorker({
        service: d.lifecycle,
        intervalMs: d.config.STORE_LIFECYCLE_INTERVAL_MS,
        logger: d.logger,
      }),
  },
  {
    name: 'audit-flush',
    enabled: always,
    start: (d) =>
      startLoop({
        name: 'audit-flush',
        intervalMs: d.config.AUDIT_FLUSH_MS,
        logger: d.logger,
        tick: async () => void d.audit.flush(),
      }),
  },
  {
    name: 'usage-rollup',
    enabled: always,
    start: (d) => {
      // Never a reason not to serve: on a full disk the run is recorded by its first usage tick that can write.
      try {
        d.analytics.startRun();
      } catch (err) {
        d.logger.warn({ err }, 'could not record the start of this run for analytics; serving anyway');
      }
      return startUsageRollupWorker({
        usage: d.usage,
        metrics: d.metrics,
        samples: d.analytics,
        intervalMs: d.config.USAGE_ROLLUP_INTERVAL_MS,
        logger: d.logger,
      });
    },
  },
  {
    name: 'request-analytics',
    enabled: always,
    start: (d) => startRequestAnalyticsWorker({ analytics: d.analytics, logger: d.logger }),
  },
  {
    name: 'integrity',
    enabled: always,
    start: (d) =>
      startIntegrityWorker({
        service: d.integrity,
        intervalMs: d.config.STORE_INTEGRITY_SCRUB_INTERVAL_MS,
        logger: d.logger,
      }),
  },
  {
    name: 'search-index',
    enabled: always,
    start: (d) => startSearchIndexWorker({ service: d.search, logger: d.logger }),
  },
  {
    name: 'webhooks',
    enabled: (d) => d.webhookTarget !== undefined,
    start: (d) =>
      startWebhookThread({
        webhooks: d.webhooks,
        target: targetOf(d),
        file: join(d.config.DATA_DIR, 'meta.db'),
        userAgent: d.webhookUserAgent,
        pollMs: d.config.WEBHOOK_POLL_MS,
        logLevel: d.config.LOG_LEVEL,
        logger: d.logger,
        ...(d.webhookBackoff === undefined ? {} : { backoff: d.webhookBackoff }),
      }),
  },
  // Replication's drain and tiering's sweep and collector, each only when on; the target bucket is checked at start.
  {
    name: 'replication-tiering',
    enabled: (d) => d.remoteFeatures.remote !== undefined,
    start: (d) => d.remoteFeatures.start(),
  },
  {
    name: 'backup-schedule',
    enabled: (d) => d.backupScheduler.enabled,
    start: (d) => startBackupScheduleWorker({ scheduler: d.backupScheduler, tickMs: d.backupTickMs, logger: d.logger }),
  },
];

/** The workers of one server: started together, stopped together, each one's status. */
export class WorkerSet {
  private readonly loops = new Map<string, RunningLoop[]>();
  /** What start() was given: whether a worker is enabled is read from it, not kept apart. */
  private deps: WorkerDeps | undefined;

  constructor(private readonly specs: readonly WorkerSpec[] = WORKERS) {}

  /** Starts every enabled worker. */
  start(deps: WorkerDeps): void {
    this.deps = deps;
    for (const spec of this.specs) {
      if (!spec.enabled(deps)) continue;
      const started = spec.start(deps);
      this.loops.set(spec.name, Array.isArray(started) ? started : [started]);
    }
  }

  /** Stops them all (each aborts its tick and waits for it). */
  async stop(): Promise<void> {
    const all = [...this.loops.values()].flat();
    this.loops.clear();
    await Promise.all(all.map((loop) => loop.stop()));
  }

  /** Each worker: whether this configuration runs it (false before start), and whether it runs now. */
  status(): WorkerStatus[] {
    const deps = this.deps;
    return this.specs.map((s) => ({
      name: s.name,
      enabled: deps !== undefined && s.enabled(deps),
      running: (this.loops.get(s.name)?.length ?? 0) > 0,
    }));
  }
}
