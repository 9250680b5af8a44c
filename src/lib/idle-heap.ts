// One full GC once the process has been idle for a whole interval after a start or a burst of work. Under load V8
// grows the young generation's semi-spaces (to 2 x 16 MiB on 64-bit) and gives the memory back only in a GC that
// runs while allocation is slow, which a server with nothing to do never triggers: an idle server kept 32 MiB of
// young generation and an old generation still sized for its start. The GC costs tens of milliseconds of the event
// loop (a live heap of about 26 MiB), at most once per idle spell. docs/decisions.md, "Idle memory".

import { performance } from 'node:perf_hooks';
import { getHeapStatistics } from 'node:v8';
import { bulkHeapHolders, bulkHeapSettling, runFullGc } from './bulk-heap.js';

/** How long a look at the event loop lasts; a trim needs one whole idle look (V8 weighs its last 5 s of allocation). */
export const IDLE_TRIM_INTERVAL_MS = 10_000;
/** The event loop may be busy this share of a look and still count as idle (background loops' ticks). */
const IDLE_BUSY_SHARE = 0.02;
/** Another trim only once the heap has grown this much since the last one. */
const REGROWTH_BYTES = 4 * 1024 * 1024;

export interface IdleHeapTrim {
  /** How many trims ran. */
  readonly count: number;
  stop(): void;
}

/** Starts looking (an unref'd timer: it never keeps the process alive). */
export function trimHeapWhenIdle(intervalMs = IDLE_TRIM_INTERVAL_MS): IdleHeapTrim {
  let last = performance.eventLoopUtilization();
  let heapAfterTrim: number | undefined;
  let count = 0;
  const timer = setInterval(() => {
    const now = performance.eventLoopUtilization();
    const busyMs = performance.eventLoopUtilization(now, last).active;
    last = now;
    if (busyMs > intervalMs * IDLE_BUSY_SHARE || bulkHeapHolders() > 0 || bulkHeapSettling()) return;
    if (heapAfterTrim !== undefined && getHeapStatistics().total_heap_size < heapAfterTrim + REGROWTH_BYTES) return;
    runFullGc();
    count += 1;
    heapAfterTrim = getHeapStatistics().total_heap_size;
  }, intervalMs);
  timer.unref();
  return {
    get count() {
      return count;
    },
    stop: () => clearInterval(timer),
  };
}
