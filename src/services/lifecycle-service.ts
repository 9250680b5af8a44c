// Applies bucket lifecycle rules: Expiration, ExpiredObjectDeleteMarker, NoncurrentVersionExpiration and
// AbortIncompleteMultipartUpload, through the object and multipart services exactly as a client's DELETE or abort
// would (so replication and events see them). Transitions are applied by the tier sweep when tiering is on
// (services/tiering/tier-service.ts), and are inert otherwise.

import { setImmediate as nextTurn } from 'node:timers/promises';
import { isAppError } from '../core/errors.js';
import type { LifecycleRule } from '../core/lifecycle.js';
import type { RequestOrigin, RequestOrigins } from '../lib/request-origin.js';
import { rulePrefix } from '../core/lifecycle.js';
import { abortUploadDue, expirationAction, type LifecycleVersion } from '../core/lifecycle-eval.js';
import { canDeleteVersion, type ObjectRetention } from '../core/object-lock.js';
import type { Logger } from '../observability/logger.js';
import type { LifecycleBucket, LifecycleRepo, LifecycleVersionRow } from '../storage/db/lifecycle-repo.js';
import type { MultipartService } from './objects/multipart-service.js';
import type { ObjectService } from './objects/object-service.js';

export interface LifecycleServiceOptions {
  repo: LifecycleRepo;
  objects: ObjectService;
  multipart: MultipartService;
  logger?: Logger;
  /** Rows read per query; the event loop is yielded to between pages. Default 250. */
  batchSize?: number;
  /** Deletions and aborts per run; a run that reaches it stops and the next one resumes there. Default 1000. */
  maxActionsPerRun?: number;
  /** Lifecycle deletions run as the origin `LifecycleExpiration` (bucket notifications name them so). */
  origins?: RequestOrigins;
}

const LIFECYCLE_ORIGIN: RequestOrigin = {
  operation: 'LifecycleExpiration',
  requestId: 'lifecycle',
  principalId: 's3.amazonaws.com',
  sourceIp: '',
};

export interface LifecycleRunResult {
  /** Current versions expired (a delete marker added, or the version removed in an unversioned bucket). */
  expired: number;
  noncurrentDeleted: number;
  deleteMarkersRemoved: number;
  uploadsAborted: number;
  /** Versions due for deletion but protected by a retention or legal hold, left in place. */
  skippedLocked: number;
  /** Actions that failed unexpectedly (logged); they are retried by a later run. */
  failed: number;
  /** False when the run stopped at its action budget or on abort; the next run resumes where this one stopped. */
  complete: boolean;
}

/** Where a run stopped: the bucket, the phase, the prefix range, and the last row handled (none: the range's start). */
type Resume =
  | {
      bucket: string;
      fingerprint: string;
      phase: 'versions';
      range: number;
      after: { key: string; id: number } | undefined;
    }
  | {
      bucket: string;
      fingerprint: string;
      phase: 'uploads';
      range: number;
      after: { key: string; uploadId: string } | undefined;
    };

/** S3's listing order (UTF-8 bytes, SQLite's BINARY collation), which is the order the scans walk. */
function byteCompare(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/**
 * The key ranges to scan for these rules: their prefixes in byte order, with any prefix covered by a shorter
 * one dropped (so no key is visited twice in a run). `['']` means the whole bucket.
 */
export function prefixRanges(rules: readonly LifecycleRule[]): string[] {
  const sorted = [...new Set(rules.map(rulePrefix))].sort(byteCompare);
  const out: string[] = [];
  for (const prefix of sorted) if (!out.some((p) => prefix.startsWith(p))) out.push(prefix);
  return out;
}

class Run {
  readonly result: LifecycleRunResult = {
    expired: 0,
    noncurrentDeleted: 0,
    deleteMarkersRemoved: 0,
    uploadsAborted: 0,
    skippedLocked: 0,
    failed: 0,
    complete: false,
  };
  private actions = 0;

  constructor(
    readonly now: Date,
    private readonly signal: AbortSignal | undefined,
    private readonly maxActions: number,
  ) {}

  acted(): void {
    this.actions++;
  }

  /** True once the budget is spent or the run was aborted: stop at the next row and save the position. */
  get mustStop(): boolean {
    return this.actions >= this.maxActions || this.signal?.aborted === true;
  }
}

export class LifecycleService {
  private readonly repo: LifecycleRepo;
  private readonly objects: ObjectService;
  private readonly multipart: MultipartService;
  private readonly logger: Logger | undefined;
  private readonly batchSize: number;
  private readonly maxActions: number;
  private readonly origins: RequestOrigins | undefined;
  /** Where the last incomplete run stopped (in memory: after a restart the scan simply starts over). */
  private resume: Resume | undefined;

  constructor(opts: LifecycleServiceOptions) {
    this.repo = opts.repo;
    this.objects = opts.objects;
    this.multipart = opts.multipart;
    this.logger = opts.logger;
    this.batchSize = Math.max(1, opts.batchSize ?? 250);
    this.maxActions = Math.max(1, opts.maxActionsPerRun ?? 1000);
    this.origins = opts.origins;
  }

  /**
   * One pass over every bucket with a lifecycle configuration, evaluating rules at `now`, bounded by the action
   * budget (then `complete` is false and the next call resumes). Stops early, also incomplete, when `signal` aborts.
   * Never throws for a single object's failure: it is logged, counted and retried by a later run.
   */
  async runOnce(now: Date, signal?: AbortSignal): Promise<LifecycleRunResult> {
    const run = new Run(now, signal, this.maxActions);
    const resume = this.resume;
    this.resume = undefined;
    let after = '';
    if (resume !== undefined) {
      const bucket = this.repo.findBucketWithLifecycle(resume.bucket);
      // A changed configuration has other prefix ranges: that bucket is scanned again from its start.
      const usable = bucket !== undefined && bucket.fingerprint === resume.fingerprint ? resume : undefined;
      if (bucket !== undefined && !(await this.processBucket(bucket, run, usable))) return run.result;
      after = resume.bucket;
    }
    for (;;) {
      const page = this.repo.bucketsWithLifecycle(after, 100);
      for (const bucket of page) {
        if (!(await this.processBucket(bucket, run, undefined))) return run.result;
        after = bucket.name;
      }
      if (page.length < 100) break;
    }
    run.result.complete = true;
    return run.result;
  }

  /** Returns false when the run had to stop inside this bucket (its position is saved). */
  private async processBucket(bucket: LifecycleBucket, run: Run, resume: Resume | undefined): Promise<boolean> {
    const rules = bucket.lifecycle.rules.filter((r) => r.status === 'Enabled');
    if (resume?.phase !== 'uploads') {
      const versionRules = rules.filter(
        (r) => r.expiration !== undefined || r.noncurrentVersionExpiration !== undefined,
      );
      if (versionRules.length > 0 && !(await this.scanVersions(bucket, versionRules, { run, resume }))) return false;
    }
    const uploadRules = rules.filter((r) => r.abortIncompleteMultipartUpload !== undefined);
    if (uploadRules.length === 0) return true;
    return this.scanUploads(bucket, uploadRules, { run, resume: resume?.phase === 'uploads' ? resume : undefined });
  }

  private async scanVersions(
    bucket: LifecycleBucket,
    rules: LifecycleRule[],
    { run, resume }: { run: Run; resume: Resume | undefined },
  ): Promise<boolean> {
    const ranges = prefixRanges(rules);
    const first = resume?.phase === 'versions' ? resume : undefined;
    for (let range = first?.range ?? 0; range < ranges.length; range++) {
      const prefix = ranges[range] as string;
      let after = range === first?.range ? first.after : undefined;
      for (;;) {
        const page = this.repo.versionsPage(bucket.name, prefix, { after: after, limit: this.batchSize });
        let rangeDone = page.length < this.batchSize;
        for (const row of page) {
          if (run.mustStop) break;
          if (!row.key.startsWith(prefix)) {
            rangeDone = true;
            break;
          }
          await this.applyToVersion(bucket.name, row, { rules, run });
          after = { key: row.key, id: row.id };
        }
        if (run.mustStop) {
          this.resume = { bucket: bucket.name, fingerprint: bucket.fingerprint, phase: 'versions', range, after };
          return false;
        }
        if (rangeDone) break;
        await nextTurn(); // let client requests in between pages
      }
    }
    return true;
  }

  private async scanUploads(
    bucket: LifecycleBucket,
    rules: LifecycleRule[],
    { run, resume }: { run: Run; resume: Resume | undefined },
  ): Promise<boolean> {
    const ranges = prefixRanges(rules);
    const first = resume?.phase === 'uploads' ? resume : undefined;
    for (let range = first?.range ?? 0; range < ranges.length; range++) {
      const prefix = ranges[range] as string;
      let after = range === first?.range ? first.after : undefined;
      for (;;) {
        const page = this.repo.uploadsPage(bucket.name, prefix, { after: after, limit: this.batchSize });
        let rangeDone = page.length < this.batchSize;
        for (const upload of page) {
          if (run.mustStop) break;
          if (!upload.key.startsWith(prefix)) {
            rangeDone = true;
            break;
          }
          if (abortUploadDue(rules, { key: upload.key, initiated: new Date(upload.initiated) }, run.now)) {
            await this.act(
              run,
              {
                counter: 'uploadsAborted',
                target: { bucket: bucket.name, key: upload.key, uploadId: upload.uploadId },
              },
              () => this.multipart.abort(bucket.name, upload.key, upload.uploadId),
            );
          }
          after = { key: upload.key, uploadId: upload.uploadId };
        }
        if (run.mustStop) {
          this.resume = { bucket: bucket.name, fingerprint: bucket.fingerprint, phase: 'uploads', range, after };
          return false;
        }
        if (rangeDone) break;
        await nextTurn();
      }
    }
    return true;
  }

  /** Evaluates one version and applies the due action, if any. */
  private async applyToVersion(
    bucket: string,
    row: LifecycleVersionRow,
    { rules, run }: { rules: LifecycleRule[]; run: Run },
  ): Promise<void> {
    const version: LifecycleVersion = {
      key: row.key,
      size: row.size,
      tags: row.tags,
      lastModified: new Date(row.lastModified),
      isLatest: row.isLatest,
      isDeleteMarker: row.isDeleteMarker,
      newerNoncurrentCount: Math.max(0, row.newerCount - 1),
      isOnlyVersion: row.isOnlyVersion,
      storageClass: row.storageClass,
      ...(row.isLatest || row.successorModified === undefined
        ? {}
        : { noncurrentSince: new Date(row.successorModified) }),
    };
    const action = expirationAction(rules, version, run.now);
    if (action === undefined) return;
    // The page may predate a client's write (the event loop runs between actions): re-read the version, and act only
    // if it is still what was evaluated. Re-read and action run synchronously together, so nothing slips in between.
    const fresh = this.repo.findVersionState(bucket, row.key, row.versionId);
    if (fresh === undefined || fresh.id !== row.id || fresh.isLatest !== row.isLatest) return;
    const target = { bucket, key: row.key, versionId: row.versionId };
    if (action === 'expire-current') {
      const versioning = this.repo.findVersioning(bucket);
      if (versioning === undefined) return;
      // With versioning Enabled the expiration only adds a delete marker, which object lock allows (a lock "doesn't
      // prevent ... adding delete markers"). Otherwise a version is removed: unversioned, this one; suspended, the
      // key's null version (replaced by a null delete marker).
      const removed =
        versioning === 'Enabled'
          ? undefined
          : versioning === 'Unversioned'
            ? fresh
            : this.repo.findVersionState(bucket, row.key, 'null');
      if (removed !== undefined && this.isLocked(removed, run.now)) {
        run.result.skippedLocked++;
        return;
      }
      await this.act(run, { counter: 'expired', target }, () => this.objects.delete(bucket, row.key));
    } else if (action === 'delete-noncurrent') {
      if (this.isLocked(fresh, run.now)) {
        run.result.skippedLocked++;
        return;
      }
      await this.act(run, { counter: 'noncurrentDeleted', target }, () =>
        this.objects.delete(bucket, row.key, { versionId: row.versionId }),
      );
    } else if (fresh.isOnlyVersion) {
      await this.act(run, { counter: 'deleteMarkersRemoved', target }, () =>
        this.objects.delete(bucket, row.key, { versionId: row.versionId }),
      );
    }
  }

  /** S3 lifecycle never removes a version under an active retention (even GOVERNANCE) or a legal hold. */
  private isLocked(lock: { retention: ObjectRetention | undefined; legalHold: boolean }, now: Date): boolean {
    return !canDeleteVersion({
      retention: lock.retention,
      legalHold: lock.legalHold ? 'ON' : undefined,
      bypassGovernance: false,
      now,
    }).allowed;
  }

  /** Runs one action, counting it against the budget; failures are logged and counted, never thrown. */
  private async act(
    run: Run,
    {
      counter,
      target,
    }: {
      counter: 'expired' | 'noncurrentDeleted' | 'deleteMarkersRemoved' | 'uploadsAborted';
      target: Record<string, string>;
    },
    action: () => unknown,
  ): Promise<void> {
    run.acted();
    try {
      await (this.origins ? this.origins.run(LIFECYCLE_ORIGIN, action) : action());
      run.result[counter]++;
    } catch (err) {
      if (isAppError(err) && err.code === 'AccessDenied') {
        // The object service enforces object lock itself as well: a lock set since the re-read.
        run.result.skippedLocked++;
      } else if (isAppError(err) && (err.code === 'NoSuchUpload' || err.code === 'NoSuchBucket')) {
        // Gone in the meantime (an upload completed or aborted by its client): nothing left to do.
      } else {
        run.result.failed++;
        this.logger?.warn({ err, ...target, action: counter }, 'lifecycle action failed');
      }
    }
    // Each action is its own fsynced transaction: let client requests in between them.
    await nextTurn();
  }
}
