// The webhook runner's scheduling with a stand-in service and real (short) timers: an immediate first run, a
// prompt but coalesced run after commits, sleeping until the next due row (at most the poll interval), pruning,
// and stop() waiting for the run in progress.

import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { startWebhookWorker, type WebhookRunnerService, type WebhookWorker } from './webhook-worker.js';

const logger = pino({ level: 'silent' });
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

class FakeService implements WebhookRunnerService {
  runs = 0;
  prunes = 0;
  due: number | undefined;
  runTime = 0;
  failNext = false;
  /** What idle() waits for: the requests "in flight". */
  inFlight: Promise<void> = Promise.resolve();
  lastSignal: AbortSignal | undefined;
  async poll(signal: AbortSignal): Promise<number> {
    this.runs++;
    this.lastSignal = signal;
    if (this.runTime > 0) await sleep(this.runTime);
    if (this.failNext) {
      this.failNext = false;
      throw new Error('database is locked');
    }
    return 0;
  }
  idle(): Promise<void> {
    return this.inFlight;
  }
  busy = false;
  isBusy(): boolean {
    return this.busy;
  }
  nextDueAt(): number | undefined {
    return this.due;
  }
  prune(): number {
    this.prunes++;
    return 0;
  }
}

let worker: WebhookWorker | undefined;
afterEach(async () => {
  await worker?.stop();
  worker = undefined;
});

/** Polls until `cond` holds (the machine may be loaded: positive checks wait, negative ones keep wide margins). */
async function waitFor(cond: () => boolean, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(5);
  }
}

describe('webhook worker', () => {
  it('runs at once at start (rows left by a crash), then sleeps a poll interval when nothing is pending', async () => {
    const svc = new FakeService();
    const started = Date.now();
    worker = startWebhookWorker({ service: svc, pollMs: 400, logger });
    await waitFor(() => svc.runs === 1);
    expect(Date.now() - started).toBeLessThan(300);
    expect(svc.prunes).toBe(1);
    await sleep(150);
    expect(svc.runs).toBe(1);
    await waitFor(() => svc.runs === 2);
    expect(svc.prunes).toBe(1); // hourly
  });

  it('wakes within the wake delay after a commit, coalescing a burst into one run', async () => {
    const svc = new FakeService();
    worker = startWebhookWorker({ service: svc, pollMs: 60_000, logger, wakeDelayMs: 20 });
    await waitFor(() => svc.runs === 1);
    await sleep(10);
    for (let i = 0; i < 1000; i++) worker.wake();
    await waitFor(() => svc.runs === 2, 1000);
    await sleep(100);
    expect(svc.runs).toBe(2);
  });

  it('runs again right after the current run when woken during it', async () => {
    const svc = new FakeService();
    svc.runTime = 60;
    worker = startWebhookWorker({ service: svc, pollMs: 60_000, logger, wakeDelayMs: 5 });
    await waitFor(() => svc.runs === 1);
    worker.wake();
    worker.wake();
    await waitFor(() => svc.runs === 2, 1000);
    await sleep(150);
    expect(svc.runs).toBe(2);
  });

  it('sleeps until the next due row when it is sooner than the poll interval', async () => {
    const svc = new FakeService();
    const due = Date.now() + 400;
    svc.due = due;
    worker = startWebhookWorker({ service: svc, pollMs: 60_000, logger });
    await waitFor(() => svc.runs === 1);
    svc.due = undefined;
    await sleep(Math.max(0, due - 150 - Date.now()));
    expect(svc.runs).toBe(1);
    await waitFor(() => svc.runs === 2, 3000);
    expect(Date.now()).toBeGreaterThanOrEqual(due);
  });

  it('does not look for the next due row while deliveries are under way (their end wakes it)', async () => {
    const svc = new FakeService();
    svc.busy = true;
    svc.due = Date.now() - 1000;
    worker = startWebhookWorker({ service: svc, pollMs: 300, logger, wakeDelayMs: 5 });
    await waitFor(() => svc.runs === 1);
    await sleep(100);
    expect(svc.runs).toBe(1);
    svc.busy = false;
    worker.wake();
    await waitFor(() => svc.runs === 2, 1000);
  });

  it('waits a whole poll interval after a failed run instead of spinning on a due row', async () => {
    const svc = new FakeService();
    svc.failNext = true;
    svc.due = Date.now() - 1000;
    worker = startWebhookWorker({ service: svc, pollMs: 300, logger, wakeDelayMs: 5 });
    await waitFor(() => svc.runs === 1);
    await sleep(100);
    expect(svc.runs).toBe(1);
    await waitFor(() => svc.runs >= 2);
  });

  it('stop() waits for the run in progress and schedules nothing after', async () => {
    const svc = new FakeService();
    svc.runTime = 400;
    worker = startWebhookWorker({ service: svc, pollMs: 10, logger, wakeDelayMs: 1 });
    await waitFor(() => svc.runs === 1);
    const started = Date.now();
    await worker.stop();
    expect(Date.now() - started).toBeGreaterThanOrEqual(150);
    const runs = svc.runs;
    worker.wake();
    await sleep(60);
    expect(svc.runs).toBe(runs);
  });

  it('stop() aborts the requests in flight and waits for them to settle', async () => {
    const svc = new FakeService();
    worker = startWebhookWorker({ service: svc, pollMs: 60_000, logger });
    await waitFor(() => svc.runs === 1);
    let settled = false;
    svc.inFlight = new Promise<void>((resolve) => {
      svc.lastSignal!.addEventListener('abort', () =>
        setTimeout(() => {
          settled = true;
          resolve();
        }, 100),
      );
    });
    await worker.stop();
    expect(settled).toBe(true);
  });
});
