// Runs a background loop: one tick at a time, on an interval, stopped with a deadline. A failing tick is logged
// and retried on the next interval; it never crashes the process.

import type { Logger } from '../observability/logger.js';

export interface LoopOptions {
  name: string;
  intervalMs: number;
  logger: Logger;
  tick: (signal: AbortSignal) => Promise<void>;
  /**
   * Ticks land just after each multiple of intervalMs on the wall clock (00:15, 00:30, ...) instead of an interval
   * after the previous tick ended: they never drift, so each window of the interval gets exactly one tick while the
   * server is up, and a window without one means it was down (analytics samples).
   */
  aligned?: boolean;
  /** Runs once more after the loop has stopped (a last flush); its failure is logged. */
  onStop?: () => void;
}

export interface RunningLoop {
  /** Stops scheduling, aborts the running tick's signal and waits for it to finish. */
  stop(): Promise<void>;
}

export function startLoop(opts: LoopOptions): RunningLoop {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  const nextDelay = opts.aligned ? alignedDelays(opts.intervalMs) : () => opts.intervalMs;
  const logFailure = (err: unknown): void => opts.logger.error({ err, worker: opts.name }, 'background tick failed');

  const schedule = (): void => {
    if (controller.signal.aborted) return;
    timer = setTimeout(run, nextDelay());
    timer.unref();
  };
  const run = (): void => {
    running = opts
      .tick(controller.signal)
      .catch(logFailure)
      .finally(() => {
        running = undefined;
        schedule();
      });
  };
  schedule();

  return {
    async stop() {
      controller.abort();
      if (timer) clearTimeout(timer);
      await running;
      try {
        opts.onStop?.();
      } catch (err) {
        logFailure(err);
      }
    },
  };
}

/** Delays to just after the next multiple of `intervalMs`, never twice into the same window. */
function alignedDelays(intervalMs: number): () => number {
  // A little after the boundary: Node's timers may fire a millisecond early by the wall clock, which would put the
  // tick (and its timestamp) in the window before.
  const margin = Math.min(50, Math.floor(intervalMs / 20));
  let lastSlot = -Infinity;
  return () => {
    const at = Date.now();
    const slot = Math.max(Math.floor(at / intervalMs) + 1, lastSlot + 1);
    lastSlot = slot;
    return Math.max(0, slot * intervalMs + margin - at);
  };
}
