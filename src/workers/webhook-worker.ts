// The webhook runner: delivers due outbox rows (WebhookService.deliverDue), then sleeps until the next row is due,
// at most WEBHOOK_POLL_MS. A commit wakes it early (coalesced: a burst of commits costs one run per wake delay), so
// delivery does not wait a whole poll interval. Prunes delivered and failed rows once an hour.

import type { Logger } from '../observability/logger.js';
import type { DeliveryRun } from '../services/events/webhook-service.js';
import type { RunningLoop } from './runner.js';

/** What the worker drives (WebhookService). */
export interface WebhookRunnerService {
  deliverDue(signal: AbortSignal): Promise<DeliveryRun>;
  nextDueAt(): number | undefined;
  prune(): number;
}

export interface WebhookWorkerOptions {
  service: WebhookRunnerService;
  pollMs: number;
  logger: Logger;
  /** From a commit to the run it triggers; coalesces bursts. Default 10 ms. */
  wakeDelayMs?: number;
  /** Default one hour. */
  pruneEveryMs?: number;
}

export interface WebhookWorker extends RunningLoop {
  /** A row was committed: run soon (within wakeDelayMs, or right after the run in progress). */
  wake(): void;
}

/** Starts the runner; its first run is immediate, so rows left by a crash or a stop go out at boot. */
export function startWebhookWorker(opts: WebhookWorkerOptions): WebhookWorker {
  const wakeDelayMs = opts.wakeDelayMs ?? 10;
  const pruneEveryMs = opts.pruneEveryMs ?? 3_600_000;
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let timerAt = Infinity;
  let running: Promise<void> | undefined;
  let rerun = false;
  let lastPrune = -Infinity;

  /** Schedules a run in `delayMs`, unless one is already scheduled sooner. */
  const arm = (delayMs: number): void => {
    if (controller.signal.aborted) return;
    const at = Date.now() + delayMs;
    if (timer !== undefined && timerAt <= at) return;
    clearTimeout(timer);
    timerAt = at;
    timer = setTimeout(run, delayMs);
    timer.unref();
  };

  /** Until the next pending row is due, within [wakeDelayMs, pollMs]. */
  const nextDelay = (): number => {
    const due = opts.service.nextDueAt();
    if (due === undefined) return opts.pollMs;
    return Math.min(opts.pollMs, Math.max(wakeDelayMs, due - Date.now()));
  };

  const tick = async (): Promise<void> => {
    if (Date.now() - lastPrune >= pruneEveryMs) {
      lastPrune = Date.now();
      const pruned = opts.service.prune();
      if (pruned > 0) opts.logger.info({ worker: 'webhooks', pruned }, 'pruned delivered and failed webhook rows');
    }
    const result = await opts.service.deliverDue(controller.signal);
    if (result.failed > 0) opts.logger.warn({ worker: 'webhooks', ...result }, 'webhook rows dead-lettered');
  };

  const run = (): void => {
    timer = undefined;
    timerAt = Infinity;
    let failed = false;
    running = tick()
      .catch((err: unknown) => {
        failed = true;
        opts.logger.error({ err, worker: 'webhooks' }, 'background tick failed');
      })
      .finally(() => {
        running = undefined;
        // After a failed run (the database, not a receiver) wait a whole poll rather than spin on a due row.
        const delay = failed ? opts.pollMs : rerun ? wakeDelayMs : nextDelay();
        rerun = false;
        arm(delay);
      });
  };

  arm(0);

  return {
    wake() {
      if (running) rerun = true;
      else arm(wakeDelayMs);
    },
    async stop() {
      controller.abort();
      clearTimeout(timer);
      timer = undefined;
      await running;
    },
  };
}
