/* eslint-disable max-lines -- TEMPORARY: split pending */
// The composition root: builds every object from the config and passes dependencies in. The only module that
// imports every layer. `buildApp` opens the data directory; `start` listens; `stop` drains and closes.

import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { createInitBuckets } from './init-buckets.js';
import { buildRemoteFeatures, type RemoteFeatures } from './remote-features.js';
import { decodeSseKey, type Config } from '../config/config.js';
import { webhookEventNames } from '../config/webhook-config.js';
import { domainList } from '../config/domain-config.js';
import { createHttpServer, type HttpServer } from '../http/http-server.js';
import { S3PlaneHandler } from '../http/s3/s3-plane.js';
import { buildNotifications, type Notifications } from './notifications.js';
import { VirtualHosts } from '../http/s3/virtual-hosts.js';
import { parseTrustedProxies } from '../http/shared/client-address.js';
import { readBuildInfo } from '../lib/build-info.js';
import { HashPool } from '../lib/hash-pool.js';
import type { Logger } from '../observability/logger.js';
import { MetricsRegistry } from '../observability/metrics-registry.js';
import { RequestTracer } from '../observability/request-tracer.js';
import { AccessKeyService } from '../services/identity/access-key-service.js';
import { AdminAuthService } from '../services/identity/admin-auth-service.js';
import { AdminUsersService } from '../services/identity/admin-users-service.js';
import { AuditService } from '../services/audit/audit-service.js';
import { BlobGcService } from '../services/blob-gc-service.js';
import { BackupScheduler, type SnapshotPusher } from '../services/backup/backup-scheduler.js';
import { BackupService } from '../services/backup/backup-service.js';
import { RestoreService } from '../services/backup/restore-service.js';
import { SnapshotDir } from '../services/backup/snapshot-dir.js';
import { RemoteSnapshotPusher } from '../services/backup/remote-snapshot-pusher.js';
import { statfsFreeBytes } from '../services/free-space.js';
import { BucketService } from '../services/bucket-service.js';
import { EventHandlers, type ObjectEventRegistry } from '../services/events/event-handlers.js';
import { EventPipeline } from '../services/events/event-pipeline.js';
import { WebhookService, type WebhookTarget } from '../services/events/webhook-service.js';
import { packageVersion } from '../lib/package-version.js';
import { LifecycleService } from '../services/lifecycle-service.js';
import { ListingService } from '../services/objects/listing-service.js';
import { MultipartService } from '../services/objects/multipart-service.js';
import { ReadPins } from '../services/objects/object-reader.js';
import { ObjectSearchService } from '../services/objects/object-search-service.js';
import { ObjectService } from '../services/objects/object-service.js';
import { argon2CostOf } from '../services/identity/password-hashing.js';
import { RefreshSessionService } from '../services/identity/refresh-session-service.js';
import { UsageService } from '../services/usage-service.js';
import { WriteReserve } from '../services/objects/write-reserve.js';
import { BlobStore } from '../storage/blobs/blob-store.js';
import { checkSseKeyMatches, loadOrCreateSseKey, lockDataDir, type DataDirLock } from '../storage/data-dir.js';
import { LifecycleRepo } from '../storage/db/lifecycle-repo.js';
import { MetadataSnapshot } from '../storage/db/metadata-snapshot.js';
import { MetadataStore } from '../storage/db/metadata-store.js';
import { WebhookOutboxRepo } from '../storage/db/webhook-outbox-repo.js';
import { WorkerSet, type WorkerDeps, type WorkerStatus } from './workers.js';
import type { BackoffPolicy } from '../lib/backoff.js';
import { AnalyticsService } from '../services/analytics/analytics-service.js';
import { RequestCounters } from '../services/analytics/request-counters.js';
import { IntegrityService, type RepairSource } from '../services/integrity/integrity-service.js';
import { mirrorRepairSource } from '../services/replication/mirror-repair-source.js';
import { backupSchedule } from '../config/backup-config.js';

export interface App {
  readonly config: Config;
  readonly http: HttpServer;
  /**
   * In-process event handlers (docs/events.md): register before start(). Each handler runs after its change is
   * committed and durable, fire-and-forget.
   */
  readonly events: ObjectEventRegistry;
  /** The background workers (workers.ts): which this configuration runs, and which run now. */
  workers(): WorkerStatus[];
  /** Listens on HOST:PORT and starts the background workers. Resolves with the bound address. */
  start(): Promise<AddressInfo>;
  /** Drains in-flight requests (up to SHUTDOWN_DRAIN_MS), stops workers, closes the database and the lock. */
  stop(): Promise<{ drained: boolean }>;
}

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
}

/** The webhook target from the configuration, or undefined when webhooks are off (no WEBHOOK_URL). */
function webhookTarget(config: Config): WebhookTarget | undefined {
  if (config.WEBHOOK_URL === undefined || config.WEBHOOK_SECRET === undefined) return undefined;
  return {
    url: config.WEBHOOK_URL,
    secret: config.WEBHOOK_SECRET,
    events: webhookEventNames(config),
    maxAttempts: config.WEBHOOK_MAX_ATTEMPTS,
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
  };
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
    const metaStore = meta;
    meta.startBackgroundCheckpoints();
    checkSseKeyMatches(meta, masterKey);
    const blobs = new BlobStore({ dataDir: config.DATA_DIR, masterKey });
    await blobs.init();

    const trustedProxies = parseTrustedProxies(config.STORE_TRUSTED_PROXIES);
    const pins = new ReadPins();
    const buckets = new BucketService({
      meta,
      region: config.STORE_REGION,
      defaultOwnership: config.STORE_DEFAULT_OBJECT_OWNERSHIP,
    });
    createInitBuckets(buckets, config, logger);
    // Events: the webhook outbox row commits with each change; in-process handlers run once it is durable.
    const handlers = new EventHandlers(logger);
    const hooks = { target: webhookTarget(config), userAgent: `store-webhooks/${packageVersion()}` } as const;
    const webhooks = new WebhookService({
      repo: new WebhookOutboxRepo(meta.db),
      durable: () => metaStore.durable(),
      target: hooks.target,
      userAgent: hooks.userAgent,
      logger,
    });
    const pipeline = new EventPipeline({
      handlers,
      durable: () => metaStore.durable(),
      outbox: webhooks.enabled ? webhooks : undefined,
      logger,
    });
    const metrics = new MetricsRegistry({ integrity: config.STORE_INTEGRITY_SCRUB_ENABLED });
    const ownerId = createHash('sha256').update(`store-owner:${config.ROOT_ACCESS_KEY_ID}`).digest('hex');
    // Bucket notifications (notifications.ts): their outbox rows join the webhook row in each commit.
    const notifications = buildNotifications({
      meta,
      inner: pipeline,
      logger,
      metrics,
      region: config.STORE_REGION,
      ownerId,
      encryptionSecret: config.KEY_ENCRYPTION_SECRET ?? config.ROOT_SECRET_ACCESS_KEY,
      backoff: { baseMs: config.STORE_NOTIFY_RETRY_BASE_MS, capMs: config.STORE_NOTIFY_RETRY_CAP_MS },
      maxAttempts: config.STORE_NOTIFY_MAX_ATTEMPTS,
    });
    // Replication and tiering (remote-features.ts): the replication intent joins the webhook row in each commit.
    const remoteFeatures = await buildRemoteFeatures({ config, logger, meta, blobs, inner: notifications.sink });
    // MD5 of large bodies on threads beside the event loop; they start on the first large body.
    const hashes = new HashPool();
    const audit = new AuditService({ meta, logger, retentionDays: config.AUDIT_RETENTION_DAYS });
    // Integrity and analytics (docs/integrity-analytics.md). Corrupt versions are repaired from the replication mirror
    // when there is one; otherwise they stay listed.
    const mirror = config.STORE_REPLICATION_ENABLED ? remoteFeatures.remote : undefined;
    const repairSource: RepairSource | undefined =
      options.integrityRepairSource ?? (mirror && mirrorRepairSource(mirror));
    const integrity = new IntegrityService({
      meta,
      blobs,
      pins,
      logger,
      audit,
      metrics,
      repairSource,
      enabled: config.STORE_INTEGRITY_SCRUB_ENABLED,
      limits: {
        intervalMs: config.STORE_INTEGRITY_SCRUB_INTERVAL_MS,
        objectsPerTick: config.STORE_INTEGRITY_SCRUB_OBJECTS_PER_TICK,
        bytesPerTick: config.STORE_INTEGRITY_SCRUB_BYTES_PER_TICK,
      },
      passIntervalMs: config.STORE_INTEGRITY_SCRUB_PASS_INTERVAL_HOURS * 3_600_000,
    });
    // A read that finds a version's bytes corrupt marks it (integrity); a successful read costs nothing more.
    const objects = new ObjectService({
      meta,
      blobs,
      pins,
      events: remoteFeatures.events,
      hashes,
      onReadError: (row, err) => integrity.reportCorruptRead(row, err),
      stubReader: remoteFeatures.stubReader,
      // Writes stop at STORE_MIN_FREE_BYTES of free space, so deletes can still commit on a nearly full volume.
      reserve: new WriteReserve({ path: config.DATA_DIR, reserveBytes: config.STORE_MIN_FREE_BYTES }),
    });
    const listing = new ListingService(meta);
    const multipart = new MultipartService({ meta, blobs, objects, hashes });
    const blobGc = new BlobGcService({ meta, blobs, pins });
    const { replication, reconcile, tiering } = remoteFeatures.build(objects, metrics);
    const lifecycle = new LifecycleService({
      repo: new LifecycleRepo(meta.db),
      objects,
      multipart,
      logger,
      origins: notifications.origins,
    });

    // Scoped access keys: secrets sealed under KEY_ENCRYPTION_SECRET (default: the root secret); boot refuses a
    // secret that cannot open the stored keys.
    const keys = new AccessKeyService({
      meta,
      buckets,
      logger,
      rootAccessKeyId: config.ROOT_ACCESS_KEY_ID,
      encryptionSecret: config.KEY_ENCRYPTION_SECRET ?? config.ROOT_SECRET_ACCESS_KEY,
    });
    keys.verifyEncryptionSecret();
    const isRoot = (id: string): boolean => id === config.ROOT_ACCESS_KEY_ID;

    const s3 = new S3PlaneHandler({
      services: { buckets, objects, listing, multipart, tiering, notifications: notifications.service },
      origins: notifications.origins,
      logger,
      region: config.STORE_REGION,
      regionStrict: config.STORE_REGION_STRICT,
      sigv2: config.STORE_SIGV2 === 'on',
      onAuth: (scheme) => metrics.countAuth(scheme),
      owner: { id: ownerId, displayName: 'store' },
      lookup: (id) => (isRoot(id) ? config.ROOT_SECRET_ACCESS_KEY : keys.secretFor(id)),
      // A key revoked between its lookup and this call has no identity: no permissions, so it is denied everything.
      keyPrincipal: (id) =>
        isRoot(id)
          ? { type: 'key', accessKeyId: id, isRoot: true }
          : { type: 'key', accessKeyId: id, isRoot: false, identityPolicy: keys.identityOf(id)?.identityPolicy },
      durable: () => metaStore.durable(),
      trustedProxies,
      onInternalError: () => metrics.countInternalError('s3'),
    });
    const sessions = new RefreshSessionService({ meta, audit });
    // One argon2id cost for every admin password: the operator's, as ADMIN_PASSWORD_HASH carries it.
    const hashCost = argon2CostOf(config.ADMIN_PASSWORD_HASH);
    const auth = new AdminAuthService({ meta, sessions, jwtSecret: config.JWT_SECRET, hashCost });
    if (auth.ensureBootstrapAdmin(config.ADMIN_USERNAME, config.ADMIN_PASSWORD_HASH) === 'reset') {
      logger.warn(
        { username: config.ADMIN_USERNAME },
        'ADMIN_PASSWORD_HASH changed since the last boot: the bootstrap admin was reset to it',
      );
    }
    const users = new AdminUsersService({ meta, sessions, hashCost });
    metrics.registerAuditDrops(() => audit.droppedCount);
    metrics.registerReadPins(() => pins.count);
    metrics.registerWebhookOutbox(() => webhooks.outboxCounts());
    const usage = new UsageService(buckets);
    // Backup and restore (docs/backup.md): archives read a point-in-time snapshot of the metadata on a second
    // connection; restores stage into DATA_DIR/tmp and reset in one transaction through the same event sink as writes.
    const backups = new BackupService({
      openSnapshot: () => MetadataSnapshot.open(join(config.DATA_DIR, 'meta.db')),
      blobs,
      pins,
      storeVersion: packageVersion(),
      // Tiered stubs are read from the remote without rehydrating them (the object service's stub reader).
      stubReader: remoteFeatures.stubReader,
      holds: [tiering],
    });
    // Through the same sink as every write: a reset reaches the webhook outbox and the replication outbox.
    const restores = new RestoreService({
      meta,
      blobs,
      events: remoteFeatures.events,
      dataDir: config.DATA_DIR,
      region: config.STORE_REGION,
      logger,
      limits: {
        maxTotalBytes: config.RESTORE_MAX_TOTAL_BYTES,
        maxEntryBytes: config.RESTORE_MAX_ENTRY_BYTES,
        maxEntries: config.RESTORE_MAX_ENTRIES,
        maxManifestBytes: config.RESTORE_MAX_MANIFEST_BYTES,
      },
    });
    // Finished snapshots go to the replication target (under `.store/backups/`) only while replication is on.
    const snapshotPusher: SnapshotPusher | undefined =
      config.STORE_SCHEDULED_BACKUP_PUSH_TO_REPLICATION && config.STORE_REPLICATION_ENABLED && remoteFeatures.remote
        ? new RemoteSnapshotPusher(remoteFeatures.remote)
        : undefined;
    if (config.STORE_SCHEDULED_BACKUP_PUSH_TO_REPLICATION && snapshotPusher === undefined) {
      logger.warn('STORE_SCHEDULED_BACKUP_PUSH_TO_REPLICATION is set but replication is off: snapshots stay local');
    }
    const backupScheduler = new BackupScheduler({
      backups,
      dir: new SnapshotDir(config.STORE_SCHEDULED_BACKUP_DIR ?? join(config.DATA_DIR, 'backups'), statfsFreeBytes),
      schedule: backupSchedule(config),
      scope: config.STORE_SCHEDULED_BACKUP_SCOPE ?? 'instance',
      keepLast: config.STORE_SCHEDULED_BACKUP_KEEP_LAST,
      maxAgeDays: config.STORE_SCHEDULED_BACKUP_MAX_AGE_DAYS,
      pusher: snapshotPusher,
      logger,
    });
    await backupScheduler.init();
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
    const http = await createHttpServer({
      mountPath: config.MOUNT_PATH,
      logger,
      s3,
      virtualHosts: new VirtualHosts(domainList(config.STORE_DOMAIN)),
      admin: {
        startedAt: bootTime,
        durable: () => metaStore.durable(),
        auth,
        audit,
        keys,
        // Buckets and objects (routes/buckets.ts, routes/objects.ts): the S3 plane's services; presigned URLs are
        // signed with the root key.
        buckets,
        objects,
        listing,
        multipart,
        presign: {
          accessKeyId: config.ROOT_ACCESS_KEY_ID,
          secretAccessKey: config.ROOT_SECRET_ACCESS_KEY,
          region: config.STORE_REGION,
          mountPath: config.MOUNT_PATH,
        },
        sessions,
        users,
        auditLog: audit,
        mountPath: config.MOUNT_PATH,
        trustedProxies,
        onInternalError: () => metrics.countInternalError('admin'),
        build: readBuildInfo(fileURLToPath(new URL('.', import.meta.url))),
        workers: () => workerSet.status(),
        search,
        webhooks,
        notificationTargets: notifications.targets,
        notifications: notifications.service,
        replication,
        reconcile,
        tiering,
        integrity,
        analytics,
        backups,
        restores,
        backupSchedule: backupScheduler,
      },
      metrics,
      metricsEndpoint: { mode: config.METRICS_MODE, token: config.METRICS_TOKEN },
      tracer: new RequestTracer({ enabled: config.OTEL_TRACING_ENABLED }),
      requestCounts,
      // The console's build (npm run build: web/ -> dist/web), from dist/app/app.js and src/app/app.ts alike.
      consoleDir: fileURLToPath(new URL('../../dist/web/', import.meta.url)),
    });
    const workers: WorkerDeps = {
      config,
      logger,
      blobGc,
      lifecycle,
      audit,
      analytics,
      usage,
      metrics,
      integrity,
      search,
      webhooks,
      webhookTarget: hooks.target,
      webhookUserAgent: hooks.userAgent,
      webhookBackoff: options.webhookBackoff,
      remoteFeatures,
      backupScheduler,
      backupTickMs: options.backupTickMs ?? 60_000,
    };
    return assemble({
      config,
      http,
      meta,
      lock,
      hashes,
      bootTime,
      handlers,
      blobGc,
      remoteFeatures,
      backupScheduler,
      audit,
      workers,
      workerSet,
      notifications,
    });
  } catch (err) {
    await meta?.close();
    lock.release();
    throw err;
  }
}

/** What the running app holds on to: to start, to stop, and to close in order. */
interface Assembly {
  config: Config;
  http: HttpServer;
  meta: MetadataStore;
  lock: DataDirLock;
  hashes: HashPool;
  bootTime: number;
  handlers: EventHandlers;
  blobGc: BlobGcService;
  remoteFeatures: RemoteFeatures;
  backupScheduler: BackupScheduler;
  audit: AuditService;
  workers: WorkerDeps;
  workerSet: WorkerSet;
  notifications: Notifications;
}

function assemble(parts: Assembly): App {
  const { config, http, meta, lock, hashes, bootTime, handlers, blobGc, remoteFeatures, backupScheduler, audit } =
    parts;
  const { logger } = parts.workers;
  const workers = parts.workerSet;
  const sweep = new AbortController();
  let orphanSweep: Promise<unknown> = Promise.resolve();

  return {
    config,
    http,
    events: handlers,
    workers: () => workers.status(),
    async start() {
      await new Promise<void>((resolve, reject) => {
        http.server.once('error', reject);
        http.server.listen(config.PORT, config.HOST, () => {
          http.server.off('error', reject);
          resolve();
        });
      });
      workers.start(parts.workers);
      parts.notifications.start();
      // Orphans from a crash between a blob's rename and its commit: swept once, in the background, after boot.
      orphanSweep = blobGc
        .sweepOrphans(bootTime, sweep.signal)
        .then((removed) => {
          if (removed > 0) logger.info({ removed }, 'removed orphan blobs left by an earlier crash');
        })
        .catch((err: unknown) => {
          if (!sweep.signal.aborted) logger.error({ err }, 'orphan blob sweep failed');
        });
      return http.server.address() as AddressInfo;
    },
    async stop() {
      const drained = await http.drain.start(http.server, config.SHUTDOWN_DRAIN_MS);
      sweep.abort();
      await workers.stop();
      await parts.notifications.stop();
      await backupScheduler.close();
      await remoteFeatures.close();
      await orphanSweep;
      // The listener was opened by us, not by fastify.listen(), so Fastify would leave it open: close it here.
      const closed = new Promise<void>((resolve) => http.server.close(() => resolve()));
      http.server.closeAllConnections();
      await closed;
      await http.fastify.close();
      // Every connection is closed now, so nothing more can be audited: write what is buffered, then close.
      audit.flush();
      await meta.close();
      await hashes.close();
      lock.release();
      return { drained };
    },
  };
}
