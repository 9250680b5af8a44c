// The data plane's services, built for app.ts (the composition root): buckets, the event pipeline and webhooks,
// replication and tiering, integrity, objects, listing, multipart uploads, blob GC and lifecycle. Built in this
// order, since each takes the ones before it.

import { createHash } from 'node:crypto';
import { createInitBuckets } from './init-buckets.js';
import { buildNotifications, type Notifications } from './notifications.js';
import { buildRemoteFeatures, type RemoteFeatures } from './remote-features.js';
import type { Config } from '../config/config.js';
import { webhookEventNames } from '../config/webhook-config.js';
import { HashPool } from '../lib/hash-pool.js';
import { packageVersion } from '../lib/package-version.js';
import type { Logger } from '../observability/logger.js';
import { MetricsRegistry } from '../observability/metrics-registry.js';
import { AuditService } from '../services/audit/audit-service.js';
import { BlobGcService } from '../services/blob-gc-service.js';
import { BucketService } from '../services/bucket-service.js';
import { EventHandlers } from '../services/events/event-handlers.js';
import { EventPipeline } from '../services/events/event-pipeline.js';
import { WebhookService, type WebhookTarget } from '../services/events/webhook-service.js';
import { IntegrityService, type RepairSource } from '../services/integrity/integrity-service.js';
import { LifecycleService } from '../services/lifecycle-service.js';
import { ListingService } from '../services/objects/listing-service.js';
import { MultipartService } from '../services/objects/multipart-service.js';
import { ReadPins } from '../services/objects/object-reader.js';
import { ObjectService } from '../services/objects/object-service.js';
import { WriteReserve } from '../services/objects/write-reserve.js';
import { mirrorRepairSource } from '../services/replication/mirror-repair-source.js';
import type { BlobStore } from '../storage/blobs/blob-store.js';
import { LifecycleRepo } from '../storage/db/lifecycle-repo.js';
import type { MetadataStore } from '../storage/db/metadata-store.js';
import { WebhookOutboxRepo } from '../storage/db/webhook-outbox-repo.js';
import { QuotaGate, type QuotaAdmitHook } from '../services/objects/quota-gate.js';

export interface ObjectServicesDeps {
  config: Config;
  logger: Logger;
  meta: MetadataStore;
  blobs: BlobStore;
  /** BuildOptions.integrityRepairSource: where the scrubber repairs from (default: the replication mirror). */
  integrityRepairSource: RepairSource | undefined;
  /** BuildOptions.onQuotaAdmitted: awaited once a write to a bucket with a quota is admitted. */
  onQuotaAdmitted: QuotaAdmitHook | undefined;
}

type RemoteServices = ReturnType<RemoteFeatures['build']>;

export interface ObjectServices extends RemoteServices {
  pins: ReadPins;
  buckets: BucketService;
  handlers: EventHandlers;
  webhooks: WebhookService;
  /** The webhook target (undefined when webhooks are off) and the User-Agent deliveries send. */
  hooks: { readonly target: WebhookTarget | undefined; readonly userAgent: string };
  remoteFeatures: RemoteFeatures;
  hashes: HashPool;
  metrics: MetricsRegistry;
  audit: AuditService;
  integrity: IntegrityService;
  objects: ObjectService;
  listing: ListingService;
  multipart: MultipartService;
  blobGc: BlobGcService;
  lifecycle: LifecycleService;
  /** Bucket notifications: targets, the outbox service and its dispatcher (notifications.ts). */
  notifications: Notifications;
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

export async function buildObjectServices(deps: ObjectServicesDeps): Promise<ObjectServices> {
  const { config, logger, meta, blobs } = deps;
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
    durable: () => meta.durable(),
    target: hooks.target,
    userAgent: hooks.userAgent,
    logger,
  });
  const pipeline = new EventPipeline({
    handlers,
    durable: () => meta.durable(),
    outbox: webhooks.enabled ? webhooks : undefined,
    logger,
  });
  const metrics = new MetricsRegistry({ integrity: config.STORE_INTEGRITY_SCRUB_ENABLED });
  // Bucket notifications (notifications.ts): their outbox rows join the webhook row in each commit.
  const notifications = buildNotifications({
    meta,
    inner: pipeline,
    logger,
    metrics,
    region: config.STORE_REGION,
    ownerId: ownerIdOf(config),
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
  const repairSource: RepairSource | undefined = deps.integrityRepairSource ?? (mirror && mirrorRepairSource(mirror));
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
    // Per-bucket quotas hold the bytes of writes in flight (docs/quotas.md).
    quotas: new QuotaGate(meta, deps.onQuotaAdmitted),
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
  return {
    pins,
    buckets,
    handlers,
    webhooks,
    hooks,
    remoteFeatures,
    hashes,
    metrics,
    audit,
    integrity,
    objects,
    listing,
    multipart,
    blobGc,
    replication,
    reconcile,
    tiering,
    lifecycle,
    notifications,
  };
}

/** Store's owner id (what ListBuckets shows): a hash of the root access key id. */
export function ownerIdOf(config: Config): string {
  return createHash('sha256').update(`store-owner:${config.ROOT_ACCESS_KEY_ID}`).digest('hex');
}
