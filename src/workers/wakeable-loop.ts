// A background loop that can be woken early: each tick says how long to sleep before the next, a wake() brings the
// next tick forward to within wakeDelayMs (coalescing a burst of wake-ups into one tick), and a wake-up during a tick
// runs another tick right after it. One tick at a time; the first runs at start. Used by the outbox drains
// (webhooks, replication), whose work arrives with commits but must also be retried on a schedule.

import type { Logger } from '../observability/logger.js';
import type { RunningLoop } from './runner.js';

export interface WakeableLoopOptions {
  name: string;
  logger: Logger;
  /** From a wake-up to the tick it triggers. */
  wakeDelayMs: number;
  /** One tick; resolves with the delay (ms) before the next one. */
  tick: (signal: AbortSignal) => Promise<number>;
  /** The delay after a tick that threw (the failure is logged): long enough not to spin on the same failure. */
  failureDelayMs: number;
  /** Runs after every tick, whatever its outcome. */
  afterTick?: () => void;
}

export interface WakeableLoop extends RunningLoop {
  /** Something may be due: tick soon (within wakeDelayMs, or right after the tick in progress). */
  wake(): void;
}

export function startWakeableLoop(opts: WakeableLoopOptions): WakeableLoop {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let timerAt = Infinity;
  let running: Promise<void> | undefined;
  let rerun = false;

  /** Schedules a tick in `delayMs`, unless one is already scheduled sooner. */
  const arm = (delayMs: number): void => {
    if (controller.signal.aborted) return;
    const at = Date.now() + delayMs;
    if (timer !== undefined && timerAt <= at) return;
    clearTimeout(timer);
    timerAt = at;
    timer = setTimeout(run, delayMs);
    timer.unref();
  };

  const run = (): void => {
    timer = undefined;
    timerAt = Infinity;
    let delay = opts.failureDelayMs;
    running = opts
      .tick(controller.signal)
      .then((next) => {
        delay = next;
      })
      .catch((err: unknown) => opts.logger.error({ err, worker: opts.name }, 'background tick failed'))
      .finally(() => {
        running = undefined;
        opts.afterTick?.();
        arm(rerun ? opts.wakeDelayMs : delay);
        rerun = false;
      });
  };

  arm(0);

  return {
    wake() {
      if (running) rerun = true;
      else arm(opts.wakeDelayMs);
    },
    async stop() {
      controller.abort();
      clearTimeout(timer);
      timer = undefined;
      await running;
    },
  };
}
