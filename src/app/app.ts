// The composition root: builds every object from the config and passes dependencies in. The only module that
// imports every layer, with the help of its neighbours: object-services.ts (the data plane), identity-services.ts,
// backup-services.ts, http-surfaces.ts (the S3 plane and the HTTP server) and running-app.ts (start and stop).
// `buildApp` opens the data directory; `start` listens; `stop` drains and closes.

import { join } from 'node:path';
import { buildBackups } from './backup-services.js';
import { buildHttp } from './http-surfaces.js';
import { buildIdentity } from './identity-services.js';
import { buildObjectServices } from './object-services.js';
import { assemble, type App } from './running-app.js';
import { decodeSseKey, type Config } from '../config/config.js';
import { parseTrustedProxies } from '../http/shared/client-address.js';
import type { BackoffPolicy } from '../lib/backoff.js';
import type { QuotaAdmitHook } from '../services/objects/quota-gate.js';
import type { Logger } from '../observability/logger.js';
import { AnalyticsService } from '../services/analytics/analytics-service.js';
import { RequestCounters } from '../services/analytics/request-counters.js';
import type { RepairSource } from '../services/integrity/integrity-service.js';
import { ObjectSearchService } from '../services/objects/object-search-service.js';
import { UsageService } from '../services/usage-service.js';
import { checkSseKeyMatches, loadOrCreateSseKey, lockDataDir, type DataDirLock } from '../storage/data-dir.js';
import { MetadataStore } from '../storage/db/metadata-store.js';
import { BlobStore } from '../storage/blobs/blob-store.js';
import { WorkerSet, type WorkerDeps } from './workers.js';

export type { App } from './running-app.js';

/** Seams for tests; production passes none. */
export interface BuildOptions {
  /**
   * The webhook retry backoff (default WEBHOOK_BACKOFF: full jitter from 2 s to 1 h); `{ baseMs: 0, capMs: 0 }` retries
   * at once.
   */
  webhookBackoff?: BackoffPolicy;
  /** Where the integrity scrubber repairs corrupt versions from (tests pass an in-process fake). */
  integrityRepairSource?: RepairSource;
  /** The scheduled-backup wake tick (default 60 s). */
  backupTickMs?: number;
  /**
   * Called when the process can no longer keep its promises and must restart (main.ts logs and exits): today, an
   * fsync of the metadata WAL that failed (storage/db/wal-sync.ts). Until then every write is refused.
   */
  onFatal?: (reason: string, err: unknown) => void;
  /** Test seam: the clock that decides access-key and share-link expiry (default Date.now). */
  keyClock?: () => number;
  /** Test seam: awaited once a write to a bucket with a quota is admitted, before its body is read. */
  onQuotaAdmitted?: QuotaAdmitHook;
}

export async function buildApp(config: Config, logger: Logger, options: BuildOptions = {}): Promise<App> {
  const bootTime = Date.now();
  const lock: DataDirLock = lockDataDir(config.DATA_DIR);
  let meta: MetadataStore | undefined;
  try {
    const masterKey = loadOrCreateSseKey(
      config.DATA_DIR,
      config.STORE_SSE_KEY ? decodeSseKey(config.STORE_SSE_KEY) : undefined,
    );
    meta = MetadataStore.open(join(config.DATA_DIR, 'meta.db'), {
      wal: {
        onFailure: (err) =>
          options.onFatal?.(
            'an fsync of the metadata WAL failed: no write can be acknowledged until a restart recovers it',
            err,
          ),
      },
    });
    if (meta.schema.from !== meta.schema.to)
      logger.info({ fromVersion: meta.schema.from, toVersion: meta.schema.to }, 'metadata schema migrated');
    meta.startBackgroundCheckpoints();
    checkSseKeyMatches(meta, masterKey);
    const blobs = new BlobStore({ dataDir: config.DATA_DIR, masterKey });
    await blobs.init();

    const trustedProxies = parseTrustedProxies(config.STORE_TRUSTED_PROXIES);
    const services = await buildObjectServices({
      config,
      logger,
      meta,
      blobs,
      integrityRepairSource: options.integrityRepairSource,
      onQuotaAdmitted: options.onQuotaAdmitted,
    });
    const { pins, buckets, audit, metrics, webhooks, remoteFeatures, tiering } = services;
    const identity = buildIdentity({ config, logger, meta, buckets, audit, keyClock: options.keyClock });
    metrics.registerAuditDrops(() => audit.droppedCount);
    metrics.registerReadPins(() => pins.count);
    metrics.registerWebhookOutbox(() => webhooks.outboxCounts());
    const usage = new UsageService(buckets);
    const backup = await buildBackups({ config, logger, meta, blobs, pins, remoteFeatures, tiering });
    const search = new ObjectSearchService({ meta });
    const requestCounts = new RequestCounters();
    const analytics = new AnalyticsService({
      meta,
      usage: buckets,
      counters: requestCounts,
      retentionMs: config.STORE_ANALYTICS_RETENTION_DAYS * 86_400_000,
      storageResolutionMs: config.USAGE_ROLLUP_INTERVAL_MS,
    });
    const workerSet = new WorkerSet();
    const http = await buildHttp({
      config,
      logger,
      bootTime,
      meta,
      trustedProxies,
      services,
      identity,
      backup,
      search,
      analytics,
      requestCounts,
      workerSet,
    });
    const workers: WorkerDeps = {
      config,
      logger,
      blobGc: services.blobGc,
      lifecycle: services.lifecycle,
      audit,
      analytics,
      usage,
      metrics,
      integrity: services.integrity,
      search,
      webhooks,
      webhookTarget: services.hooks.target,
      webhookUserAgent: services.hooks.userAgent,
      webhookBackoff: options.webhookBackoff,
      remoteFeatures,
      backupScheduler: backup.backupScheduler,
      backupTickMs: options.backupTickMs ?? 60_000,
    };
    return assemble({
      config,
      http,
      meta,
      lock,
      hashes: services.hashes,
      bootTime,
      handlers: services.handlers,
      blobGc: services.blobGc,
      remoteFeatures,
      backupScheduler: backup.backupScheduler,
      audit,
      workers,
      workerSet,
      notifications: services.notifications,
    });
  } catch (err) {
    await meta?.close();
    lock.release();
    throw err;
  }
}
