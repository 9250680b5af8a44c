// While large blobs are read, V8 may let the old generation grow to 2.5x its live size before a full GC, instead of
// its own choice (1.1x here).
//
// Why: node:crypto returns a new buffer for every 64 KiB segment it decrypts, and V8 counts every byte of ArrayBuffer
// allocated since the last full GC against the old generation's limit, which it sets from the JS heap alone (about
// 26 MiB live after boot, so a limit near 50 MiB). A 64 MiB GET ran two or three full GCs, each marking the whole
// heap on the event loop and on four helper threads: 0.84 ms of helper CPU and about 0.25 ms of event-loop CPU per MB
// sent. At 2.5x the full GCs nearly stop while large GETs run.
//
// Only reads hold it. Holding it for large writes too made 64 MiB PUTs and multipart uploads faster as well, but
// raised the benchmark's peak RSS by 10-25 MiB (the garbage of a PUT is twice a GET's: socket chunks and
// ciphertext), over the 256 MiB budget. docs/performance.md, "Round 6", has the measurements. Writes no longer need
// it: their full GCs came from the MD5 threads' 1 MiB batches, fresh for every upload, and stopped when the batches
// were reused (lib/hash-pool.ts; "Round 9": five multipart uploads ran 53 full GCs before, 2 after, and holding the
// factor as well gained nothing more).
//
// The factor is read at the end of every full GC, so a change takes effect from the next one; node:v8's
// setFlagsFromString works at run time for this flag on Node 20 and 24. It is process-wide: the worker threads'
// heaps (a few MiB each) follow it too.

import { setFlagsFromString } from 'node:v8';

/** The old generation may reach (1 + this / 100) x its live size while a bulk read runs. */
export const BULK_HEAP_GROWING_PERCENT = 150;

let holders = 0;

/** Marks a bulk read as running until the returned release is called (once; later calls do nothing). */
export function holdBulkHeap(): () => void {
  holders += 1;
  if (holders === 1) setFlagsFromString(`--heap-growing-percent=${BULK_HEAP_GROWING_PERCENT}`);
  let held = true;
  return () => {
    if (!held) return;
    held = false;
    holders -= 1;
    // 0 gives the choice back to V8's own heuristics.
    if (holders === 0) setFlagsFromString('--heap-growing-percent=0');
  };
}

/** How many bulk reads hold the heap setting now. */
export function bulkHeapHolders(): number {
  return holders;
}
