// The aligned loop ticks just after each multiple of its interval, runs onStop once after stopping, and survives a
// failing tick; the request-analytics worker flushes on each tick and once at stop.

import { setTimeout as sleep } from 'node:timers/promises';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { startAlignedLoop } from './aligned-loop.js';
import { startRequestAnalyticsWorker } from './request-analytics-worker.js';

const silent = pino({ level: 'silent' });

describe('startAlignedLoop', () => {
  it('ticks at multiples of the interval, keeps going after a failure, and runs onStop once', async () => {
    const ticks: number[] = [];
    let stops = 0;
    const loop = startAlignedLoop({
      name: 't', intervalMs: 100, logger: silent,
      tick: async () => {
        ticks.push(Date.now());
        if (ticks.length === 2) throw new Error('boom');
      },
      onStop: () => void stops++,
    });
    await sleep(550);
    await loop.stop();
    expect(ticks.length).toBeGreaterThanOrEqual(3);
    // Each tick lands in its own 100 ms slot, just after its start (a loaded machine may delay a timer a little).
    const slots = ticks.map((t) => Math.floor(t / 100));
    expect(new Set(slots).size).toBe(slots.length);
    for (const t of ticks) expect(t % 100).toBeLessThan(80);
    expect(stops).toBe(1);
    const after = ticks.length;
    await sleep(250);
    expect(ticks.length).toBe(after);
  });
});

describe('startRequestAnalyticsWorker', () => {
  it('flushes on each tick and once more at stop', async () => {
    let flushes = 0;
    const worker = startRequestAnalyticsWorker({ analytics: { flushRequests: () => void flushes++ }, logger: silent, intervalMs: 30 });
    await sleep(100);
    const during = flushes;
    expect(during).toBeGreaterThanOrEqual(2);
    await worker.stop();
    expect(flushes).toBe(during + 1);
  });
});
