// The search-index loop: indexes the object rows writers queued for the trigram key index (ObjectSearchService.
// indexPending), in small transactions with a turn of the event loop between them, so requests are never held up.

import { setImmediate as yieldToRequests } from 'node:timers/promises';
import type { Logger } from '../observability/logger.js';
import { INDEX_BATCH, type ObjectSearchService } from '../services/objects/object-search-service.js';
import { startLoop, type RunningLoop } from './runner.js';

export interface SearchIndexWorkerOptions {
  service: ObjectSearchService;
  logger: Logger;
  /** How often an idle loop looks for queued rows. Default 250 ms. */
  intervalMs?: number;
}

/** Starts the loop; each tick indexes until the queue is empty or the loop is stopped. */
export function startSearchIndexWorker(opts: SearchIndexWorkerOptions): RunningLoop {
  return startLoop({
    name: 'search-index',
    intervalMs: opts.intervalMs ?? 250,
    logger: opts.logger,
    tick: async (signal) => {
      while (!signal.aborted && opts.service.indexPending(INDEX_BATCH) === INDEX_BATCH) await yieldToRequests();
    },
  });
}
