// Composition of replication, reconcile and tiering (docs/replication.md), kept beside app.ts so the root stays
// short. The AWS SDK is imported dynamically, and only when a remote target is configured: a plain start never
// loads it. Nothing here is logged with the endpoint, the bucket name or a credential.

import type { Config } from '../config/config.js';
import { isPlaintextEndpoint, remoteTargetOf } from '../config/replication-config.js';
import type { Logger } from '../observability/logger.js';
import type { MetricsRegistry } from '../observability/metrics-registry.js';
import type { EventSink } from '../services/events/event-sink.js';
import type { ObjectService, StubReader } from '../services/objects/object-service.js';
import { ReconcileService } from '../services/replication/reconcile-service.js';
import type { RemoteStore } from '../services/replication/remote-store.js';
import { ReplicationService } from '../services/replication/replication-service.js';
import { ReplicationEventSink } from '../services/replication/replication-sink.js';
import { RemoteStubReader } from '../services/tiering/stub-reader.js';
import { TierService } from '../services/tiering/tier-service.js';
import type { BlobStore } from '../storage/blobs/blob-store.js';
import { LifecycleRepo } from '../storage/db/lifecycle-repo.js';
import type { MetadataStore } from '../storage/db/metadata-store.js';
import { ReplicationJobsRepo } from '../storage/db/replication-jobs-repo.js';
import { ReplicationOutboxRepo } from '../storage/db/replication-outbox-repo.js';
import { TierRepo } from '../storage/db/tier-repo.js';
import { startReplicationWorker } from '../workers/replication-worker.js';
import type { RunningLoop } from '../workers/runner.js';
import { startTierWorkers } from '../workers/tier-worker.js';

export interface RemoteFeatures {
  /**
   * The target (undefined when neither replication nor tiering is configured), for other features that reach it:
   * backup snapshots pushed under BACKUP_PREFIX, integrity repair reading a good copy.
   */
  readonly remote: RemoteStore | undefined;
  /** The event sink to give the object service: the inner sink plus the replication intent. */
  readonly events: EventSink;
  /**
   * How internal readers read a tiered stub's bytes, for the object service and backups (undefined without a remote).
   */
  readonly stubReader: StubReader | undefined;
  /** Builds the services, which need the object service. Once. */
  build(
    objects: ObjectService,
    metrics: MetricsRegistry,
  ): { replication: ReplicationService; reconcile: ReconcileService; tiering: TierService };
  /** Starts the drain, tier sweep and tier GC loops (only those that are on) and checks the target bucket. */
  start(): RunningLoop[];
  /** Stops reconcile and rehydrations, closes the client. Call after the loops stopped. */
  close(): Promise<void>;
}

/** Loads the SDK client for the configured target, or undefined when neither replication nor tiering is on. */
async function remoteStoreFor(config: Config, logger: Logger): Promise<RemoteStore | undefined> {
  const target = remoteTargetOf(config);
  if (target === undefined) return undefined;
  if (isPlaintextEndpoint(config)) {
    logger.warn(
      'STORE_REPLICATION_ENDPOINT is plaintext http: object bytes and signatures cross the network unencrypted (tolerated for a trusted LAN)',
    );
  }
  // The SDK prints a notice about its own future Node requirements on Node 20 (as a process warning, outside the
  // structured log). Store supports Node 20 with the SDK version it ships with, so the notice is only noise.
  process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] ??= 'true';
  const { S3RemoteStore } = await import('../clients/s3-remote-store.js');
  return new S3RemoteStore({
    ...target,
    largeObjectThresholdBytes: config.STORE_REPLICATION_LARGE_OBJECT_THRESHOLD_BYTES,
    requestTimeoutMs: config.STORE_REPLICATION_REQUEST_TIMEOUT_MS,
  });
}

export async function buildRemoteFeatures(opts: {
  config: Config;
  logger: Logger;
  meta: MetadataStore;
  blobs: BlobStore;
  inner: EventSink;
}): Promise<RemoteFeatures> {
  const { config, logger, meta, blobs } = opts;
  const remote = await remoteStoreFor(config, logger);
  const outbox = new ReplicationOutboxRepo(meta.db);
  let built: ReturnType<RemoteFeatures['build']> | undefined;
  // The sink exists before the services (the object service needs it first); it forwards once they are built.
  const events = new ReplicationEventSink(opts.inner, {
    recordChange: (b, k, kind) => built?.replication.recordChange(b, k, kind),
  });
  let worker: ReturnType<typeof startReplicationWorker> | undefined;
  const checks = new AbortController();

  return {
    remote,
    events,
    // Stubs are readable by internal readers whenever a remote is configured (even with tiering turned off since).
    stubReader: remote && new RemoteStubReader(remote),
    build(objects, metrics) {
      const replication = new ReplicationService({
        meta,
        outbox,
        objects,
        remote,
        enabled: config.STORE_REPLICATION_ENABLED,
        logger,
        maxAttempts: config.STORE_REPLICATION_MAX_ATTEMPTS,
        batchKeys: config.STORE_REPLICATION_BATCH_KEYS,
        retryBaseMs: config.STORE_REPLICATION_RETRY_BASE_MS,
        onCounts: (counts) => metrics.setReplicationOutbox(counts),
      });
      const reconcile = new ReconcileService({
        meta,
        jobs: new ReplicationJobsRepo(meta.db),
        outbox,
        remote,
        enabled: replication.enabled,
        logger,
        onEnqueued: () => worker?.wake(),
      });
      const tiering = new TierService({
        meta,
        repo: new TierRepo(meta.db),
        lifecycle: new LifecycleRepo(meta.db),
        objects,
        blobs,
        remote,
        enabled: config.STORE_TIER_ENABLED,
        dataDir: config.DATA_DIR,
        logger,
        readThroughTimeoutMs: config.STORE_TIER_READTHROUGH_TIMEOUT_MS,
        maxConcurrentRehydrate: config.STORE_TIER_MAX_CONCURRENT_REHYDRATE,
        presignTtlSeconds: config.STORE_TIER_PRESIGN_TTL_SECONDS,
        inlineMaxBytes: config.STORE_TIER_INLINE_MAX_BYTES,
        events,
      });
      replication.publishCounts(true);
      built = { replication, reconcile, tiering };
      return built;
    },
    start() {
      const loops: RunningLoop[] = [];
      if (!built) return loops;
      const { replication, tiering } = built;
      if (replication.enabled) {
        worker = startReplicationWorker({
          service: replication,
          intervalMs: config.STORE_REPLICATION_DRAIN_INTERVAL_MS,
          batchKeys: config.STORE_REPLICATION_BATCH_KEYS,
          logger,
        });
        replication.setWakeListener(() => worker?.wake());
        loops.push(worker);
      }
      if (tiering.enabled)
        loops.push(
          ...startTierWorkers({ service: tiering, sweepIntervalMs: config.STORE_LIFECYCLE_INTERVAL_MS, logger }),
        );
      // The target bucket must already exist: checked now and shown in status; a remote that is merely down is no
      // reason to refuse boot.
      if (remote) void replication.checkTarget(checks.signal);
      return loops;
    },
    async close() {
      checks.abort();
      await built?.tiering.close();
      await built?.reconcile.stop();
      remote?.close();
    },
  };
}
