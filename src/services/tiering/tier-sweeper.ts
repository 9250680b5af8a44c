// The background side of tiering (docs/replication.md "Tiering"): lifecycle Transition and
// NoncurrentVersionTransition rules offload versions to the remote target under the reserved tier prefix;
// restored versions return to stubs when their restore ends; remote copies of versions that went away are deleted.

import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { expirationAction, transitionDue, type LifecycleVersion } from '../../core/lifecycle-eval.js';
import type { LifecycleRule } from '../../core/lifecycle.js';
import { uuidv7 } from '../../lib/ids.js';
import type { Logger } from '../../observability/logger.js';
import type { LifecycleRepo, LifecycleVersionRow } from '../../storage/db/lifecycle-repo.js';
import type { MetadataStore } from '../../storage/db/metadata-store.js';
import type { ObjectRow } from '../../storage/db/objects-repo.js';
import type { TierRepo } from '../../storage/db/tier-repo.js';
import { prefixRanges } from '../lifecycle-service.js';
import { extentsOf } from '../objects/object-reader.js';
import type { ObjectService } from '../objects/object-service.js';
import {
  RemoteError,
  remoteErrorClass,
  TIER_PREFIX,
  type RemoteErrorClass,
  type RemoteStore,
} from '../replication/remote-store.js';
import { residencyOf, type EventSink } from '../events/event-sink.js';

export interface TierSweeperOptions {
  meta: MetadataStore;
  repo: TierRepo;
  lifecycle: LifecycleRepo;
  objects: ObjectService;
  remote: RemoteStore | undefined;
  /** Tiering is on (STORE_TIER_ENABLED) and a remote is configured: otherwise a sweep does nothing. */
  enabled: boolean;
  logger: Logger;
  /** Versions offloaded per sweep, at most (default 100); the next sweep goes on. */
  maxPerSweep?: number | undefined;
  /** Told of each transition, inside its transaction (bucket notifications: LifecycleTransition). */
  events?: EventSink | undefined;
  now: () => number;
}

export interface SweepResult {
  tiered: number;
  restubbed: number;
  failed: number;
  /** False when the sweep stopped at its budget: the next one resumes where it stopped, and should come soon. */
  complete: boolean;
}

/** The outcome of the last sweep, for the status endpoint. */
export type LastSweep = {
  at: string;
  tiered: number;
  restubbed: number;
  failed: number;
  errorClass: RemoteErrorClass | null;
} | null;

/** Where a sweep that reached its budget stopped: the next one starts there, not at the first bucket again. */
interface SweepPosition {
  bucket: string;
  prefix: string;
  /** The last version looked at in that prefix range (undefined: the range's start). */
  page: { key: string; id: number } | undefined;
}

const SHA256_META = 'store-sha256';

export class TierSweeper {
  private readonly opts: TierSweeperOptions;
  private readonly enabled: boolean;
  private readonly now: () => number;
  private lastSweep: LastSweep = null;
  private resumeAt: SweepPosition | undefined;
  /** Open holds (backups reading a point-in-time snapshot): remote copies are not deleted while any is open. */
  private remoteGcHolds = 0;

  constructor(opts: TierSweeperOptions) {
    this.opts = opts;
    this.enabled = opts.enabled;
    this.now = opts.now;
  }

  /** The outcome of the last sweep (null before the first). */
  get last(): LastSweep {
    return this.lastSweep;
  }

  /**
   * One sweep: restored versions whose restore ended become stubs again, then versions due for a transition are
   * offloaded (at most maxPerSweep attempts). A sweep that reaches that budget stops and the next one resumes from
   * there (so versions that keep failing cannot hold the rest back); after the last bucket the walk starts over.
   * Failures are logged, counted and retried by a later pass; never throws.
   */
  async sweep(now: Date, signal: AbortSignal): Promise<SweepResult> {
    const result: SweepResult = { tiered: 0, restubbed: 0, failed: 0, complete: true };
    if (!this.enabled) return result;
    let errorClass: RemoteErrorClass | null = null;
    const fail = (err: unknown, row: { bucket: string; key: string }): void => {
      result.failed++;
      errorClass = remoteErrorClass(err);
      this.opts.logger.warn(
        { bucket: row.bucket, key: row.key, errorClass },
        'tiering a version failed; retried by a later sweep',
      );
    };
    for (const id of this.opts.repo.expiredRestores(now.getTime(), 100)) {
      if (signal.aborted) break;
      const row = this.opts.repo.findRow(id);
      if (row?.tierState !== 'restored') continue;
      try {
        if (await this.offload(row, row.storageClass, signal)) result.restubbed++;
      } catch (err) {
        fail(err, row);
      }
    }
    const budget = { left: this.opts.maxPerSweep ?? 100 };
    const resume = this.resumeAt;
    this.resumeAt = undefined;
    let after = '';
    outer: for (;;) {
      const buckets = this.opts.lifecycle.bucketsWithLifecycle(after, 100);
      for (const bucket of buckets) {
        after = bucket.name;
        if (resume && bucket.name < resume.bucket) continue;
        const rules = bucket.lifecycle.rules.filter(
          (r) =>
            r.status === 'Enabled' &&
            ((r.transitions?.length ?? 0) > 0 || (r.noncurrentVersionTransitions?.length ?? 0) > 0),
        );
        if (rules.length === 0) continue;
        const all = bucket.lifecycle.rules;
        for (const prefix of prefixRanges(rules)) {
          const resuming = resume?.bucket === bucket.name;
          if (resuming && prefix < resume.prefix) continue;
          let page: { key: string; id: number } | undefined =
            resuming && prefix === resume.prefix ? resume.page : undefined;
          for (;;) {
            const rows = this.opts.lifecycle.versionsPage(bucket.name, prefix, { after: page, limit: 250 });
            let rangeDone = rows.length < 250;
            for (const v of rows) {
              if (signal.aborted) break outer;
              if (budget.left <= 0) {
                this.resumeAt = { bucket: bucket.name, prefix, page };
                result.complete = false;
                break outer;
              }
              if (!v.key.startsWith(prefix)) {
                rangeDone = true;
                break;
              }
              page = { key: v.key, id: v.id };
              const target = this.due(all, v, now);
              if (target === undefined) continue;
              const row = this.opts.repo.findRow(v.id);
              if (row === undefined || row.tierState !== undefined || row.isDeleteMarker) continue;
              budget.left--;
              try {
                if (await this.offload(row, target, signal)) result.tiered++;
              } catch (err) {
                fail(err, row);
              }
            }
            if (rangeDone) break;
            await nextTurn();
          }
        }
      }
      if (buckets.length < 100) break;
    }
    const { complete: _complete, ...counts } = result;
    this.lastSweep = { at: now.toISOString(), ...counts, errorClass };
    return result;
  }

  /** The storage class a version should go to now, unless an expiration is due first (lifecycle deletes it). */
  private due(rules: LifecycleRule[], v: LifecycleVersionRow, now: Date): string | undefined {
    const version: LifecycleVersion = {
      key: v.key,
      size: v.size,
      tags: v.tags,
      lastModified: new Date(v.lastModified),
      isLatest: v.isLatest,
      isDeleteMarker: v.isDeleteMarker,
      newerNoncurrentCount: Math.max(0, v.newerCount - 1),
      isOnlyVersion: v.isOnlyVersion,
      storageClass: v.storageClass,
      ...(v.isLatest || v.successorModified === undefined ? {} : { noncurrentSince: new Date(v.successorModified) }),
    };
    if (expirationAction(rules, version, now) !== undefined) return undefined;
    return transitionDue(rules, version, now);
  }

  /**
   * Offloads one version: hashes its plaintext, uploads it under the tier prefix with that digest (skipped for a
   * restored version, whose remote copy is kept), confirms the remote copy by HEAD (size and digest), then in one
   * transaction makes the row a stub and releases its local blobs. Returns false when the version changed meanwhile
   * (nothing flipped; a fresh upload is queued for remote deletion). Throws RemoteError.
   */
  private async offload(row: ObjectRow, storageClass: string, signal: AbortSignal): Promise<boolean> {
    const remote = this.opts.remote as RemoteStore;
    const restored = row.tierState === 'restored' && row.tierKey !== undefined;
    const opened = this.opts.objects.open(row.bucket, row.key, { versionId: row.versionId });
    const sha256 = await hashStream(opened.stream(), signal);
    const tierKey = restored ? (row.tierKey as string) : `${TIER_PREFIX}${row.bucket}/${uuidv7()}`;
    if (!restored) {
      this.opts.meta.transaction(() => this.opts.repo.startUpload(tierKey, row.id, this.now()));
      try {
        await remote.put({
          key: tierKey,
          body: this.opts.objects.open(row.bucket, row.key, { versionId: row.versionId }).stream(),
          size: row.size,
          headers: row.headers,
          metadata: { [SHA256_META]: sha256 },
          signal,
        });
      } catch (err) {
        this.giveUp(tierKey);
        throw err;
      }
    }
    const head = await remote.head(tierKey, signal).catch((err: unknown) => {
      if (!restored) this.giveUp(tierKey);
      throw err;
    });
    if (head === undefined || head.size !== row.size || head.metadata[SHA256_META] !== sha256) {
      if (!restored) this.giveUp(tierKey);
      else if (head === undefined) this.forgetLostCopy(row);
      throw new RemoteError(head === undefined ? 'not-found' : 'integrity');
    }
    return this.opts.meta.transaction(() => {
      const fresh = this.opts.repo.findRow(row.id);
      const same =
        fresh !== undefined &&
        fresh.versionId === row.versionId &&
        fresh.blobId === row.blobId &&
        fresh.etag === row.etag &&
        fresh.tierState === row.tierState;
      if (!same) {
        if (!restored) {
          this.opts.repo.endUpload(tierKey);
          this.opts.repo.gcEnqueue(tierKey, this.now());
        }
        return false;
      }
      const now = this.now();
      const parts = fresh.blobId === undefined ? this.opts.meta.objects.parts(fresh.id) : [];
      for (const extent of extentsOf(fresh, parts)) this.opts.meta.releaseBlob(extent.blobId, now);
      this.opts.repo.flipToStub(fresh.id, { storageClass, tierKey, sha256 });
      if (!restored) {
        this.opts.repo.endUpload(tierKey);
        this.opts.events?.residencyChanged?.(residencyOf(fresh, { name: 'LifecycleTransition' }));
      }
      return true;
    });
  }

  /** An upload that will not be flipped: its remote copy is queued for deletion. */
  private giveUp(tierKey: string): void {
    this.opts.meta.transaction(() => {
      this.opts.repo.endUpload(tierKey);
      this.opts.repo.gcEnqueue(tierKey, this.now());
    });
  }

  /** A restored version whose remote copy is gone: it is simply local (STANDARD) again, so rules can tier it anew. */
  private forgetLostCopy(row: ObjectRow): void {
    this.opts.logger.warn(
      { bucket: row.bucket, key: row.key, versionId: row.versionId },
      'remote tier copy of a restored version is missing; the version is local again',
    );
    this.opts.meta.transaction(() => this.opts.repo.forgetRemoteCopy(row.id));
  }

  /**
   * Holds remote deletions until released: a backup's snapshot may still name a stub whose version has gone since,
   * and must be able to read its remote copy (docs/backup.md). Queued deletions wait; nothing is lost.
   */
  holdAll(): () => void {
    this.remoteGcHolds++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.remoteGcHolds--;
    };
  }

  /** Deletes remote copies queued (by triggers or abandoned uploads) over a second ago, once that is durable. */
  async collectRemote(signal: AbortSignal): Promise<number> {
    const remote = this.opts.remote;
    if (!remote || this.remoteGcHolds > 0) return 0;
    const cutoff = this.now() - 1000;
    await this.opts.meta.durable();
    let removed = 0;
    for (const key of this.opts.repo.gcDue(cutoff, 100)) {
      if (signal.aborted) break;
      try {
        await remote.delete(key, signal);
        this.opts.repo.gcDone(key);
        removed++;
      } catch {
        break; // the remote is unwell: try again next time
      }
    }
    return removed;
  }
}

/** SHA-256 (hex) of a stream's bytes. */
async function hashStream(stream: Readable, signal: AbortSignal): Promise<string> {
  const hash = createHash('sha256');
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      signal.throwIfAborted();
      hash.update(chunk);
    }
  } catch (err) {
    stream.destroy();
    throw err instanceof RemoteError || signal.aborted ? err : new RemoteError('local-read');
  }
  return hash.digest('hex');
}
