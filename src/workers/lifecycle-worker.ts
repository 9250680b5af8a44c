// The lifecycle loop: every STORE_LIFECYCLE_INTERVAL_MS, LifecycleService.runOnce until a pass completes, pausing
// between budget-bounded runs so a large backlog is worked off steadily without starving client requests.

import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../observability/logger.js';
import type { LifecycleRunResult, LifecycleService } from '../services/lifecycle-service.js';
import { startLoop, type RunningLoop } from './runner.js';

export interface LifecycleWorkerOptions {
  service: LifecycleService;
  intervalMs: number;
  logger: Logger;
  /** The clock rules are evaluated against (injected by tests). */
  now?: () => Date;
  /** Pause between runs of one pass when a run stopped at its action budget. Default 200 ms. */
  pauseMs?: number;
}

/** Starts the loop; its first pass runs one interval after start. */
export function startLifecycleWorker(opts: LifecycleWorkerOptions): RunningLoop {
  const now = opts.now ?? (() => new Date());
  const pauseMs = opts.pauseMs ?? 200;
  return startLoop({
    name: 'lifecycle',
    intervalMs: opts.intervalMs,
    logger: opts.logger,
    tick: async (signal) => {
      const total = emptyTotals();
      for (;;) {
        const result = await opts.service.runOnce(now(), signal);
        add(total, result);
        if (result.complete || signal.aborted) break;
        await sleep(pauseMs, undefined, { signal }).catch(() => undefined);
      }
      const acted = total.expired + total.noncurrentDeleted + total.deleteMarkersRemoved + total.uploadsAborted;
      if (acted > 0 || total.skippedLocked > 0 || total.failed > 0) {
        opts.logger.info({ worker: 'lifecycle', ...total }, 'lifecycle pass applied rules');
      }
    },
  });
}

type Totals = Omit<LifecycleRunResult, 'complete'>;

function emptyTotals(): Totals {
  return { expired: 0, noncurrentDeleted: 0, deleteMarkersRemoved: 0, uploadsAborted: 0, skippedLocked: 0, failed: 0 };
}

function add(total: Totals, run: LifecycleRunResult): void {
  for (const key of Object.keys(total) as (keyof Totals)[]) total[key] += run[key];
}
