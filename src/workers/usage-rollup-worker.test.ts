// The usage rollup copies the committed usage into the per-bucket gauges at start and on every tick; a deleted
// bucket's series are gone after the next tick, and a failing read is logged without stopping the loop.

import { setTimeout as sleep } from 'node:timers/promises';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { MetricsRegistry } from '../observability/metrics-registry.js';
import type { BucketUsageRow } from '../services/usage-service.js';
import { startUsageRollupWorker } from './usage-rollup-worker.js';

const silent = pino({ level: 'silent' });

/** The per-bucket sample lines of a scrape. */
async function bucketLines(metrics: MetricsRegistry): Promise<string[]> {
  return (await metrics.scrape()).split('\n').filter((l) => /^store_(storage_bytes|object_count)\{/.test(l));
}

async function until(check: () => Promise<boolean>, ms = 2000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(5);
  }
}

describe('startUsageRollupWorker', () => {
  it('fills the gauges at start, follows changes on each tick and evicts a deleted bucket', async () => {
    let rows: BucketUsageRow[] = [
      { bucket: 'alpha', bytes: 10, objects: 2 },
      { bucket: 'beta', bytes: 5, objects: 1 },
    ];
    let reads = 0;
    const metrics = new MetricsRegistry();
    const loop = startUsageRollupWorker({
      usage: {
        snapshot: () => {
          reads++;
          return rows;
        },
      },
      metrics,
      intervalMs: 10,
      logger: silent,
    });
    try {
      expect(reads).toBe(1);
      expect(await bucketLines(metrics)).toEqual([
        'store_storage_bytes{bucket="alpha"} 10',
        'store_storage_bytes{bucket="beta"} 5',
        'store_object_count{bucket="alpha"} 2',
        'store_object_count{bucket="beta"} 1',
      ]);
      rows = [{ bucket: 'alpha', bytes: 12, objects: 3 }];
      await until(async () => (await bucketLines(metrics)).length === 2);
      expect(await bucketLines(metrics)).toEqual([
        'store_storage_bytes{bucket="alpha"} 12',
        'store_object_count{bucket="alpha"} 3',
      ]);
    } finally {
      await loop.stop();
    }
  });

  it('reads nothing at scrape time: scrapes between ticks do not call the usage source', async () => {
    let reads = 0;
    const metrics = new MetricsRegistry();
    const loop = startUsageRollupWorker({
      usage: {
        snapshot: () => {
          reads++;
          return [];
        },
      },
      metrics,
      intervalMs: 60_000,
      logger: silent,
    });
    try {
      for (let i = 0; i < 5; i++) await metrics.scrape();
      expect(reads).toBe(1);
    } finally {
      await loop.stop();
    }
  });

  it('logs a failing read and recovers on a later tick', async () => {
    const errors: unknown[] = [];
    const logger = pino({ level: 'error' }, { write: (line: string) => void errors.push(JSON.parse(line)) });
    let fail = true;
    const metrics = new MetricsRegistry();
    const loop = startUsageRollupWorker({
      usage: {
        snapshot: () => {
          if (fail) throw new Error('database is locked');
          return [{ bucket: 'late', bytes: 1, objects: 1 }];
        },
      },
      metrics,
      intervalMs: 10,
      logger,
    });
    try {
      expect(errors).toHaveLength(1);
      expect(await bucketLines(metrics)).toEqual([]);
      fail = false;
      await until(async () => (await bucketLines(metrics)).length === 2);
    } finally {
      await loop.stop();
    }
  });

  it('records an analytics sample with every refresh, the first at start', async () => {
    let samples = 0;
    const metrics = new MetricsRegistry();
    const loop = startUsageRollupWorker({
      usage: { snapshot: () => [] },
      metrics,
      samples: { recordUsage: () => void samples++ },
      intervalMs: 20,
      logger: silent,
    });
    try {
      expect(samples).toBe(1);
      await until(async () => samples >= 3);
    } finally {
      await loop.stop();
    }
  });
});
