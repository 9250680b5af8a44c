// Composes bucket notifications onto the event seam (services/events/event-sink.ts): the outbox rows are written in
// the transaction that commits each change, beside the webhook row, and tag changes notify too.

import type { ObjectEvent } from '../../core/object-event.js';
import type { RequestOrigins } from '../../lib/request-origin.js';
import type { EventSink, ResidencyChange } from '../events/event-sink.js';
import type { NotificationService } from './notification-service.js';

export class NotificationEventSink implements EventSink {
  constructor(
    private readonly inner: EventSink,
    private readonly notifications: NotificationService,
    private readonly origins: RequestOrigins,
  ) {}

  inTransaction(event: ObjectEvent): void {
    this.inner.inTransaction(event);
    this.notifications.inTransaction(event);
  }

  afterCommit(event: ObjectEvent): void {
    this.inner.afterCommit(event);
    this.notifications.afterCommit();
  }

  tagsChanged(bucket: string, key: string): void {
    this.inner.tagsChanged?.(bucket, key);
    this.notifications.tagsChanged(bucket, key);
  }

  aclChanged(bucket: string, key: string): void {
    this.inner.aclChanged?.(bucket, key);
  }

  residencyChanged(change: ResidencyChange): void {
    this.inner.residencyChanged?.(change);
    this.notifications.residencyChanged(change);
  }

  bindToCaller<T>(fn: () => T): () => T {
    const bound = this.inner.bindToCaller?.(fn) ?? fn;
    return this.origins.bind(bound);
  }
}
