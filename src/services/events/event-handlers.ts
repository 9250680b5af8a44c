// In-process event handlers (SPEC "In-process handlers"): registration by kind, and fire-and-forget dispatch. A
// handler that throws or rejects is logged and dropped; one that never settles is simply not waited for.

import type { ObjectEvent, ObjectEventType } from '../../core/object-event.js';
import type { Logger } from '../../observability/logger.js';

/** A handler receives a frozen event; its return value (a promise or anything) is never awaited. */
export type ObjectEventHandler<T extends ObjectEventType = ObjectEventType> = (
  event: Readonly<ObjectEvent<T>>,
) => unknown;

/**
 * The registration API an embedder gets as `App.events` (docs/events.md). Each call returns an unsubscribe function.
 */
export interface ObjectEventRegistry {
  /** After a committed PutObject, CopyObject, POST upload or admin write. */
  onObjectCreated(handler: ObjectEventHandler<'object.created'>): () => void;
  /** After a committed DeleteObject, each key of a DeleteObjects, a delete marker, or a lifecycle expiration. */
  onObjectDeleted(handler: ObjectEventHandler<'object.deleted'>): () => void;
  /** After a committed CompleteMultipartUpload. */
  onMultipartCompleted(handler: ObjectEventHandler<'multipart.completed'>): () => void;
}

export class EventHandlers implements ObjectEventRegistry {
  private readonly byType = new Map<ObjectEventType, ObjectEventHandler[]>();

  constructor(private readonly logger: Logger) {}

  onObjectCreated(handler: ObjectEventHandler<'object.created'>): () => void {
    return this.add('object.created', handler as ObjectEventHandler);
  }

  onObjectDeleted(handler: ObjectEventHandler<'object.deleted'>): () => void {
    return this.add('object.deleted', handler as ObjectEventHandler);
  }

  onMultipartCompleted(handler: ObjectEventHandler<'multipart.completed'>): () => void {
    return this.add('multipart.completed', handler as ObjectEventHandler);
  }

  /** True when some handler listens for this type (so nothing is queued for events nobody wants). */
  has(type: ObjectEventType): boolean {
    return (this.byType.get(type)?.length ?? 0) > 0;
  }

  /**
   * Calls every handler of the event's type, synchronously, in registration order, each with the same frozen
   * event. Returns without waiting for any of them; nothing keeps a reference to what they return beyond the
   * rejection handler attached to it, so a promise that never settles is garbage like any other.
   */
  dispatch(event: ObjectEvent): void {
    const handlers = this.byType.get(event.type);
    if (!handlers || handlers.length === 0) return;
    const frozen = Object.freeze({ ...event });
    for (const handler of [...handlers]) {
      try {
        const result = handler(frozen);
        if (isThenable(result)) result.then(undefined, (err: unknown) => this.failed(frozen, err));
      } catch (err) {
        this.failed(frozen, err);
      }
    }
  }

  private add(type: ObjectEventType, handler: ObjectEventHandler): () => void {
    const list = this.byType.get(type) ?? [];
    list.push(handler);
    this.byType.set(type, list);
    return () => {
      const i = list.indexOf(handler);
      if (i >= 0) list.splice(i, 1);
    };
  }

  private failed(event: Readonly<ObjectEvent>, err: unknown): void {
    // The key stays out of the log line: it is user data, and the bucket and type are enough to find the handler.
    this.logger.warn(
      { err, eventType: event.type, bucket: event.bucket },
      'event handler failed; the event is dropped for it',
    );
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}
