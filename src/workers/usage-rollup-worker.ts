// The usage rollup: every USAGE_ROLLUP_INTERVAL_MS, copies each bucket's usage into the per-bucket gauges, so a
// scrape never queries the database, and records it as analytics samples. A deleted bucket's series disappear at the
// next tick. Ticks land on multiples of the interval (runner.ts, `aligned`), so every window of it has one sample while
// the server is up.

import type { Logger } from '../observability/logger.js';
import type { MetricsRegistry } from '../observability/metrics-registry.js';
import type { UsageService } from '../services/usage-service.js';
import { startLoop, type RunningLoop } from './runner.js';

export interface UsageRollupWorkerOptions {
  usage: Pick<UsageService, 'snapshot'>;
  metrics: Pick<MetricsRegistry, 'setBucketUsage'>;
  /** Persists each tick's usage as samples (AnalyticsService.recordUsage); optional so the gauges work alone. */
  samples?: { recordUsage(): void } | undefined;
  intervalMs: number;
  logger: Logger;
}

/** Refreshes the gauges (and records a sample) once now, so they exist from boot, then on every interval. */
export function startUsageRollupWorker(opts: UsageRollupWorkerOptions): RunningLoop {
  const rollup = (): void => {
    opts.metrics.setBucketUsage(opts.usage.snapshot());
    opts.samples?.recordUsage();
  };
  try {
    rollup();
  } catch (err) {
    opts.logger.error({ err, worker: 'usage-rollup' }, 'usage rollup failed');
  }
  return startLoop({
    name: 'usage-rollup',
    intervalMs: opts.intervalMs,
    logger: opts.logger,
    aligned: true,
    tick: async () => rollup(),
  });
}
