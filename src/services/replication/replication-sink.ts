// Composes the replication outbox onto the event seam every committed object change already passes through
// (object service: put, copy, delete, batch delete; multipart completion; lifecycle expirations; the admin API;
// restores): the intent is written in the same transaction as the change, beside the webhook outbox row.

import type { ObjectEvent } from '../../core/object-event.js';
import type { EventSink, ResidencyChange } from '../events/event-sink.js';
import type { IntentKind } from '../../storage/db/replication-outbox-repo.js';

/** What the sink tells replication (ReplicationService.recordChange). */
export interface ChangeRecorder {
  recordChange(bucket: string, key: string, kind: IntentKind): void;
}

export class ReplicationEventSink implements EventSink {
  constructor(
    private readonly inner: EventSink,
    private readonly replication: ChangeRecorder,
  ) {}

  inTransaction(event: ObjectEvent): void {
    this.inner.inTransaction(event);
    this.replication.recordChange(event.bucket, event.key, 'object');
  }

  afterCommit(event: ObjectEvent): void {
    this.inner.afterCommit(event);
  }

  bindToCaller<T>(fn: () => T): () => T {
    return this.inner.bindToCaller?.(fn) ?? fn;
  }

  /** Where a version's bytes live is this instance's own business: nothing to replicate. */
  residencyChanged(change: ResidencyChange): void {
    this.inner.residencyChanged?.(change);
  }

  tagsChanged(bucket: string, key: string): void {
    this.inner.tagsChanged?.(bucket, key);
    this.replication.recordChange(bucket, key, 'tags');
  }

  /** An ACL change travels as a metadata intent, like tags (apply() sends both). */
  aclChanged(bucket: string, key: string): void {
    this.inner.aclChanged?.(bucket, key);
    this.replication.recordChange(bucket, key, 'tags');
  }
}
