// The HTTP surfaces, built for app.ts (the composition root): the S3 plane and the server that carries it beside
// the admin API, the console and /metrics, each given the services it serves.

import { fileURLToPath } from 'node:url';
import type { BackupServices } from './backup-services.js';
import type { IdentityServices } from './identity-services.js';
import { ownerIdOf, type ObjectServices } from './object-services.js';
import type { WorkerSet } from './workers.js';
import type { Config } from '../config/config.js';
import { domainList } from '../config/domain-config.js';
import { createHttpServer, type HttpServer } from '../http/http-server.js';
import { S3PlaneHandler } from '../http/s3/s3-plane.js';
import { VirtualHosts } from '../http/s3/virtual-hosts.js';
import type { TrustedProxies } from '../http/shared/client-address.js';
import { readBuildInfo } from '../lib/build-info.js';
import type { Logger } from '../observability/logger.js';
import { RequestTracer } from '../observability/request-tracer.js';
import type { AnalyticsService } from '../services/analytics/analytics-service.js';
import type { RequestCounters } from '../services/analytics/request-counters.js';
import type { ObjectSearchService } from '../services/objects/object-search-service.js';
import type { MetadataStore } from '../storage/db/metadata-store.js';

export interface HttpDeps {
  config: Config;
  logger: Logger;
  /** When the process booted (Date.now()), for the admin API's uptime. */
  bootTime: number;
  meta: MetadataStore;
  /** STORE_TRUSTED_PROXIES, parsed: whose X-Forwarded-For both planes believe. */
  trustedProxies: TrustedProxies;
  services: ObjectServices;
  identity: IdentityServices;
  backup: BackupServices;
  search: ObjectSearchService;
  analytics: AnalyticsService;
  requestCounts: RequestCounters;
  workerSet: WorkerSet;
}

/** The S3 plane: signed by the root key or a scoped access key, each key's identity policy applied. */
function buildS3Plane(deps: HttpDeps): S3PlaneHandler {
  const { config, logger, meta, trustedProxies } = deps;
  const { buckets, objects, listing, multipart, tiering, metrics } = deps.services;
  const { keys } = deps.identity;
  const isRoot = (id: string): boolean => id === config.ROOT_ACCESS_KEY_ID;
  return new S3PlaneHandler({
    services: { buckets, objects, listing, multipart, tiering, notifications: deps.services.notifications.service },
    origins: deps.services.notifications.origins,
    logger,
    region: config.STORE_REGION,
    regionStrict: config.STORE_REGION_STRICT,
    sigv2: config.STORE_SIGV2 === 'on',
    onAuth: (scheme) => metrics.countAuth(scheme),
    owner: { id: ownerIdOf(config), displayName: 'store' },
    lookup: (id) => (isRoot(id) ? config.ROOT_SECRET_ACCESS_KEY : keys.secretFor(id)),
    // A key revoked between its lookup and this call has no identity: no permissions, so it is denied everything.
    keyPrincipal: (id) =>
      isRoot(id)
        ? { type: 'key', accessKeyId: id, isRoot: true }
        : { type: 'key', accessKeyId: id, isRoot: false, identityPolicy: keys.identityOf(id)?.identityPolicy },
    durable: () => meta.durable(),
    trustedProxies,
    onInternalError: () => metrics.countInternalError('s3'),
  });
}

export async function buildHttp(deps: HttpDeps): Promise<HttpServer> {
  const { config, logger, meta, trustedProxies, search, analytics, requestCounts, workerSet } = deps;
  const { buckets, objects, listing, multipart, metrics, audit, webhooks, replication, reconcile, tiering, integrity } =
    deps.services;
  const { keys, sessions, auth, users } = deps.identity;
  const { backups, restores, backupScheduler, zips } = deps.backup;
  return createHttpServer({
    mountPath: config.MOUNT_PATH,
    logger,
    s3: buildS3Plane(deps),
    virtualHosts: new VirtualHosts(domainList(config.STORE_DOMAIN)),
    admin: {
      startedAt: deps.bootTime,
      durable: () => meta.durable(),
      auth,
      audit,
      keys,
      // Buckets and objects (routes/buckets.ts, routes/objects.ts): the S3 plane's services; presigned URLs are
      // share links, each signed by a key of its own (routes/share-links.ts).
      buckets,
      objects,
      listing,
      multipart,
      presign: {
        shares: deps.identity.shares,
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
      connection: { endpoint: config.STORE_ENDPOINT, region: config.STORE_REGION, mountPath: config.MOUNT_PATH },
      search,
      webhooks,
      notificationTargets: deps.services.notifications.targets,
      notifications: deps.services.notifications.service,
      replication,
      reconcile,
      tiering,
      integrity,
      analytics,
      backups,
      restores,
      backupSchedule: backupScheduler,
      zips,
    },
    metrics,
    metricsEndpoint: { mode: config.METRICS_MODE, token: config.METRICS_TOKEN },
    tracer: new RequestTracer({ enabled: config.OTEL_TRACING_ENABLED }),
    requestCounts,
    // The console's build (npm run build: web/ -> dist/web), from dist/app/app.js and src/app/app.ts alike.
    consoleDir: fileURLToPath(new URL('../../dist/web/', import.meta.url)),
  });
}
