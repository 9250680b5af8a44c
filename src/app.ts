// The composition root: builds every object from the config and passes dependencies in. The only module that
// imports every layer. `buildApp` opens the data directory; `start` listens; `stop` drains and closes.

import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { decodeSseKey, type Config } from './config/config.js';
import { createHttpServer, type HttpServer } from './http/http-server.js';
import { S3PlaneHandler } from './http/s3/s3-plane.js';
import type { Logger } from './observability/logger.js';
import { AdminAuthService } from './services/admin-auth-service.js';
import type { AuditSink } from './services/audit/audit-events.js';
import { BlobGcService } from './services/blob-gc-service.js';
import { BucketService } from './services/bucket-service.js';
import { LifecycleService } from './services/lifecycle-service.js';
import { ListingService } from './services/listing-service.js';
import { MultipartService } from './services/multipart-service.js';
import { ReadPins } from './services/object-reader.js';
import { ObjectSearchService } from './services/object-search-service.js';
import { ObjectService } from './services/object-service.js';
import { BlobStore } from './storage/blobs/blob-store.js';
import { checkSseKeyMatches, loadOrCreateSseKey, lockDataDir, type DataDirLock } from './storage/data-dir.js';
import { LifecycleRepo } from './storage/db/lifecycle-repo.js';
import { MetadataStore } from './storage/db/metadata-store.js';
import { startLifecycleWorker } from './workers/lifecycle-worker.js';
import { startSearchIndexWorker } from './workers/search-index-worker.js';
import { startLoop, type RunningLoop } from './workers/runner.js';

export interface App {
  readonly config: Config;
  readonly http: HttpServer;
  /** Listens on HOST:PORT and starts the background workers. Resolves with the bound address. */
  start(): Promise<AddressInfo>;
  /** Drains in-flight requests (up to SHUTDOWN_DRAIN_MS), stops workers, closes the database and the lock. */
  stop(): Promise<{ drained: boolean }>;
}

export async function buildApp(config: Config, logger: Logger): Promise<App> {
  const bootTime = Date.now();
  const lock: DataDirLock = lockDataDir(config.DATA_DIR);
  let meta: MetadataStore | undefined;
  try {
    const masterKey = loadOrCreateSseKey(config.DATA_DIR, config.STORE_SSE_KEY ? decodeSseKey(config.STORE_SSE_KEY) : undefined);
    meta = MetadataStore.open(join(config.DATA_DIR, 'meta.db'));
    const metaStore = meta;
    checkSseKeyMatches(meta, masterKey);
    const blobs = new BlobStore({ dataDir: config.DATA_DIR, masterKey });
    await blobs.init();

    const pins = new ReadPins();
    const buckets = new BucketService({ meta, region: config.STORE_REGION });
    const objects = new ObjectService({ meta, blobs, pins });
    const listing = new ListingService(meta);
    const multipart = new MultipartService({ meta, blobs, objects });
    const blobGc = new BlobGcService({ meta, blobs, pins });
    const lifecycle = new LifecycleService({ repo: new LifecycleRepo(meta.db), objects, multipart, logger });

    const s3 = new S3PlaneHandler({
      services: { buckets, objects, listing, multipart },
      logger,
      region: config.STORE_REGION,
      owner: { id: createHash('sha256').update(`store-owner:${config.ROOT_ACCESS_KEY_ID}`).digest('hex'), displayName: 'store' },
      lookup: (id) => (id === config.ROOT_ACCESS_KEY_ID ? config.ROOT_SECRET_ACCESS_KEY : undefined),
      durable: () => metaStore.durable(),
    });
    const auth = new AdminAuthService({ meta, jwtSecret: config.JWT_SECRET });
    auth.ensureBootstrapAdmin(config.ADMIN_USERNAME, config.ADMIN_PASSWORD_HASH);
    const audit: AuditSink = { record: (entry) => logger.info({ audit: true, ...entry }, 'audit') };
    const search = new ObjectSearchService({ meta });
    const http = await createHttpServer({
      mountPath: config.MOUNT_PATH, logger, s3,
      admin: { startedAt: bootTime, durable: () => metaStore.durable(), auth, audit, search },
    });
    return assemble({ config, logger, http, meta, lock, blobGc, lifecycle, search, bootTime });
  } catch (err) {
    await meta?.close();
    lock.release();
    throw err;
  }
}

function assemble(parts: {
  config: Config; logger: Logger; http: HttpServer; meta: MetadataStore; lock: DataDirLock; blobGc: BlobGcService;
  lifecycle: LifecycleService; search: ObjectSearchService; bootTime: number;
}): App {
  const { config, logger, http, meta, lock, blobGc, lifecycle, search, bootTime } = parts;
  const loops: RunningLoop[] = [];
  const sweep = new AbortController();
  let orphanSweep: Promise<unknown> = Promise.resolve();

  return {
    config,
    http,
    async start() {
      await new Promise<void>((resolve, reject) => {
        http.server.once('error', reject);
        http.server.listen(config.PORT, config.HOST, () => {
          http.server.off('error', reject);
          resolve();
        });
      });
      loops.push(startLoop({ name: 'blob-gc', intervalMs: 1000, logger, tick: async () => void (await blobGc.drainQueue()) }));
      loops.push(startLifecycleWorker({ service: lifecycle, intervalMs: config.STORE_LIFECYCLE_INTERVAL_MS, logger }));
      loops.push(startSearchIndexWorker({ service: search, logger }));
      // Orphans from a crash between a blob's rename and its commit: swept once, in the background, after boot.
      orphanSweep = blobGc
        .sweepOrphans(bootTime, sweep.signal)
        .then((removed) => { if (removed > 0) logger.info({ removed }, 'removed orphan blobs left by an earlier crash'); })
        .catch((err: unknown) => { if (!sweep.signal.aborted) logger.error({ err }, 'orphan blob sweep failed'); });
      return http.server.address() as AddressInfo;
    },
    async stop() {
      const drained = await http.drain.start(http.server, config.SHUTDOWN_DRAIN_MS);
      sweep.abort();
      await Promise.all(loops.map((l) => l.stop()));
      await orphanSweep;
      // The listener was opened by us, not by fastify.listen(), so Fastify would leave it open: close it here.
      const closed = new Promise<void>((resolve) => http.server.close(() => resolve()));
      http.server.closeAllConnections();
      await closed;
      await http.fastify.close();
      await meta.close();
      lock.release();
      return { drained };
    },
  };
}
