// Bucket notifications (docs/notifications.md): the event seam's durable half for them (one outbox row per matching
// target, written in the transaction that commits the change), PutBucketNotificationConfiguration's checks and test
// events, and the status and dead letters the admin API shows. Delivery is notification-dispatcher.ts.

import { AppError } from '../../core/errors.js';
import type { BucketConfig } from '../../core/bucket-config-parts.js';
import { matchingRules, type NotificationConfiguration } from '../../core/notification-config.js';
import type { ObjectEvent } from '../../core/object-event.js';
import type { RequestOrigin, RequestOrigins } from '../../lib/request-origin.js';
import type { Logger } from '../../observability/logger.js';
import type { NotificationRepo, NotificationRow } from '../../storage/db/notification-repo.js';
import type { EventSink, ResidencyChange } from '../events/event-sink.js';
import { eventMessage, testEventMessage } from './event-message.js';
import type { NotificationTargets } from './notification-targets.js';

/** What the sink reads of the committed state, inside the committing transaction. */
export interface CommittedState {
  /** A bucket's notification configuration (undefined: none). */
  configOf(bucket: string): NotificationConfiguration | undefined;
  /** The key's current version: whether it is a delete marker, and its size, ETag and version id. */
  latest(
    bucket: string,
    key: string,
  ): { isDeleteMarker: boolean; size: number; etag: string; versionId: string; lastModified: number } | undefined;
  /** Whether the bucket's versioning is Enabled (version ids are shown only then). */
  isVersioned(bucket: string): boolean;
}

export interface NotificationServiceOptions {
  repo: NotificationRepo;
  targets: NotificationTargets;
  state: CommittedState;
  origins: RequestOrigins;
  /** Resolves once every commit so far is on disk (MetadataStore.durable). */
  durable: () => Promise<void>;
  region: string;
  ownerId: string;
  logger: Logger;
  now?: () => number;
}

export interface TargetStatus {
  id: string;
  kind: string;
  arn: string;
  queued: number;
  delivered: number;
  failed: number;
  lastErrorClass: string | null;
  oldestPendingAgeSeconds: number | null;
}

/** The S3 event name of an object event in the light of what caused it (docs/notifications.md "Event names"). */
function createdName(event: ObjectEvent, origin: RequestOrigin | undefined): string {
  if (event.type === 'multipart.completed') return 'ObjectCreated:CompleteMultipartUpload';
  if (origin?.operation === 'PostObject') return 'ObjectCreated:Post';
  if (origin?.operation === 'CopyObject') return 'ObjectCreated:Copy';
  return 'ObjectCreated:Put';
}

export class NotificationService implements EventSink {
  private readonly now: () => number;
  private lastSequence = 0n;
  /** Rows with ids up to here are durable (may be delivered). */
  private durableId: number;
  private onDurable: (retriedTarget?: string) => void = () => undefined;

  constructor(private readonly opts: NotificationServiceOptions) {
    this.now = opts.now ?? Date.now;
    this.durableId = opts.repo.maxId();
    this.syncActive();
    opts.targets.onChange(() => this.syncActive());
  }

  /** Request origins are tracked only while some target exists (lib/request-origin.ts). */
  private syncActive(): void {
    this.opts.origins.active = this.opts.targets.size > 0;
  }

  get durableUpTo(): number {
    return this.durableId;
  }

  /** Told once new rows are durable, or a target's dead letters are pending again (the dispatcher wakes). */
  setDurableListener(listener: (retriedTarget?: string) => void): void {
    this.onDurable = listener;
  }

  /**
   * A hex sequencer that grows with every event (per key and overall): AWS's rule is that for one key a later event
   * has the greater sequencer once both are padded to the same length; these all have 16 digits.
   */
  private sequencer(): string {
    const fromClock = BigInt(this.now()) * 4096n;
    this.lastSequence = fromClock > this.lastSequence ? fromClock : this.lastSequence + 1n;
    return this.lastSequence.toString(16).toUpperCase().padStart(16, '0');
  }

  inTransaction(event: ObjectEvent): void {
    // Most buckets have no configuration: nothing is read beyond the cached bucket row then.
    if (this.opts.targets.size === 0 || this.opts.state.configOf(event.bucket) === undefined) return;
    const origin = this.opts.origins.current();
    let name: string;
    if (event.type === 'object.deleted') {
      const latest = this.opts.state.latest(event.bucket, event.key);
      const markerCreated =
        event.etag === '' &&
        latest?.isDeleteMarker === true &&
        latest.lastModified === Date.parse(event.eventTime) &&
        (event.versionId === undefined || event.versionId === latest.versionId);
      const prefix = origin?.operation === 'LifecycleExpiration' ? 'LifecycleExpiration' : 'ObjectRemoved';
      name = `${prefix}:${markerCreated ? 'DeleteMarkerCreated' : 'Delete'}`;
      this.enqueue({ event, name, origin, object: { size: undefined, etag: undefined } });
    } else {
      name = createdName(event, origin);
      this.enqueue({ event, name, origin, object: { size: event.size, etag: event.etag } });
    }
  }

  afterCommit(): void {
    // Delivery waits for durability: the barrier asked for now is the one the writer's answer waits for too.
    if (this.opts.targets.size === 0) return;
    // Read now, right after the commit: a row committed later is not covered by this barrier.
    const max = this.opts.repo.maxId();
    this.opts.durable().then(
      () => {
        if (max > this.durableId) {
          this.durableId = max;
          this.onDurable();
        }
      },
      (err: unknown) => this.opts.logger.error({ err }, 'durability barrier failed; notifications wait'),
    );
  }

  tagsChanged(bucket: string, key: string): void {
    if (this.opts.targets.size === 0 || this.opts.state.configOf(bucket) === undefined) return;
    const origin = this.opts.origins.current();
    const latest = this.opts.state.latest(bucket, key);
    if (latest === undefined) return;
    const name = origin?.operation === 'DeleteObjectTagging' ? 'ObjectTagging:Delete' : 'ObjectTagging:Put';
    const event: ObjectEvent = {
      type: 'object.created',
      bucket,
      key,
      size: latest.size,
      etag: latest.etag,
      ...(this.opts.state.isVersioned(bucket) ? { versionId: latest.versionId } : {}),
      eventTime: new Date(this.now()).toISOString(),
    };
    this.enqueue({ event, name, origin, object: { size: undefined, etag: latest.etag } });
    // Called inside the transaction: the rows may be delivered once it has committed and is durable.
    setImmediate(() => this.afterCommit());
  }

  /** A version's move to or from the remote tier (EventSink.residencyChanged), inside its transaction. */
  residencyChanged(change: ResidencyChange): void {
    if (this.opts.targets.size === 0 || this.opts.state.configOf(change.bucket) === undefined) return;
    const event: ObjectEvent = {
      type: 'object.created',
      bucket: change.bucket,
      key: change.key,
      size: change.size,
      etag: change.etag,
      ...(this.opts.state.isVersioned(change.bucket) ? { versionId: change.versionId } : {}),
      eventTime: new Date(this.now()).toISOString(),
    };
    const restoreExpiry =
      change.restoreExpiry === undefined
        ? undefined
        : { time: new Date(change.restoreExpiry).toISOString(), storageClass: change.storageClass };
    this.enqueue({
      event,
      name: change.name,
      origin: this.opts.origins.current(),
      object: { size: change.size, etag: change.etag },
      restoreExpiry,
    });
    setImmediate(() => this.afterCommit());
  }

  private enqueue(input: {
    event: ObjectEvent;
    name: string;
    origin: RequestOrigin | undefined;
    object: { size: number | undefined; etag: string | undefined };
    restoreExpiry?: { time: string; storageClass: string } | undefined;
  }): void {
    const { event, name, origin } = input;
    const rules = matchingRules(this.opts.state.configOf(event.bucket), `s3:${name}`, event.key);
    if (rules.length === 0) return;
    const sequencer = this.sequencer();
    for (const rule of rules) {
      const target = this.opts.targets.findByArn(rule.arn);
      // A configuration restored before its target was created again: nothing to deliver to until it is.
      if (target === undefined) continue;
      this.opts.repo.insert({
        targetId: target.id,
        bucket: event.bucket,
        key: event.key,
        eventName: name,
        body: eventMessage({
          eventName: name,
          region: this.opts.region,
          eventTime: event.eventTime,
          origin,
          configurationId: rule.id,
          bucket: event.bucket,
          ownerId: this.opts.ownerId,
          key: event.key,
          size: input.object.size,
          etag: input.object.etag,
          versionId: event.versionId,
          sequencer,
          ...(input.restoreExpiry === undefined ? {} : { restoreExpiry: input.restoreExpiry }),
        }),
        createdAt: this.now(),
      });
    }
  }

  /**
   * Checks a configuration for PutBucketNotificationConfiguration inside the transaction that stores it: every ARN
   * must name a target (InvalidArgument "Unable to validate the following destination configurations"), and each
   * target newly referenced gets an s3:TestEvent row.
   */
  applyConfiguration(input: {
    bucket: string;
    previous: BucketConfig['notification'];
    next: NotificationConfiguration;
    requestId: string;
  }): void {
    const missing = input.next.rules.filter((r) => this.opts.targets.findByArn(r.arn) === undefined);
    if (missing.length > 0) {
      const details: Record<string, string> = {};
      missing.forEach((r, i) => {
        details[`ArgumentName${i + 1}`] = r.arn;
        details[`ArgumentValue${i + 1}`] = 'The destination does not exist';
      });
      throw new AppError('InvalidArgument', {
        message: 'Unable to validate the following destination configurations',
        details,
      });
    }
    const before = new Set(input.previous?.rules.map((r) => r.arn) ?? []);
    const added = new Set(input.next.rules.map((r) => r.arn).filter((arn) => !before.has(arn)));
    const time = new Date(this.now()).toISOString();
    // Called inside the transaction: the rows may be delivered once it has committed and is durable.
    if (added.size > 0) setImmediate(() => this.afterCommit());
    for (const arn of added) {
      const target = this.opts.targets.findByArn(arn);
      if (target === undefined) continue;
      this.opts.repo.insert({
        targetId: target.id,
        bucket: input.bucket,
        key: '',
        eventName: 's3:TestEvent',
        body: testEventMessage({ bucket: input.bucket, time, requestId: input.requestId }),
        createdAt: this.now(),
      });
    }
  }

  /** Per-target counts, last error class and oldest pending age. */
  status(): TargetStatus[] {
    const counts = new Map(this.opts.repo.counts().map((c) => [c.targetId, c]));
    const now = this.now();
    return this.opts.targets.all().map((t) => {
      const c = counts.get(t.id);
      const oldest = c?.oldestPendingAt;
      return {
        id: t.id,
        kind: t.kind,
        arn: t.arn,
        queued: c?.pending ?? 0,
        delivered: c?.delivered ?? 0,
        failed: c?.failed ?? 0,
        lastErrorClass: this.opts.repo.lastError(t.id) ?? null,
        oldestPendingAgeSeconds: oldest === undefined ? null : Math.max(0, Math.floor((now - oldest) / 1000)),
      };
    });
  }

  /** Pending, delivered and failed rows by target kind (the store_notification_queue gauge). */
  queueByKind(): { kind: string; status: string; count: number }[] {
    const kinds = new Map(this.opts.targets.all().map((t) => [t.id, t.kind]));
    const out = new Map<string, number>();
    for (const c of this.opts.repo.counts()) {
      const kind = kinds.get(c.targetId);
      if (kind === undefined) continue;
      for (const [status, count] of [
        ['pending', c.pending],
        ['delivered', c.delivered],
        ['failed', c.failed],
      ] as const) {
        out.set(`${kind}\n${status}`, (out.get(`${kind}\n${status}`) ?? 0) + count);
      }
    }
    return [...out].map(([k, count]) => {
      const [kind = '', status = ''] = k.split('\n');
      return { kind, status, count };
    });
  }

  /** A target's dead letters, oldest first. Throws NotFound. */
  deadLetters(targetId: string, after: number, limit: number): NotificationRow[] {
    this.opts.targets.get(targetId);
    return this.opts.repo.failedPage(targetId, after, limit);
  }

  /** Makes a target's dead letters (or one) pending again. Throws NotFound. */
  retry(targetId: string, id?: number): number {
    this.opts.targets.get(targetId);
    const n = this.opts.repo.retryFailed(targetId, this.now(), id);
    if (n > 0) this.onDurable(targetId);
    return n;
  }
}
