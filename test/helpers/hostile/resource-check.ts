// Leak checks of a hostile run: before (after the warm-up, connections closed) and after (after the read-back,
// connections closed) the server must hold no staging file, no pinned blob, no more descriptors than a small
// tolerance, and about the same memory; and it must never have answered an internal error.

import type { RunningServer } from '../server.js';
import {
  leakableFds,
  openFds,
  pinsAndErrors,
  pollUntil,
  readResources,
  rssMiB,
  settledFds,
  stagingFiles,
  type Resources,
} from './server-resources.js';
import type { Violations } from './violations.js';

/** Sockets and files the server may hold beyond its count before the run: a lazily opened file, a lingering socket. */
const FD_TOLERANCE = 4;
/** RSS after the run may exceed its value after the warm-up by at most this much (the 20%). */
const RSS_GROWTH = 1.2;

export interface ResourceReport {
  before: Resources;
  after: Resources;
  line: string;
}

/** The server's resources after the warm-up, once its connections and staged files are let go. */
export async function measureBaseline(server: RunningServer): Promise<Resources> {
  await pollUntil(
    () => stagingFiles(server).length,
    (n) => n === 0,
    { ms: 10_000 },
  );
  await settledFds(server.process.pid as number, { ms: 10_000 });
  return readResources(server);
}

/**
 * Compares the server's resources with `baseline`, waiting for each to come back (the server closes lingering sockets
 * within 5 s; V8 gives memory back when its memory reducer runs after the load stops, within tens of seconds: the
 * server has no forced GC, so RSS is polled for up to a minute and the lowest value seen counts).
 */
export async function checkResources(
  server: RunningServer,
  opts: { baseline: Resources; violations: Violations },
): Promise<ResourceReport> {
  const { baseline: before, violations } = opts;
  const pid = server.process.pid as number;
  const fail = (invariant: string, detail: string): void => violations.add({ invariant, op: '-', fault: '-', detail });

  const staged = await pollUntil(
    () => stagingFiles(server),
    (files) => files.length === 0,
    { ms: 15_000 },
  );
  if (staged.length > 0)
    fail('no-staging-leak', `${staged.length} staging files left in DATA_DIR/tmp: ${staged.slice(0, 5).join(', ')}`);
  const metrics = await pollUntil(
    () => pinsAndErrors(server),
    (m) => m.readPins === 0,
    { ms: 10_000 },
  );
  if (metrics.readPins !== 0)
    fail('no-pin-leak', `store_blob_read_pins is ${metrics.readPins} with no read in progress`);
  if (metrics.internalErrors !== 0)
    fail('no-internal-errors', `store_internal_errors_total is ${metrics.internalErrors}`);
  // Sockets and files, not every descriptor: a thread started on first use during the run keeps its loop's (CI saw
  // 32 -> 37 with the checkpointer's thread starting mid-run); a leaked connection or file handle is a socket or a
  // file.
  const leakable = await pollUntil(
    () => leakableFds(pid),
    (n) => n <= before.requestFds + FD_TOLERANCE,
    { ms: 15_000 },
  );
  const fds = openFds(pid);
  if (leakable > before.requestFds + FD_TOLERANCE) {
    fail(
      'no-fd-leak',
      `the server holds ${leakable} sockets and files, ${before.requestFds} before the run (tolerance ${FD_TOLERANCE}; ${fds} descriptors in all)`,
    );
  }
  // A FileHandle nobody closed is closed by the garbage collector, which Node reports: a leak the count may not show.
  const gcClosed = server
    .output()
    .split('\n')
    .filter((l) => l.includes('Closing file descriptor') && l.includes('on garbage collection'));
  if (gcClosed.length > 0)
    fail(
      'no-fd-leak',
      `${gcClosed.length} file handles were never closed (Node closed them on garbage collection): ${gcClosed[0]}`,
    );
  const limit = before.rssMiB * RSS_GROWTH;
  let lowest = Number.POSITIVE_INFINITY;
  await pollUntil(
    () => (lowest = Math.min(lowest, rssMiB(pid))),
    (rss) => rss <= limit,
    { ms: 60_000, everyMs: 500 },
  );
  if (lowest > limit) {
    fail(
      'rss-returns',
      `RSS stayed at ${lowest.toFixed(1)} MiB, over ${limit.toFixed(1)} MiB (${before.rssMiB.toFixed(1)} MiB after the warm-up + 20%)`,
    );
  }

  const after: Resources = {
    fds,
    requestFds: leakable,
    rssMiB: lowest,
    stagingFiles: staged.length,
    readPins: metrics.readPins,
    internalErrors: metrics.internalErrors,
  };
  const line =
    `sockets and files ${before.requestFds}->${leakable} (tolerance ${FD_TOLERANCE}), fds ${before.fds}->${fds}; staging ${before.stagingFiles}->${staged.length}; ` +
    `read pins ${before.readPins}->${metrics.readPins}; internal errors ${metrics.internalErrors}; ` +
    `RSS ${before.rssMiB.toFixed(1)}->${lowest.toFixed(1)} MiB (limit ${limit.toFixed(1)})`;
  return { before, after, line };
}
