// The tiering loops: the tier sweep (lifecycle transitions and ended restores) on the lifecycle interval (sooner while
// a sweep stopped at its budget has more to do), and the
// deletion of remote tier copies whose versions went away, every second. The logic is TierService's.

import type { Logger } from '../observability/logger.js';
import { startLoop, type RunningLoop } from './runner.js';
import { startWakeableLoop } from './wakeable-loop.js';

/** After a sweep that stopped at its budget, the next one comes this soon (it resumes where that one stopped). */
const CONTINUE_MS = 1000;

export interface TierLoopService {
  sweep(
    now: Date,
    signal: AbortSignal,
  ): Promise<{ tiered: number; restubbed: number; failed: number; complete: boolean }>;
  collectRemote(signal: AbortSignal): Promise<number>;
}

export function startTierWorkers(opts: {
  service: TierLoopService;
  sweepIntervalMs: number;
  logger: Logger;
}): RunningLoop[] {
  return [
    startWakeableLoop({
      name: 'tier-sweep',
      wakeDelayMs: CONTINUE_MS,
      failureDelayMs: opts.sweepIntervalMs,
      logger: opts.logger,
      tick: async (signal) => {
        const { complete, ...r } = await opts.service.sweep(new Date(), signal);
        if (r.tiered + r.restubbed + r.failed > 0) opts.logger.info({ worker: 'tier-sweep', ...r }, 'tier sweep');
        return complete ? opts.sweepIntervalMs : Math.min(CONTINUE_MS, opts.sweepIntervalMs);
      },
    }),
    startLoop({
      name: 'tier-gc',
      intervalMs: 1000,
      logger: opts.logger,
      tick: async (signal) => void (await opts.service.collectRemote(signal)),
    }),
  ];
}
