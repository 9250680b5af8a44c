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
  /** Writes the outbox row and returns its id; called inside the committing transaction. */
  enqueue(event: ObjectEvent): number;
  /** Row `rowId` was committed: deliver it once durable, soon rather than at the next poll. Called once per row. */
  committed(rowId: number): unknown;
}

export interface EventPipelineOptions {
  handlers: EventHandlers;
  /** Resolves once every commit so far is on disk (MetadataStore.durable). */
  durable: () => Promise<void>;
  outbox?: EventOutbox | undefined;
  logger: Logger;
  /**
   * Events waiting for their durability barrier, at most. Only a stalled disk fills this (writers wait on the same
   * barriers); events beyond it are dropped for the in-process handlers, with a warning. Default 10,000.
   */
  maxQueued?: number;
}

export class EventPipeline implements EventSink {
  /** Outbox row ids by event, from inTransaction to afterCommit (an event whose commit rolled back is just dropped). */
  private readonly rowIds = new WeakMap<ObjectEvent, number>();
  private waiting = 0;
  private dropped = 0;
  private readonly maxQueued: number;

  constructor(private readonly opts: EventPipelineOptions) {
    this.maxQueued = opts.maxQueued ?? 10_000;
  }

  inTransaction(event: ObjectEvent): void {
    if (this.opts.outbox?.accepts(event.type)) this.rowIds.set(event, this.opts.outbox.enqueue(event));
  }

  afterCommit(event: ObjectEvent): void {
    try {
      const rowId = this.rowIds.get(event);
      if (rowId !== undefined) this.opts.outbox?.committed(rowId);
      if (this.opts.handlers.has(event.type)) this.dispatchWhenDurable(event);
    } catch (err) {
      // The change is committed whatever happens here: never let a listener's trouble reach the writer.
      this.opts.logger.error({ err }, 'event dispatch failed');
    }
  }

  /**
   * Dispatches once the commit is durable. The barrier is asked for right after the commit, so it is the one the
   * writer's answer waits for as well (no extra fsync), and the handlers run on a later turn of the event loop, after
   * that answer has gone out.
   */
  private dispatchWhenDurable(event: ObjectEvent): void {
    if (this.waiting >= this.maxQueued) {
      if (this.dropped++ === 0) setTimeout(() => this.reportDropped(), 1000).unref();
      return;
    }
    this.waiting++;
    this.opts.durable().then(
      () =>
        setImmediate(() => {
          this.waiting--;
          this.opts.handlers.dispatch(event);
        }),
      (err: unknown) => {
        this.waiting--;
        // The fsync failed: the commit may not survive, so no handler may hear of it (its writer got an error).
        this.opts.logger.error(
          { err, eventType: event.type },
          'durability barrier failed; event dropped for in-process handlers',
        );
      },
    );
  }

  private reportDropped(): void {
    this.opts.logger.warn({ dropped: this.dropped }, 'in-process event queue full; events dropped for handlers');
    this.dropped = 0;
  }
}
