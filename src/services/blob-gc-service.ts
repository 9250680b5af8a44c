// Frees blob files nothing references any more: the queue written by committing transactions, and, once after
// boot, orphans a crash left between a blob's rename and its metadata commit.

import type { BlobStore } from '../storage/blobs/blob-store.js';
import type { MetadataStore } from '../storage/db/metadata-store.js';
import type { ReadPins } from './objects/object-reader.js';

export interface BlobGcServiceOptions {
  meta: MetadataStore;
  blobs: BlobStore;
  pins: ReadPins;
  now?: () => number;
}

export class BlobGcService {
  private readonly meta: MetadataStore;
  private readonly blobs: BlobStore;
  private readonly pins: ReadPins;
  private readonly now: () => number;

  constructor(opts: BlobGcServiceOptions) {
    this.meta = opts.meta;
    this.blobs = opts.blobs;
    this.pins = opts.pins;
    this.now = opts.now ?? Date.now;
  }

  /**
   * Unlinks up to `limit` queued blobs whose queueing commit is durable. A blob still being read (pinned) stays queued
   * for a later pass, and a blob
   * that a committed row references again is never unlinked. Returns how many were removed.
   */
  async drainQueue(limit = 500): Promise<number> {
    // Only rows already on disk: a queued blob whose dropping commit could still be lost in a power cut must keep
    // its file. Rows queued over a second ago were committed before this barrier, so it covers them.
    const cutoff = this.now() - 1000;
    await this.meta.durable();
    let removed = 0;
    for (const blobId of this.meta.blobGc.due(cutoff, limit)) {
      if (this.pins.isPinned(blobId)) continue;
      if (!this.meta.isBlobReferenced(blobId)) {
        await this.blobs.remove(blobId);
        removed++;
      }
      this.meta.blobGc.done(blobId);
    }
    return removed;
  }

  /**
   * Removes blob files older than `bootTime` that no committed row references: what a crash left between a
   * blob's rename and its commit. Files written since boot belong to requests in flight and are left alone.
   */
  sweepOrphans(bootTime: number, signal?: AbortSignal): Promise<number> {
    // A pinned blob (a backup's snapshot may still reference it) is never an orphan.
    return this.blobs.sweepOrphans((id) => this.pins.isPinned(id) || this.meta.isBlobReferenced(id), {
      olderThanMs: bootTime,
      ...(signal ? { signal } : {}),
    });
  }
}
