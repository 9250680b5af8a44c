// Where committed changes go: the webhook outbox row in the committing transaction, then, once the commit is
// durable, the in-process handlers. An event never describes a write that a power loss could still undo.

import type { ObjectEvent } from '../../core/object-event.js';
import type { Logger } from '../../observability/logger.js';
import type { EventHandlers } from './event-handlers.js';
import type { EventSink } from './event-sink.js';

/** The durable half: the webhook outbox (WebhookService). */
export interface EventOutbox {
  /** True when events of this type are delivered by webhook. */
  accepts(type: ObjectEvent['type']): boolean;
  /** Writes the outbox row; called inside the committing transaction. */
  enqueue(event: ObjectEvent): void;
  /** A row was committed: deliver soon rather than at the next poll. Cheap; called once per event. */
  committed(): void;
}

export interface EventPipelineOptions {
  handlers: EventHandlers;
  /** Resolves once every commit so far is on disk (MetadataStore.durable). */
  durable: () => Promise<void>;
  outbox?: EventOutbox | undefined;
  logger: Logger;
  /**
   * Events held while waiting for the durability barrier, at most. Only a stalled disk fills this; the events
   * beyond it are dropped for the in-process handlers (logged; the webhook rows are unaffected). Default 10,000.
   */
  maxQueued?: number;
}

export class EventPipeline implements EventSink {
  private queue: ObjectEvent[] = [];
  private flushing = false;
  private dropped = 0;
  private readonly maxQueued: number;

  constructor(private readonly opts: EventPipelineOptions) {
    this.maxQueued = opts.maxQueued ?? 10_000;
  }

  inTransaction(event: ObjectEvent): void {
    if (this.opts.outbox?.accepts(event.type)) this.opts.outbox.enqueue(event);
  }

  afterCommit(event: ObjectEvent): void {
    try {
      if (this.opts.outbox?.accepts(event.type)) this.opts.outbox.committed();
      if (!this.opts.handlers.has(event.type)) return;
      if (this.queue.length >= this.maxQueued) {
        this.dropped++;
        return;
      }
      this.queue.push(event);
      if (!this.flushing) this.flush();
    } catch (err) {
      // The change is committed whatever happens here: never let a listener's trouble reach the writer.
      this.opts.logger.error({ err }, 'event dispatch failed');
    }
  }

  /**
   * One durability barrier per batch: the events committed before it was asked for are dispatched once it resolves
   * (on a later turn of the event loop, so the client's answer, waiting on the same barrier, goes out first). Events
   * committed meanwhile form the next batch, which waits for the next barrier.
   */
  private flush(): void {
    this.flushing = true;
    const batch = this.queue;
    this.queue = [];
    this.opts.durable().then(
      () => setImmediate(() => {
        for (const event of batch) this.opts.handlers.dispatch(event);
        this.next();
      }),
      (err: unknown) => {
        // The fsync failed: these commits may not survive, so no handler may hear of them (their writers got errors).
        this.opts.logger.error({ err, events: batch.length }, 'durability barrier failed; events dropped for in-process handlers');
        this.next();
      },
    );
  }

  private next(): void {
    if (this.dropped > 0) {
      this.opts.logger.warn({ dropped: this.dropped }, 'in-process event queue full; events dropped for handlers');
      this.dropped = 0;
    }
    if (this.queue.length > 0) this.flush();
    else this.flushing = false;
  }
}
