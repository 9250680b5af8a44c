// Tiering (SPEC "Object residency", docs/replication.md "Tiering"): one service over its two sides, the reader
// (tier-reader.ts: read-through, RestoreObject, streaming a stub for internal readers) and the sweeper
// (tier-sweeper.ts: offloading versions lifecycle rules transition, re-stubbing ended restores, deleting remote
// copies of versions that went away). They share the rehydrator and the tier repository.

import type { Readable } from 'node:stream';
import type { Logger } from '../../observability/logger.js';
import type { BlobStore } from '../../storage/blobs/blob-store.js';
import type { LifecycleRepo } from '../../storage/db/lifecycle-repo.js';
import type { MetadataStore } from '../../storage/db/metadata-store.js';
import type { ObjectRow } from '../../storage/db/objects-repo.js';
import type { TierRepo } from '../../storage/db/tier-repo.js';
import type { EventSink } from '../events/event-sink.js';
import type { ObjectService } from '../objects/object-service.js';
import type { RemoteStore } from '../replication/remote-store.js';
import { Rehydrator } from './rehydrator.js';
import { TierReader, type ReadThrough } from './tier-reader.js';
import { TierSweeper, type LastSweep, type SweepResult } from './tier-sweeper.js';

export interface TierServiceOptions {
  meta: MetadataStore;
  repo: TierRepo;
  lifecycle: LifecycleRepo;
  objects: ObjectService;
  blobs: BlobStore;
  /** Undefined: tiering off (status says so; reads of stubs left from before fail InvalidObjectState). */
  remote: RemoteStore | undefined;
  enabled: boolean;
  dataDir: string;
  readThroughTimeoutMs: number;
  maxConcurrentRehydrate: number;
  presignTtlSeconds: number;
  inlineMaxBytes: number;
  logger: Logger;
  /** The event seam: bucket notifications hear of transitions and restores (EventSink.residencyChanged). */
  events?: EventSink | undefined;
  /** Versions offloaded per sweep, at most (default 100); the next sweep goes on. */
  maxPerSweep?: number;
  now?: () => number;
}

export interface TieringStatus {
  enabled: boolean;
  stubs: number;
  restored: number;
  rehydrating: number;
  pendingRemoteDeletes: number;
  lastSweep: LastSweep;
}

export class TierService {
  private readonly repo: TierRepo;
  private readonly rehydrator: Rehydrator | undefined;
  private readonly reader: TierReader;
  private readonly sweeper: TierSweeper;
  readonly enabled: boolean;

  constructor(opts: TierServiceOptions) {
    const now = opts.now ?? Date.now;
    this.repo = opts.repo;
    this.enabled = opts.enabled && opts.remote !== undefined;
    this.rehydrator =
      opts.remote &&
      new Rehydrator({
        meta: opts.meta,
        repo: opts.repo,
        blobs: opts.blobs,
        remote: opts.remote,
        dataDir: opts.dataDir,
        maxConcurrent: opts.maxConcurrentRehydrate,
        logger: opts.logger,
        events: opts.events,
        now,
      });
    // Uploads a crash cut short never flipped: their objects stayed local; their remote copies are deleted.
    const abandoned = opts.repo.abandonUploads(now());
    if (abandoned > 0)
      opts.logger.info({ uploads: abandoned }, 'tier uploads interrupted by the last stop queued for remote deletion');
    this.reader = new TierReader({
      meta: opts.meta,
      repo: opts.repo,
      remote: opts.remote,
      rehydrator: this.rehydrator,
      enabled: this.enabled,
      readThroughTimeoutMs: opts.readThroughTimeoutMs,
      presignTtlSeconds: opts.presignTtlSeconds,
      inlineMaxBytes: opts.inlineMaxBytes,
      events: opts.events,
      now,
    });
    this.sweeper = new TierSweeper({
      meta: opts.meta,
      repo: opts.repo,
      lifecycle: opts.lifecycle,
      objects: opts.objects,
      remote: opts.remote,
      enabled: this.enabled,
      logger: opts.logger,
      maxPerSweep: opts.maxPerSweep,
      events: opts.events,
      now,
    });
  }

  /** GET of a stub (TierReader.readThrough). */
  readThrough(row: ObjectRow): Promise<ReadThrough> {
    return this.reader.readThrough(row);
  }

  /** RestoreObject (TierReader.restore). */
  restore(row: ObjectRow, days: number): Promise<{ started: boolean }> {
    return this.reader.restore(row, days);
  }

  /** True while a rehydration of this version is under way (x-amz-restore: ongoing-request="true"). */
  isRestoring(rowId: number): boolean {
    return this.reader.isRestoring(rowId);
  }

  /** One sweep (TierSweeper.sweep); never throws. */
  sweep(now: Date, signal: AbortSignal): Promise<SweepResult> {
    return this.sweeper.sweep(now, signal);
  }

  /** Holds remote deletions until the returned function is called (TierSweeper.holdAll). */
  holdAll(): () => void {
    return this.sweeper.holdAll();
  }

  /** Deletes remote copies queued for deletion (TierSweeper.collectRemote). */
  collectRemote(signal: AbortSignal): Promise<number> {
    return this.sweeper.collectRemote(signal);
  }

  status(): TieringStatus {
    const counts = this.repo.counts();
    return {
      enabled: this.enabled,
      stubs: counts.stub,
      restored: counts.restored,
      rehydrating: this.rehydrator?.inFlight ?? 0,
      pendingRemoteDeletes: counts.pendingRemoteDeletes,
      lastSweep: this.sweeper.last,
    };
  }

  /** Aborts rehydrations in flight and waits for them (shutdown). */
  async close(): Promise<void> {
    await this.rehydrator?.abortAll();
  }
}
