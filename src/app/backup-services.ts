// Backup and restore (docs/backup.md), built for app.ts (the composition root): archives read a point-in-time
// snapshot of the metadata on a second connection; restores stage into DATA_DIR/tmp and reset in one transaction
// through the same event sink as writes; the scheduler writes snapshots and may push them to the replication target.

import { join } from 'node:path';
import type { RemoteFeatures } from './remote-features.js';
import { backupSchedule } from '../config/backup-config.js';
import type { Config } from '../config/config.js';
import { packageVersion } from '../lib/package-version.js';
import type { Logger } from '../observability/logger.js';
import { BackupScheduler, type SnapshotPusher } from '../services/backup/backup-scheduler.js';
import { BackupService } from '../services/backup/backup-service.js';
import { RemoteSnapshotPusher } from '../services/backup/remote-snapshot-pusher.js';
import { RestoreService } from '../services/backup/restore-service.js';
import { SnapshotDir } from '../services/backup/snapshot-dir.js';
import { ZipDownloads } from '../services/backup/zip-download.js';
import { statfsFreeBytes } from '../services/free-space.js';
import type { ReadPins } from '../services/objects/object-reader.js';
import type { TierService } from '../services/tiering/tier-service.js';
import type { BlobStore } from '../storage/blobs/blob-store.js';
import { MetadataSnapshot } from '../storage/db/metadata-snapshot.js';
import type { MetadataStore } from '../storage/db/metadata-store.js';

export interface BackupDeps {
  config: Config;
  logger: Logger;
  meta: MetadataStore;
  blobs: BlobStore;
  pins: ReadPins;
  remoteFeatures: RemoteFeatures;
  tiering: TierService;
}

export interface BackupServices {
  backups: BackupService;
  restores: RestoreService;
  /** Initialized (its snapshot directory read) before it is returned. */
  backupScheduler: BackupScheduler;
  /** Objects and folders as one .zip (the console's "Download as zip"), read like a backup. */
  zips: ZipDownloads;
}

export async function buildBackups(deps: BackupDeps): Promise<BackupServices> {
  const { config, logger, meta, blobs, pins, remoteFeatures, tiering } = deps;
  const openSnapshot = (): MetadataSnapshot => MetadataSnapshot.open(join(config.DATA_DIR, 'meta.db'));
  const backups = new BackupService({
    openSnapshot,
    blobs,
    pins,
    storeVersion: packageVersion(),
    // Tiered stubs are read from the remote without rehydrating them (the object service's stub reader).
    stubReader: remoteFeatures.stubReader,
    holds: [tiering],
  });
  const zips = new ZipDownloads({ openSnapshot, blobs, pins, stubReader: remoteFeatures.stubReader, holds: [tiering] });
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
  return { backups, restores, backupScheduler, zips };
}
