// Moves the in-memory request counts to the request_minutes table just after each minute ends, and once more when
// the server stops, so the history loses nothing a clean shutdown could have kept.

import type { Logger } from '../observability/logger.js';
import type { AnalyticsService } from '../services/analytics/analytics-service.js';
import { startLoop, type RunningLoop } from './runner.js';

export interface RequestAnalyticsWorkerOptions {
  analytics: Pick<AnalyticsService, 'flushRequests'>;
  logger: Logger;
  /** Default one minute: the rows' own resolution. */
  intervalMs?: number;
}

export function startRequestAnalyticsWorker(opts: RequestAnalyticsWorkerOptions): RunningLoop {
  const flush = (): void => opts.analytics.flushRequests();
  return startLoop({
    name: 'request-analytics',
    intervalMs: opts.intervalMs ?? 60_000,
    logger: opts.logger,
    aligned: true,
    tick: async () => flush(),
    onStop: flush,
  });
}
