// The replication drain loop: a drain every STORE_REPLICATION_DRAIN_INTERVAL_MS, sooner when a change is recorded
// (woken, coalesced over a short delay) or when the last drain claimed a full batch. One drain at a time, so one
// key is never applied twice at once. The first drain runs at start: intents left by a stop or crash go out at boot.

import type { Logger } from '../observability/logger.js';
import { startWakeableLoop, type WakeableLoop } from './wakeable-loop.js';

/** What the loop drives (ReplicationService). */
export interface ReplicationDrainService {
  drainOnce(signal: AbortSignal): Promise<{ claimed: number; failed: number }>;
  nextDueAt(): number | undefined;
  publishCounts(force?: boolean): void;
}

export interface ReplicationWorkerOptions {
  service: ReplicationDrainService;
  intervalMs: number;
  batchKeys: number;
  logger: Logger;
  /** From a wake-up to the drain it triggers (default 50 ms, at most the interval). */
  wakeDelayMs?: number;
}

export type ReplicationWorker = WakeableLoop;

export function startReplicationWorker(opts: ReplicationWorkerOptions): ReplicationWorker {
  const wakeDelayMs = Math.min(opts.wakeDelayMs ?? 50, opts.intervalMs);
  return startWakeableLoop({
    name: 'replication',
    logger: opts.logger,
    wakeDelayMs,
    failureDelayMs: opts.intervalMs,
    afterTick: () => opts.service.publishCounts(),
    tick: async (signal) => {
      const r = await opts.service.drainOnce(signal);
      // A full batch means more is due now; otherwise sleep until the next retry is due, at most the interval.
      let delay = r.claimed >= opts.batchKeys && r.failed < r.claimed ? wakeDelayMs : opts.intervalMs;
      const due = opts.service.nextDueAt();
      if (due !== undefined) delay = Math.min(delay, Math.max(wakeDelayMs, due - Date.now()));
      return delay;
    },
  });
}
