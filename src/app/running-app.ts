// The running app, put together by app.ts (the composition root): what it holds on to, how it starts (listen, then
// the workers and the orphan sweep) and how it stops (drain, stop the workers, close everything in order).

import type { AddressInfo } from 'node:net';
import type { RemoteFeatures } from './remote-features.js';
import type { WorkerDeps, WorkerSet, WorkerStatus } from './workers.js';
import type { Config } from '../config/config.js';
import type { HttpServer } from '../http/http-server.js';
import type { HashPool } from '../lib/hash-pool.js';
import type { AuditService } from '../services/audit/audit-service.js';
import type { BackupScheduler } from '../services/backup/backup-scheduler.js';
import type { BlobGcService } from '../services/blob-gc-service.js';
import type { EventHandlers, ObjectEventRegistry } from '../services/events/event-handlers.js';
import type { DataDirLock } from '../storage/data-dir.js';
import type { MetadataStore } from '../storage/db/metadata-store.js';

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

/** What the running app holds on to: to start, to stop, and to close in order. */
export interface Assembly {
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
  /** Bucket notification delivery: started with the workers, stopped after them. */
  notifications: { start(): void; stop(): Promise<void> };
}

export function assemble(parts: Assembly): App {
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
