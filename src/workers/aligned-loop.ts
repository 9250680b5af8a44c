// A background loop whose ticks land just after each multiple of its interval on the wall clock (00:15, 00:30, ...),
// not an interval after the previous tick ended: ticks never drift, so each window of the interval gets exactly one
// while the server is up, and a window without one means the server was down.

import type { Logger } from '../observability/logger.js';
import type { LoopOptions, RunningLoop } from './runner.js';

export interface AlignedLoopOptions extends LoopOptions {
  /** The wall clock (tests); Date.now otherwise. */
  now?: () => number;
  /** Runs once more after the loop has stopped (a last flush); its failure is logged. */
  onStop?: () => void;
}

/** Starts the loop; the first tick is at the next multiple of intervalMs. A failing tick is logged and retried at the next. */
export function startAlignedLoop(opts: AlignedLoopOptions): RunningLoop {
  const now = opts.now ?? Date.now;
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;

  // A little after the boundary: Node's timers may fire a millisecond early by the wall clock, which would put the
  // tick (and its timestamp) in the window before.
  const margin = Math.min(50, Math.floor(opts.intervalMs / 20));
  let lastSlot = -Infinity;
  const schedule = (): void => {
    if (controller.signal.aborted) return;
    const at = now();
    // The next slot, and never the one just ticked in again.
    const slot = Math.max(Math.floor(at / opts.intervalMs) + 1, lastSlot + 1);
    lastSlot = slot;
    timer = setTimeout(run, Math.max(0, slot * opts.intervalMs + margin - at));
    timer.unref();
  };
  const run = (): void => {
    running = opts
      .tick(controller.signal)
      .catch((err: unknown) => logFailure(opts.logger, opts.name, err))
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
        logFailure(opts.logger, opts.name, err);
      }
    },
  };
}

function logFailure(logger: Logger, name: string, err: unknown): void {
  logger.error({ err, worker: name }, 'background tick failed');
}
