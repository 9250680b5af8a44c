// Runs a background loop: one tick at a time, on an interval, stopped with a deadline. A failing tick is logged
// and retried on the next interval; it never crashes the process.

import type { Logger } from '../observability/logger.js';

export interface LoopOptions {
  name: string;
  intervalMs: number;
  logger: Logger;
  tick: (signal: AbortSignal) => Promise<void>;
}

export interface RunningLoop {
  /** Stops scheduling, aborts the running tick's signal and waits for it to finish. */
  stop(): Promise<void>;
}

export function startLoop(opts: LoopOptions): RunningLoop {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;

  const schedule = (): void => {
    if (controller.signal.aborted) return;
    timer = setTimeout(run, opts.intervalMs);
    timer.unref();
  };
  const run = (): void => {
    running = opts
      .tick(controller.signal)
      .catch((err: unknown) => opts.logger.error({ err, worker: opts.name }, 'background tick failed'))
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
    },
  };
}
