// The webhook runner: claims due outbox rows and starts their delivery (WebhookService.poll), then sleeps until the
// next row is due, at most WEBHOOK_POLL_MS. A commit, or the requests in flight finishing with nothing left claimed,
// wakes it early (coalesced: a burst costs one poll per wake delay), so delivery does not wait a whole poll interval
// and never waits for a slow receiver's other requests. Prunes delivered and failed rows once an hour.

import type { Logger } from '../observability/logger.js';
import { startWakeableLoop, type WakeableLoop } from './wakeable-loop.js';

/** What the worker drives (WebhookService). */
export interface WebhookRunnerService {
  /** Claims due rows and starts sending; resolves once started. */
  poll(signal: AbortSignal): Promise<number>;
  /** Resolves once no request is in flight. */
  idle(): Promise<void>;
  /** True while deliveries are under way (the service wakes the worker when they are done). */
  isBusy(): boolean;
  nextDueAt(): number | undefined;
  prune(): number;
}

export interface WebhookWorkerOptions {
  service: WebhookRunnerService;
  pollMs: number;
  logger: Logger;
  /** From a wake-up to the poll it triggers; coalesces bursts. Default 10 ms. */
  wakeDelayMs?: number;
  /** Default one hour. */
  pruneEveryMs?: number;
}

export type WebhookWorker = WakeableLoop;

/** Starts the runner; its first poll is immediate, so rows left by a crash or a stop go out at boot. */
export function startWebhookWorker(opts: WebhookWorkerOptions): WebhookWorker {
  const wakeDelayMs = opts.wakeDelayMs ?? 50;
  const pruneEveryMs = opts.pruneEveryMs ?? 3_600_000;
  let lastPrune = -Infinity;

  /** Until the next unclaimed pending row is due, within [wakeDelayMs, pollMs]; a busy service wakes us itself. */
  const nextDelay = (): number => {
    if (opts.service.isBusy()) return opts.pollMs;
    const due = opts.service.nextDueAt();
    if (due === undefined) return opts.pollMs;
    return Math.min(opts.pollMs, Math.max(wakeDelayMs, due - Date.now()));
  };

  const loop = startWakeableLoop({
    name: 'webhooks',
    logger: opts.logger,
    wakeDelayMs,
    // After a failed poll (the database, not a receiver) wait a whole interval rather than spin on a due row.
    failureDelayMs: opts.pollMs,
    tick: async (signal) => {
      if (Date.now() - lastPrune >= pruneEveryMs) {
        lastPrune = Date.now();
        const pruned = opts.service.prune();
        if (pruned > 0) opts.logger.info({ worker: 'webhooks', pruned }, 'pruned delivered and failed webhook rows');
      }
      await opts.service.poll(signal);
      return nextDelay();
    },
  });

  return {
    wake: () => loop.wake(),
    async stop() {
      await loop.stop();
      // The abort cancels requests in flight (not counted as attempts); wait for them to settle.
      await opts.service.idle();
    },
  };
}
