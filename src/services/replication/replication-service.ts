// Replication (SPEC "Replication configuration", docs/replication.md): intents recorded in the committing
// transaction, the drain that applies each claimed key's CURRENT local state to the remote (put bytes, metadata and
// tags, or delete), backoff and dead-lettering, and the status the admin API shows. One-way: the remote mirrors
// the current version of every key under `<bucket>/<key>`; local writes never wait for it.

import { Readable } from 'node:stream';
import { isAppError } from '../../core/errors.js';
import { fullJitterDelay, type BackoffPolicy } from '../../lib/backoff.js';
import type { Logger } from '../../observability/logger.js';
import type { MetadataStore } from '../../storage/db/metadata-store.js';
import type {
  FailedIntent,
  IntentKind,
  OutboxStatus,
  ReplicationIntent,
  ReplicationOutboxRepo,
} from '../../storage/db/replication-outbox-repo.js';
import type { ObjectService } from '../objects/object-service.js';
import {
  mirrorKey,
  RemoteError,
  remoteErrorClass,
  type RemoteErrorClass,
  type RemoteStore,
  type TargetBucketState,
} from './remote-store.js';

/** Canned ACLs that grant others: the ones a copy needs (private and bucket-owner-* are any target's default). */
const REPLICATED_CANNED_ACLS = new Set(['public-read', 'public-read-write', 'authenticated-read']);

export interface ReplicationServiceOptions {
  meta: MetadataStore;
  outbox: ReplicationOutboxRepo;
  objects: ObjectService;
  /** The target; undefined when no remote is configured. */
  remote: RemoteStore | undefined;
  /** STORE_REPLICATION_ENABLED: intents are recorded and drained only when on. */
  enabled: boolean;
  maxAttempts: number;
  batchKeys: number;
  retryBaseMs: number;
  logger: Logger;
  /** Keys applied at once within a drain (default 4). */
  concurrency?: number;
  /** Called with the outbox counts after each drain and retry (the metrics gauge). */
  onCounts?: (counts: Record<OutboxStatus, number>) => void;
  now?: () => number;
  random?: () => number;
}

export interface LastDrain {
  at: string;
  /** Keys applied to the remote by that drain. */
  count: number;
  /** The class of the last failure in that drain; null when it had none. */
  errorClass: RemoteErrorClass | null;
}

export interface ReplicationStatus {
  enabled: boolean;
  /** The target bucket as last checked ('unchecked' before the first check; never the bucket's name or endpoint). */
  targetBucket: TargetBucketState | 'unchecked' | 'not-configured';
  outbox: Record<OutboxStatus, number>;
  oldestPendingAgeSeconds: number | null;
  lastDrain: LastDrain | null;
}

export interface DrainResult {
  claimed: number;
  applied: number;
  failed: number;
}

const RETRY_CAP_MS = 3_600_000;

export class ReplicationService {
  private readonly opts: ReplicationServiceOptions;
  private readonly now: () => number;
  private readonly backoff: BackoffPolicy;
  private wakeListener: () => void = () => undefined;
  private lastDrain: LastDrain | null = null;
  private target: ReplicationStatus['targetBucket'];
  private lastCountsAt = 0;

  constructor(opts: ReplicationServiceOptions) {
    this.opts = opts;
    this.now = opts.now ?? Date.now;
    this.backoff = { baseMs: opts.retryBaseMs, capMs: RETRY_CAP_MS };
    this.target = opts.remote === undefined ? 'not-configured' : 'unchecked';
    // An intent in flight when the process stopped may or may not have reached the remote: apply it again.
    const reset = opts.outbox.resetInflight();
    if (reset > 0)
      opts.logger.info({ intents: reset }, 'replication intents in flight at the last stop are pending again');
  }

  /** True when intents are recorded and drained (STORE_REPLICATION_ENABLED with a remote). */
  get enabled(): boolean {
    return this.opts.enabled && this.opts.remote !== undefined;
  }

  /**
   * Records that (bucket, key) changed: its current state must reach the remote. Call inside the transaction that
   * commits the change (it commits or rolls back with it). A no-op when replication is off.
   */
  recordChange(bucket: string, key: string, kind: IntentKind): void {
    if (!this.enabled) return;
    this.opts.outbox.enqueue({ bucket: bucket, key: key, kind: kind }, this.now());
    this.wakeListener();
  }

  /** The drain worker's wake-up (one listener; the last one set wins). */
  setWakeListener(listener: () => void): void {
    this.wakeListener = listener;
  }

  /** HEAD of the target bucket; its result is shown in status. Never throws. */
  async checkTarget(signal?: AbortSignal): Promise<ReplicationStatus['targetBucket']> {
    if (this.opts.remote === undefined) return this.target;
    this.target = await this.opts.remote.checkBucket(signal);
    if (this.target !== 'ok')
      this.opts.logger.warn({ targetBucket: this.target }, 'replication target bucket is not usable');
    return this.target;
  }

  /** The earliest due time of a pending intent, or undefined. */
  nextDueAt(): number | undefined {
    return this.enabled ? this.opts.outbox.nextDueAt() : undefined;
  }

  /**
   * One drain: claims up to batchKeys due keys whose commits are durable, applies each key's current state, and
   * records the outcomes. Never throws for a remote failure (it is backed off, or dead-lettered at the cap).
   */
  async drainOnce(signal: AbortSignal): Promise<DrainResult> {
    const result: DrainResult = { claimed: 0, applied: 0, failed: 0 };
    if (!this.enabled) return result;
    // Only committed changes that a power loss cannot undo may reach the remote.
    await this.opts.meta.durable();
    const claimed = this.opts.outbox.due(this.now(), this.opts.batchKeys);
    result.claimed = claimed.length;
    if (claimed.length === 0) return result;
    this.opts.outbox.markInflight(claimed);
    let lastError: RemoteErrorClass | null = null;
    const queue = [...claimed];
    const worker = async (): Promise<void> => {
      for (let intent = queue.shift(); intent !== undefined; intent = queue.shift()) {
        if (signal.aborted) {
          // Not attempted: pending again, attempts unchanged (the boot reset does the same after a crash).
          this.opts.outbox.failed(
            intent,
            { attempts: intent.attempts, error: 'aborted', next: { dead: false, at: this.now() } },
            this.now(),
          );
          continue;
        }
        try {
          await this.apply(intent, signal);
          this.opts.outbox.done(intent);
          result.applied++;
        } catch (err) {
          const cls = remoteErrorClass(err);
          lastError = cls;
          result.failed++;
          this.recordFailure(intent, cls, signal.aborted);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.opts.concurrency ?? 4, claimed.length) }, worker));
    this.lastDrain = { at: new Date(this.now()).toISOString(), count: result.applied, errorClass: lastError };
    if (lastError === 'no-bucket' || lastError === 'auth') void this.checkTarget();
    else if (result.applied > 0) this.target = 'ok';
    this.publishCounts(true);
    return result;
  }

  private recordFailure(intent: ReplicationIntent, cls: RemoteErrorClass, aborted: boolean): void {
    const now = this.now();
    if (aborted) {
      this.opts.outbox.failed(intent, { attempts: intent.attempts, error: cls, next: { dead: false, at: now } }, now);
      return;
    }
    const attempts = intent.attempts + 1;
    if (attempts >= this.opts.maxAttempts) {
      this.opts.outbox.failed(intent, { attempts: attempts, error: cls, next: { dead: true } }, now);
      this.opts.logger.warn(
        { bucket: intent.bucket, key: intent.key, attempts, errorClass: cls },
        'replication intent dead-lettered',
      );
    } else {
      this.opts.outbox.failed(
        intent,
        {
          attempts: attempts,
          error: cls,
          next: { dead: false, at: now + fullJitterDelay(attempts, this.backoff, this.opts.random) },
        },
        now,
      );
    }
  }

  /** Puts the key's current version on the remote (bytes, or tags only for a tag change), or deletes it there. */
  private async apply(intent: ReplicationIntent, signal: AbortSignal): Promise<void> {
    const remote = this.opts.remote as RemoteStore;
    const key = mirrorKey(intent.bucket, intent.key);
    let opened;
    try {
      opened = this.opts.objects.open(intent.bucket, intent.key);
    } catch (err) {
      // No current version (deleted, a delete marker on top, or the bucket gone): the mirror has none either.
      if (isAppError(err) && (err.code === 'NoSuchKey' || err.code === 'NoSuchBucket')) {
        await remote.delete(key, signal);
        return;
      }
      throw new RemoteError('local-read');
    }
    const { row } = opened;
    if (intent.kind === 'tags') {
      try {
        await remote.putTags(key, row.tags ?? [], signal);
        // A metadata intent follows tag and ACL changes alike: the ACL goes too, back to private when it is no longer
        // public.
        await this.sendAcl(intent, row.acl?.canned, signal);
        return;
      } catch (err) {
        if (!(err instanceof RemoteError && err.errorClass === 'not-found')) throw err;
        // Not on the remote yet: send the whole object, looked up again (it may have changed while the tags went, and
        // an overwritten inline version's bytes are gone with it).
        return this.apply({ ...intent, kind: 'object' }, signal);
      }
    }
    let localFailed = false;
    const body = row.size === 0 ? Readable.from([]) : opened.stream();
    body.once('error', () => {
      localFailed = true;
    });
    try {
      await remote.put({
        key,
        body,
        size: row.size,
        headers: row.headers,
        metadata: row.userMeta,
        tags: row.tags ?? [],
        signal,
      });
    } catch (err) {
      throw localFailed ? new RemoteError('local-read') : err;
    }
    // A new copy is private on any target: only an ACL granting others needs sending.
    const canned = row.acl?.canned;
    if (canned !== undefined && REPLICATED_CANNED_ACLS.has(canned)) await this.sendAcl(intent, canned, signal);
  }

  /**
   * Sets the copy's canned ACL (docs/decisions.md, "ACLs, ownership and public access"): `canned` when it grants
   * others, else private. A target refusing ACLs keeps the copy private, never a failure.
   */
  private async sendAcl(intent: ReplicationIntent, canned: string | undefined, signal: AbortSignal): Promise<void> {
    const remote = this.opts.remote as RemoteStore;
    if (!remote.putCannedAcl) return;
    const acl = canned !== undefined && REPLICATED_CANNED_ACLS.has(canned) ? canned : 'private';
    const applied = await remote.putCannedAcl(mirrorKey(intent.bucket, intent.key), acl, signal);
    if (!applied)
      this.opts.logger.debug(
        { bucket: intent.bucket, key: intent.key, acl },
        'replication target refuses ACLs; copy kept private',
      );
  }

  /** Outbox depth by status (a count over the status index). */
  counts(): Record<OutboxStatus, number> {
    return this.opts.outbox.counts();
  }

  /** Pushes the counts to the gauge; at most once a second unless forced. */
  publishCounts(force = false): void {
    if (!this.opts.onCounts) return;
    const now = this.now();
    if (!force && now - this.lastCountsAt < 1000) return;
    this.lastCountsAt = now;
    this.opts.onCounts(this.counts());
  }

  status(): ReplicationStatus {
    const oldest = this.opts.outbox.oldestWaitingCreatedAt();
    return {
      enabled: this.enabled,
      targetBucket: this.target,
      outbox: this.counts(),
      oldestPendingAgeSeconds: oldest === undefined ? null : Math.max(0, Math.floor((this.now() - oldest) / 1000)),
      lastDrain: this.lastDrain,
    };
  }

  /** Dead-lettered intents, oldest first, keyset-paged by row id. */
  failedPage(afterId: number, limit: number): { items: FailedIntent[]; nextCursor: number | null } {
    const items = this.opts.outbox.failedPage(afterId, limit + 1);
    const more = items.length > limit;
    const page = more ? items.slice(0, limit) : items;
    return { items: page, nextCursor: more ? (page.at(-1)?.id ?? null) : null };
  }

  /** Makes dead-lettered intents pending again with fresh attempts (all, or one key); returns how many. */
  retryFailed(only?: { bucket: string; key: string }): number {
    const n = this.opts.meta.transaction(() => this.opts.outbox.retryFailed(this.now(), only));
    if (n > 0) this.wakeListener();
    this.publishCounts(true);
    return n;
  }
}
