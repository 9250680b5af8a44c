// startLoop with `aligned` ticks just after each multiple of its interval, runs onStop once after stopping, and
// survives a
// failing tick; the request-analytics worker flushes on each tick and once at stop.

import pino from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startLoop } from './runner.js';
import { startRequestAnalyticsWorker } from './request-analytics-worker.js';

const silent = pino({ level: 'silent' });

describe('startLoop, aligned', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('ticks just after each multiple of the interval, keeps going after a failure, and runs onStop once', async () => {
    vi.useFakeTimers({ now: 1_000_030 });
    const ticks: number[] = [];
    let stops = 0;
    const loop = startLoop({
      name: 't',
      intervalMs: 100,
      logger: silent,
      aligned: true,
      tick: async () => {
        ticks.push(Date.now());
        if (ticks.length === 2) throw new Error('boom');
      },
      onStop: () => void stops++,
    });
    await vi.advanceTimersByTimeAsync(1000);
    await loop.stop();
    // The margin after each boundary is min(50, interval / 20) = 5 ms.
    expect(ticks).toEqual([
      1_000_105, 1_000_205, 1_000_305, 1_000_405, 1_000_505, 1_000_605, 1_000_705, 1_000_805, 1_000_905, 1_001_005,
    ]);
    expect(stops).toBe(1);
    await vi.advanceTimersByTimeAsync(1000);
    expect(ticks).toHaveLength(10);
  });

  it('a tick that runs past its window skips to the next boundary, never two ticks in one window', async () => {
    vi.useFakeTimers({ now: 5_000_000 });
    const ticks: number[] = [];
    const loop = startLoop({
      name: 't',
      intervalMs: 100,
      logger: silent,
      aligned: true,
      tick: async () => {
        ticks.push(Date.now());
        if (ticks.length === 1) await new Promise((r) => setTimeout(r, 250));
      },
    });
    await vi.advanceTimersByTimeAsync(700);
    await loop.stop();
    expect(ticks).toEqual([5_000_105, 5_000_405, 5_000_505, 5_000_605]);
    expect(new Set(ticks.map((t) => Math.floor(t / 100))).size).toBe(ticks.length);
  });
});

describe('startRequestAnalyticsWorker', () => {
  it('flushes just after each minute and once more at stop', async () => {
    vi.useFakeTimers({ now: 60_000 * 1000 + 10 });
    try {
      let flushes = 0;
      const worker = startRequestAnalyticsWorker({
        analytics: { flushRequests: () => void flushes++ },
        logger: silent,
      });
      await vi.advanceTimersByTimeAsync(3 * 60_000 + 100);
      expect(flushes).toBe(3);
      await worker.stop();
      expect(flushes).toBe(4);
    } finally {
      vi.useRealTimers();
    }
  });
});
