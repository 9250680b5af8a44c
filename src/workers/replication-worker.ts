// The replication drain loop: a drain every STORE_REPLICATION_DRAIN_INTERVAL_MS, sooner when a change is recorded
// (woken, coalesced over a short delay) or when the last drain claimed a full batch. One drain at a time, so one
// key is never applied twice at once. The first drain runs at start: intents left by a stop or crash go out at boot.

import type { Logger } from '../observability/logger.js';
import type { RunningLoop } from './runner.js';

/** What the loop drives (ReplicationService). */
export interface ReplicationDrainService {
  drainOnce(signal: AbortSignal): Promise<{ claimed: number; failed: number }>;
  nextDueAt(): number | undefined;
  publishCounts(force?: boolean): void;
}

export interface ReplicationWorkerOptions {
  service: ReplicationDrainService;
  intervalMs: number;
  batchKeys: number;
  logger: Logger;
  /** From a wake-up to the drain it triggers (default 50 ms, at most the interval). */
  wakeDelayMs?: number;
}

export interface ReplicationWorker extends RunningLoop {
  wake(): void;
}

export function startReplicationWorker(opts: ReplicationWorkerOptions): ReplicationWorker {
  const wakeDelayMs = Math.min(opts.wakeDelayMs ?? 50, opts.intervalMs);
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let timerAt = Infinity;
  let running: Promise<void> | undefined;
  let rerun = false;

  const arm = (delayMs: number): void => {
    if (controller.signal.aborted) return;
    const at = Date.now() + delayMs;
    if (timer !== undefined && timerAt <= at) return;
    clearTimeout(timer);
    timerAt = at;
    timer = setTimeout(run, delayMs);
    timer.unref();
  };

  const run = (): void => {
    timer = undefined;
    timerAt = Infinity;
    let delay = opts.intervalMs;
    running = opts.service.drainOnce(controller.signal)
      .then((r) => {
        // A full batch means more is due now; otherwise sleep until the next retry is due, at most the interval.
        if (r.claimed >= opts.batchKeys && r.failed < r.claimed) delay = wakeDelayMs;
        const due = opts.service.nextDueAt();
        if (due !== undefined) delay = Math.min(delay, Math.max(wakeDelayMs, due - Date.now()));
      })
      .catch((err: unknown) => opts.logger.error({ err, worker: 'replication' }, 'background tick failed'))
      .finally(() => {
        running = undefined;
        opts.service.publishCounts();
        arm(rerun ? wakeDelayMs : delay);
        rerun = false;
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
