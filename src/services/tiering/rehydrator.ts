// Brings a tiered stub's bytes back: fetched from the remote, staged through the two-phase blob writer, SHA-256
// and size verified against what was recorded when it was tiered, then flipped to 'restored' in one transaction.
// One flight per version (concurrent readers share it), at most `maxConcurrent` flights at once, and only with
// room on the local disk. A flight that outlives its deadline is aborted: the stub stays as it was.

import { createHash } from 'node:crypto';
import { AppError } from '../../core/errors.js';
import type { Logger } from '../../observability/logger.js';
import type { BlobStore } from '../../storage/blobs/blob-store.js';
import type { MetadataStore } from '../../storage/db/metadata-store.js';
import type { ObjectRow } from '../../storage/db/objects-repo.js';
import type { TierRepo } from '../../storage/db/tier-repo.js';
import { FREE_SPACE_MARGIN, statfsFreeBytes } from '../free-space.js';
import { RemoteError, remoteErrorClass, type RemoteStore } from '../replication/remote-store.js';
import { residencyOf, type EventSink } from '../events/event-sink.js';

export interface RehydratorOptions {
  meta: MetadataStore;
  repo: TierRepo;
  blobs: BlobStore;
  remote: RemoteStore;
  dataDir: string;
  maxConcurrent: number;
  logger: Logger;
  now?: () => number;
  /** Free bytes on the data volume (tests); statfs of dataDir otherwise. */
  freeBytes?: () => Promise<number>;
  /** Told of each version made local, inside its transaction (bucket notifications: ObjectRestore:Completed). */
  events?: EventSink | undefined;
}

interface Flight {
  done: Promise<void>;
  abort: AbortController;
}

/** Counters for status and tests. */
export class Rehydrator {
  private readonly opts: RehydratorOptions;
  private readonly now: () => number;
  private readonly flights = new Map<number, Flight>();
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(opts: RehydratorOptions) {
    this.opts = opts;
    this.now = opts.now ?? Date.now;
  }

  /** True while a rehydration of this version is under way. */
  isRunning(rowId: number): boolean {
    return this.flights.has(rowId);
  }

  /** Rehydrations under way or queued for a slot. */
  get inFlight(): number {
    return this.flights.size;
  }

  /** True when the data volume has room for `size` more bytes plus a margin. */
  async hasRoomFor(size: number): Promise<boolean> {
    const free = await (this.opts.freeBytes ? this.opts.freeBytes() : statfsFreeBytes(this.opts.dataDir));
    return free >= size + FREE_SPACE_MARGIN;
  }

  /**
   * Rehydrates the stub `row` (joining a flight already under way), keeping it local for `restoreMs`. With
   * `deadlineMs`, a new flight is aborted after that long. Rejects with RemoteError (class: unreachable, timeout,
   * not-found, integrity, aborted, ...) when the flight fails; the stub is then unchanged.
   */
  rehydrate(row: ObjectRow, opts: { restoreMs: number; deadlineMs?: number }): Promise<void> {
    const existing = this.flights.get(row.id);
    if (existing) return existing.done;
    const abort = new AbortController();
    const timer =
      opts.deadlineMs === undefined
        ? undefined
        : setTimeout(() => abort.abort(new RemoteError('timeout')), opts.deadlineMs);
    timer?.unref();
    const done = this.fly(row, opts.restoreMs, abort.signal).finally(() => {
      clearTimeout(timer);
      this.flights.delete(row.id);
    });
    this.flights.set(row.id, { done, abort });
    done.catch(() => undefined); // a flight nobody awaits any more must not be an unhandled rejection
    return done;
  }

  /**
   * Aborts every flight and waits for them to settle (shutdown): a flight between its staged write and its commit must
   * finish or clean up before the database closes.
   */
  async abortAll(): Promise<void> {
    const flights = [...this.flights.values()];
    for (const f of flights) f.abort.abort(new RemoteError('aborted'));
    await Promise.allSettled(flights.map((f) => f.done));
  }

  private async fly(row: ObjectRow, restoreMs: number, signal: AbortSignal): Promise<void> {
    await this.acquire(signal);
    try {
      await this.fetchAndFlip(row, restoreMs, signal);
    } catch (err) {
      const cls = signal.aborted ? remoteErrorClass(signal.reason) : remoteErrorClass(err);
      if (cls !== 'timeout' && cls !== 'aborted') {
        this.opts.logger.warn(
          { bucket: row.bucket, key: row.key, versionId: row.versionId, errorClass: cls },
          'rehydration failed',
        );
      }
      throw err instanceof AppError ? err : new RemoteError(cls);
    } finally {
      this.release();
    }
  }

  private async fetchAndFlip(row: ObjectRow, restoreMs: number, signal: AbortSignal): Promise<void> {
    const tierKey = row.tierKey as string;
    const body = await this.opts.remote.get(tierKey, { signal });
    // A stalled body must end when the deadline passes, or the staging loop would wait on it forever.
    const onAbort = (): void => void body.destroy(new RemoteError('timeout'));
    signal.addEventListener('abort', onAbort, { once: true });
    const hash = createHash('sha256');
    let size = 0;
    const staged = await this.opts.blobs.stage(
      (async function* tap() {
        for await (const chunk of body as AsyncIterable<Buffer>) {
          hash.update(chunk);
          size += chunk.length;
          yield chunk;
        }
      })(),
      { signal },
    );
    signal.removeEventListener('abort', onAbort);
    try {
      if (size !== row.size || (row.tierSha256 !== undefined && hash.digest('hex') !== row.tierSha256)) {
        throw new RemoteError('integrity');
      }
      signal.throwIfAborted();
      await staged.commit();
    } catch (err) {
      await staged.discard();
      throw err;
    }
    const restoreExpiry = this.now() + restoreMs;
    const flipped = this.opts.meta.transaction(() => {
      const done = this.opts.repo.flipToRestored(row.id, staged.id, restoreExpiry);
      if (done)
        this.opts.events?.residencyChanged?.(residencyOf(row, { name: 'ObjectRestore:Completed', restoreExpiry }));
      return done;
    });
    // Deleted or changed meanwhile: the fetched copy belongs to nothing.
    if (!flipped) await this.opts.blobs.remove(staged.id);
  }

  private acquire(signal: AbortSignal): Promise<void> {
    if (this.active < this.opts.maxConcurrent) {
      this.active++;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const go = (): void => {
        signal.removeEventListener('abort', onAbort);
        this.active++;
        resolve();
      };
      const onAbort = (): void => {
        const i = this.waiting.indexOf(go);
        if (i >= 0) this.waiting.splice(i, 1);
        reject(signal.reason instanceof Error ? signal.reason : new RemoteError('aborted'));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(go);
    });
  }

  private release(): void {
    this.active--;
    this.waiting.shift()?.();
  }
}
