// How far V8 lets the old generation grow past its live size before a full GC. Three settings, all process-wide:
//
// 1. While blob bytes are read or written in bulk (every file blob, and inline bodies of 16 KiB or more sealed or
//    opened in memory), and until BULK_HEAP_SETTLE_MS have passed without one: 2.5x (BULK_HEAP_GROWING_PERCENT).
//    Medium objects count too: at 1.3x, 256 KiB GETs at c16 ran a full GC every few dozen requests and cost 4.5 ms
//    of CPU each, 0.9 ms under this setting (docs/performance.md, "Medium objects").
//    node:crypto returns a new buffer for every 64 KiB segment it seals or opens, and V8 counts every byte of
//    ArrayBuffer allocated since the last full GC against the old generation's limit, which it sets from the JS heap
//    alone (about 26 MiB live after boot). At a tight limit a 64 MiB GET ran two or three full GCs, each marking the
//    whole heap on the event loop and on four helper threads: 0.84 ms of helper CPU and about 0.25 ms of event-loop
//    CPU per MB sent. At 2.5x they nearly stop. docs/performance.md, "large GETs were paying for full GCs" (reads)
//    and "the peak RSS was old-generation headroom" (writes).
//    The setting outlasts a transfer by the settle time, so that a full GC finishing in the gap between two large
//    requests (V8 finishes its marking in a task on the event loop, which runs in such gaps) does not set a tight
//    limit.
//
// 2. The rest of the time in `store serve`: 1.3x (SERVER_HEAP_GROWING_PERCENT, set by limitHeapGrowing()).
//    V8's own choice goes up to 4x on a machine with gigabytes of memory when its GCs look cheap next to the
//    allocation rate. 10,000 small PUTs at concurrency 64 promote request garbage that then sat in an old generation
//    of 59-75 MiB (27 MiB live) until the next full GC, and that set the benchmark's peak RSS. At 1.3x it stays under
// 40 MiB, for five more full GCs (about 110 ms) in a 67 s run of the small-object benchmark (docs/performance.md, "the
// peak RSS was old-generation headroom").
//
// 3. When the settle time has passed: setting 2, and one full GC. A full GC that ran during the transfers set the
//    limit at 2.5x, and V8 keeps a limit until its next full GC, so without this the garbage of whatever comes next
//    could fill that headroom. The GC sets the limit again at setting 2.
//
// The factor is read at the end of every full GC, so a change takes effect from the next one; node:v8's
// setFlagsFromString works at run time for this flag on Node 20 and 24. It is process-wide: the worker threads'
// heaps (a few MiB each) follow it too.

import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** The old generation may reach (1 + this / 100) x its live size while a bulk transfer runs. */
export const BULK_HEAP_GROWING_PERCENT = 150;

/** The same outside bulk transfers, once limitHeapGrowing() has been called (`store serve` does). */
export const SERVER_HEAP_GROWING_PERCENT = 30;

/** After the last release, this long without a new hold before the bulk setting ends (with one full GC). */
export const BULK_HEAP_SETTLE_MS = 1000;

/**
 * V8's gc() called without options: a full, synchronous GC on Node 20 and 24. (On Node 20,
 * `gc({ type: 'major', execution: 'sync' })` left an unreachable object uncollected.)
 */
type FullGc = () => void;

/** 0 leaves the choice to V8's own heuristics. */
let basePercent = 0;
let holders = 0;
let settle: NodeJS.Timeout | undefined;
let fullGc: FullGc | undefined;

/** For `store serve`: outside bulk transfers the factor is held at SERVER_HEAP_GROWING_PERCENT, not V8's choice. */
export function limitHeapGrowing(): void {
  basePercent = SERVER_HEAP_GROWING_PERCENT;
  if (holders === 0 && settle === undefined) setGrowingPercent(basePercent);
}

/** Marks a bulk transfer as running until the returned release is called (once; later calls do nothing). */
export function holdBulkHeap(): () => void {
  holders += 1;
  if (holders === 1) {
    // Still settling after the last transfer: the bulk setting is on, and stays.
    if (settle === undefined) setGrowingPercent(BULK_HEAP_GROWING_PERCENT);
    clearTimeout(settle);
    settle = undefined;
  }
  let held = true;
  return () => {
    if (!held) return;
    held = false;
    holders -= 1;
    if (holders > 0) return;
    settle = setTimeout(endBulk, BULK_HEAP_SETTLE_MS);
    settle.unref();
  };
}

/** How many bulk transfers hold the heap setting now. */
export function bulkHeapHolders(): number {
  return holders;
}

/** Whether the bulk setting is waiting out the settle time after the last transfer. */
export function bulkHeapSettling(): boolean {
  return settle !== undefined;
}

function setGrowingPercent(percent: number): void {
  setFlagsFromString(`--heap-growing-percent=${percent}`);
}

function endBulk(): void {
  settle = undefined;
  setGrowingPercent(basePercent);
  runFullGc();
}

/** One full, synchronous GC (V8's own gc(), reached without --expose-gc on the command line: below). */
export function runFullGc(): void {
  fullGc ??= exposeFullGc();
  fullGc();
}

/** V8's gc() without starting node with --expose-gc: a context created while the flag is on gets it. */
function exposeFullGc(): FullGc {
  setFlagsFromString('--expose-gc');
  try {
    return runInNewContext('gc') as FullGc;
  } finally {
    setFlagsFromString('--no-expose-gc');
  }
}
