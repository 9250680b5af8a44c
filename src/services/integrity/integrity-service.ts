// Integrity: the scrubber's passes over every object version (a bounded amount of work per tick, a cursor persisted
// with each tick's results), read failures reported by GETs, repairs from a good copy, the status and corrupt list
// of the admin API, and the integrity gauges (pushed after each tick; a scrape never queries the database).

import { AppError } from '../../core/errors.js';
import type { Logger } from '../../observability/logger.js';
import { BlobCorruptError, isInlineBlobId, type BlobStore } from '../../storage/blobs/blob-store.js';
import {
  IntegrityRepo,
  type CorruptEntry,
  type IntegrityStatus,
  type ScrubTarget,
} from '../../storage/db/integrity-repo.js';
import type { MetadataStore } from '../../storage/db/metadata-store.js';
import type { ObjectRow } from '../../storage/db/objects-repo.js';
import type { AuditSink } from '../audit/audit-events.js';
import type { ReadPins } from '../objects/object-reader.js';
import { repairVersion, type RepairSource } from './repair.js';
import {
  loadScrubState,
  saveScrubState,
  type FinishedPass,
  type PassProgress,
  type PassTrigger,
  type ScrubState,
} from './scrub-state.js';
import { VersionCheck } from './version-check.js';

export type { RepairSource, CorruptEntry, PassProgress, FinishedPass };

export interface ScrubLimits {
  /** The tick (STORE_INTEGRITY_SCRUB_INTERVAL_MS): the worker runs it; the status reports it. */
  intervalMs: number;
  /** Versions a tick may start checking. */
  objectsPerTick: number;
  /** Bytes a tick may read (a read overshooting it is paid back by the next tick). */
  bytesPerTick: number;
}

export interface IntegrityServiceOptions {
  meta: MetadataStore;
  blobs: BlobStore;
  pins: ReadPins;
  logger: Logger;
  audit: AuditSink;
  /** STORE_INTEGRITY_SCRUB_ENABLED: scheduled passes run. Manual passes run either way. */
  enabled: boolean;
  limits: ScrubLimits;
  /** From the start of one scheduled pass to the next (a pass that takes longer is followed at once). */
  passIntervalMs: number;
  /** Where corrupt versions are repaired from; without one they stay listed as corrupt. */
  repairSource?: RepairSource | undefined;
  /** The integrity gauges, registered only when the scrubber is enabled. */
  metrics?:
    | { readonly hasIntegrity: boolean; setIntegrity(counts: Record<IntegrityStatus, number>, lastRunAt?: Date): void }
    | undefined;
  now?: () => number;
}

export interface IntegrityStatusView {
  enabled: boolean;
  counts: Record<IntegrityStatus, number>;
  currentPass: (Omit<PassProgress, 'cursor'> & { percent: number }) | undefined;
  lastFullPass: FinishedPass | undefined;
  /** When the next scheduled pass starts (enabled and idle only). */
  nextPassAt: number | undefined;
  repairAvailable: boolean;
  limits: ScrubLimits & { passIntervalMs: number };
}

/** The audit subject of what the scrubber does on its own (repairs). */
const SCRUBBER_SUBJECT = 'integrity-scrubber';
/** Read failures remembered, so a hot corrupt object costs one write, not one per GET. */
const RECENT_REPORTS = 1024;

export class IntegrityService {
  private readonly repo: IntegrityRepo;
  private readonly now: () => number;
  private state: ScrubState;
  private check: VersionCheck | undefined;
  /** Bytes read beyond the last tick's budget, taken from the next. */
  private debt = 0;
  private readonly recentReports = new Set<number>();
  private readonly repairQueue = new Set<number>();

  constructor(private readonly opts: IntegrityServiceOptions) {
    this.repo = new IntegrityRepo(opts.meta.db);
    this.now = opts.now ?? Date.now;
    this.state = loadScrubState(opts.meta.instance);
  }

  get isRunning(): boolean {
    return this.state.current !== undefined;
  }

  /** Counts of object versions with bytes by the result of their last check (never checked: unchecked). */
  counts(): Record<IntegrityStatus, number> {
    const totals = this.repo.totals();
    const withBytes = Math.max(0, this.repo.versionTotals().versions - totals.deleteMarkers);
    return { ok: totals.ok, corrupt: totals.corrupt, unchecked: Math.max(0, withBytes - totals.ok - totals.corrupt) };
  }

  status(): IntegrityStatusView {
    const { current, last } = this.state;
    const idleSince = last?.startedAt;
    return {
      enabled: this.opts.enabled,
      counts: this.counts(),
      currentPass: current ? { ...withoutCursor(current), percent: percentOf(current) } : undefined,
      lastFullPass: last,
      nextPassAt:
        this.opts.enabled && !current
          ? idleSince === undefined
            ? this.now()
            : Math.max(this.now(), idleSince + this.opts.passIntervalMs)
          : undefined,
      repairAvailable: this.opts.repairSource !== undefined,
      limits: { ...this.opts.limits, passIntervalMs: this.opts.passIntervalMs },
    };
  }

  /** Corrupt versions, most recently detected first. */
  listCorrupt(
    limit: number,
    after?: { detectedAt: number; objectId: number },
  ): { items: CorruptEntry[]; hasMore: boolean } {
    const rows = this.repo.corrupt(limit + 1, after);
    return { items: rows.slice(0, limit), hasMore: rows.length > limit };
  }

  /** Starts a manual pass over every version (it runs at the configured rate). Throws Conflict while one runs. */
  startPass(): PassProgress {
    if (this.state.current) throw new AppError('Conflict', { message: 'An integrity pass is already running.' });
    const pass = this.newPass('manual');
    this.commitState(() => saveScrubState(this.opts.meta.instance, this.state));
    return pass;
  }

  /**
   * A GET (or any read) found a version's bytes corrupt: records it (once), logs it, and queues a repair. Never throws:
   * the read is failing already and must fail with its own error.
   */
  reportCorruptRead(
    row: Pick<ObjectRow, 'id' | 'bucket' | 'key' | 'versionId' | 'size' | 'etag' | 'blobId'>,
    err: unknown,
  ): void {
    if (!(err instanceof BlobCorruptError) || this.recentReports.has(row.id)) return;
    try {
      if (this.recentReports.size >= RECENT_REPORTS) this.recentReports.clear();
      this.recentReports.add(row.id);
      if (this.repo.statusOf(row.id) === 'corrupt') return;
      const recorded = this.opts.meta.transaction(() =>
        this.repo.record({
          target: row,
          status: 'corrupt',
          checkedAt: this.now(),
          reason: err.reason,
          detail: `read: ${err.message}`,
        }),
      );
      if (!recorded) return;
      this.opts.logger.warn(
        { bucket: row.bucket, key: row.key, versionId: row.versionId, reason: err.reason },
        'a read found an object version corrupt; marked corrupt',
      );
      if (this.opts.repairSource && this.repairQueue.size < RECENT_REPORTS) this.repairQueue.add(row.id);
      this.pushMetrics();
    } catch (failure) {
      this.opts.logger.error({ err: failure }, 'could not record a corrupt read');
    }
  }

  /**
   * One scrubber tick: repairs queued by reads, then (when a pass runs, or a scheduled one is due) checks versions in
   * id order until the tick's object or byte budget is spent, records the results and the cursor in one transaction,
   * and tries to repair what it found corrupt.
   */
  async tick(signal: AbortSignal): Promise<void> {
    await this.repairQueued(signal);
    const pass = this.state.current ?? this.startScheduledIfDue();
    if (pass) await this.scrub(pass, signal);
    this.pushMetrics();
  }

  /** Stops the version being read (shutdown); its pass resumes from the cursor at the next start. */
  close(): void {
    this.check?.abandon();
    this.check = undefined;
  }

  /** Pushes the gauges (when registered). */
  pushMetrics(): void {
    const metrics = this.opts.metrics;
    if (!metrics?.hasIntegrity) return;
    const finished = this.state.last?.finishedAt;
    metrics.setIntegrity(this.counts(), finished === undefined ? undefined : new Date(finished));
  }

  private startScheduledIfDue(): PassProgress | undefined {
    if (!this.opts.enabled) return undefined;
    const last = this.state.last;
    if (last && this.now() < last.startedAt + this.opts.passIntervalMs) return undefined;
    return this.newPass('scheduled');
  }

  private newPass(trigger: PassTrigger): PassProgress {
    const { versions, bytes } = this.repo.versionTotals();
    const pass: PassProgress = {
      startedAt: this.now(),
      trigger,
      cursor: 0,
      objectsChecked: 0,
      bytesChecked: 0,
      corruptFound: 0,
      repaired: 0,
      objectsTotal: Math.max(0, versions - this.repo.totals().deleteMarkers),
      bytesTotal: bytes,
    };
    this.state = { ...this.state, current: pass };
    this.opts.logger.info({ trigger, objects: pass.objectsTotal, bytes: pass.bytesTotal }, 'integrity pass started');
    return pass;
  }

  private async scrub(pass: PassProgress, signal: AbortSignal): Promise<void> {
    let objects = this.opts.limits.objectsPerTick;
    let bytes = this.opts.limits.bytesPerTick - this.debt;
    const done: VersionCheck[] = [];
    let finished = false;
    while (!signal.aborted && bytes > 0) {
      if (!this.check) {
        if (objects === 0) break;
        const target = this.repo.nextTarget(pass.cursor);
        if (!target) {
          finished = true;
          break;
        }
        this.check = this.startCheck(target);
        objects -= 1;
      }
      const read = await this.check.advance(bytes);
      bytes -= read;
      pass.bytesChecked += read;
      if (this.check.outcome) {
        done.push(this.check);
        pass.cursor = this.check.target.id;
        this.check = undefined;
      }
    }
    this.debt = Math.max(0, -bytes);
    const corrupt = this.record(pass, done);
    for (const target of corrupt) {
      if (signal.aborted) break;
      await this.tryRepair(target, signal);
    }
    if (finished) this.finish(pass);
  }

  /** Reads what a check needs in this tick, so the blobs are pinned before anything can release them. */
  private startCheck(target: ScrubTarget): VersionCheck {
    const { meta, blobs, pins } = this.opts;
    const parts = target.blobId === undefined ? meta.objects.parts(target.id) : [];
    const sealed =
      target.blobId !== undefined && isInlineBlobId(target.blobId) ? meta.inlineBlobs.get(target.blobId) : undefined;
    return new VersionCheck(blobs, pins, { target, parts, sealed });
  }

  /** Records a tick's results and the pass's progress in one transaction; returns the versions newly found corrupt. */
  private record(pass: PassProgress, done: readonly VersionCheck[]): ScrubTarget[] {
    const now = this.now();
    const corrupt: ScrubTarget[] = [];
    const { meta } = this.opts;
    this.commitState(() => {
      for (const check of done) {
        const outcome = check.outcome as NonNullable<VersionCheck['outcome']>;
        pass.objectsChecked += 1;
        const recorded = this.repo.record({ target: check.target, checkedAt: now, ...outcome });
        if (recorded && outcome.status === 'corrupt') {
          pass.corruptFound += 1;
          corrupt.push(check.target);
        }
        if (recorded && outcome.status !== 'ok') this.logOutcome(check.target, outcome);
      }
      saveScrubState(meta.instance, this.state);
    });
    return corrupt;
  }

  /**
   * Runs a transaction that saves the scrub state (changed in memory just before, or inside it). If it fails, the
   * in-memory state goes back to what is saved, so the next tick re-checks the versions whose results were lost
   * instead of going on from a cursor (and counters) that never reached the database.
   */
  private commitState<T>(fn: () => T): T {
    try {
      return this.opts.meta.transaction(fn);
    } catch (err) {
      this.state = loadScrubState(this.opts.meta.instance);
      throw err;
    }
  }

  /** The walk reached the end: the pass becomes the last full pass. */
  private finish(pass: PassProgress): void {
    const { cursor: _cursor, objectsTotal: _objects, bytesTotal: _bytes, ...rest } = pass;
    this.state = { last: { ...rest, finishedAt: this.now() }, current: undefined };
    this.commitState(() => saveScrubState(this.opts.meta.instance, this.state));
    this.opts.logger.info(
      {
        trigger: pass.trigger,
        objects: pass.objectsChecked,
        bytes: pass.bytesChecked,
        corrupt: pass.corruptFound,
        repaired: pass.repaired,
      },
      'integrity pass finished',
    );
  }

  private logOutcome(target: ScrubTarget, outcome: NonNullable<VersionCheck['outcome']>): void {
    const fields = {
      bucket: target.bucket,
      key: target.key,
      versionId: target.versionId,
      reason: outcome.reason,
      detail: outcome.detail,
    };
    if (outcome.status === 'corrupt') this.opts.logger.warn(fields, 'integrity check found an object version corrupt');
    else this.opts.logger.warn(fields, 'integrity check could not read an object version; left unchecked');
  }

  private async repairQueued(signal: AbortSignal): Promise<void> {
    for (const id of [...this.repairQueue]) {
      if (signal.aborted) return;
      this.repairQueue.delete(id);
      const target = this.repo.findTarget(id);
      if (target && this.repo.statusOf(id) === 'corrupt') await this.tryRepair(target, signal);
    }
  }

  /** Repairs a corrupt version from the repair source, when there is one; audits a repair. Never throws. */
  private async tryRepair(target: ScrubTarget, signal: AbortSignal): Promise<void> {
    const source = this.opts.repairSource;
    if (!source) return;
    const fields = { bucket: target.bucket, key: target.key, versionId: target.versionId };
    try {
      const result = await repairVersion(
        { meta: this.opts.meta, repo: this.repo, blobs: this.opts.blobs, now: this.now },
        target,
        { source, signal },
      );
      if (result.outcome === 'repaired') {
        this.recentReports.delete(target.id);
        const pass = this.state.current;
        if (pass) {
          pass.repaired += 1;
          this.commitState(() => saveScrubState(this.opts.meta.instance, this.state));
        }
        this.opts.audit.record({
          event: 'integrity.object_repaired',
          subject: SCRUBBER_SUBJECT,
          bucket: target.bucket,
          details: { key: target.key, versionId: target.versionId, size: target.size },
        });
        this.opts.logger.info(fields, 'repaired a corrupt object version from the repair source');
      } else if (result.outcome === 'unavailable') {
        this.opts.logger.warn(fields, 'no good copy to repair a corrupt object version from; it stays corrupt');
      } else if (result.outcome === 'mismatch') {
        this.opts.logger.warn(
          { ...fields, detail: result.detail },
          "the repair source's copy does not match the object version; it stays corrupt",
        );
      }
    } catch (err) {
      this.opts.logger.warn({ ...fields, err }, 'repairing a corrupt object version failed; it stays corrupt');
    }
  }
}

function withoutCursor(pass: PassProgress): Omit<PassProgress, 'cursor'> {
  const { cursor: _cursor, ...rest } = pass;
  return rest;
}

/** Progress by bytes (what costs time), or by objects when there are no bytes; never above 100. */
function percentOf(pass: PassProgress): number {
  const fraction =
    pass.bytesTotal > 0
      ? pass.bytesChecked / pass.bytesTotal
      : pass.objectsTotal > 0
        ? pass.objectsChecked / pass.objectsTotal
        : 0;
  return Math.min(100, Math.round(fraction * 1000) / 10);
}
