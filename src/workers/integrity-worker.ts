// The integrity scrubber's loop: one IntegrityService.tick every STORE_INTEGRITY_SCRUB_INTERVAL_MS (the next tick is
// an interval after the previous one ended, so a slow disk slows the scrub instead of stacking ticks). It always
// runs: with the scrubber disabled a tick only picks up a manual pass, and costs nothing otherwise.

import type { Logger } from '../observability/logger.js';
import type { IntegrityService } from '../services/integrity/integrity-service.js';
import { startLoop, type RunningLoop } from './runner.js';

export interface IntegrityWorkerOptions {
  service: Pick<IntegrityService, 'tick' | 'close' | 'pushMetrics'>;
  intervalMs: number;
  logger: Logger;
}

export function startIntegrityWorker(opts: IntegrityWorkerOptions): RunningLoop {
  try {
    opts.service.pushMetrics();
  } catch (err) {
    opts.logger.error({ err, worker: 'integrity' }, 'integrity gauges could not be read');
  }
  return startLoop({
    name: 'integrity',
    intervalMs: opts.intervalMs,
    logger: opts.logger,
    tick: (signal) => opts.service.tick(signal),
    onStop: () => opts.service.close(),
  });
}
