// The tiering loops: the tier sweep (lifecycle transitions and ended restores) on the lifecycle interval, and the
// deletion of remote tier copies whose versions went away, every second. The logic is TierService's.

import type { Logger } from '../observability/logger.js';
import { startLoop, type RunningLoop } from './runner.js';

export interface TierLoopService {
  sweep(now: Date, signal: AbortSignal): Promise<{ tiered: number; restubbed: number; failed: number }>;
  collectRemote(signal: AbortSignal): Promise<number>;
}

export function startTierWorkers(opts: { service: TierLoopService; sweepIntervalMs: number; logger: Logger }): RunningLoop[] {
  return [
    startLoop({
      name: 'tier-sweep', intervalMs: opts.sweepIntervalMs, logger: opts.logger,
      tick: async (signal) => {
        const r = await opts.service.sweep(new Date(), signal);
        if (r.tiered + r.restubbed + r.failed > 0) opts.logger.info({ worker: 'tier-sweep', ...r }, 'tier sweep');
      },
    }),
    startLoop({ name: 'tier-gc', intervalMs: 1000, logger: opts.logger, tick: async (signal) => void (await opts.service.collectRemote(signal)) }),
  ];
}
