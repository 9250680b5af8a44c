// Analytics over a real database with an injected clock: a sample per bucket at each rollup tick, storage series with
// gaps where the server was down (never interpolated), request rates that match a known workload, 0 for idle windows
// and null for down ones, retention pruning, bounded answers, the per-bucket breakdown and parameter validation.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { body, openServices, type ServiceFixture } from '../../../test/helpers/services.js';
import { isAppError } from '../../core/errors.js';
import { AnalyticsService } from './analytics-service.js';
import { RequestCounters } from './request-counters.js';
import { MAX_POINTS } from './time-windows.js';

const MIN = 60_000;
const QUARTER = 15 * MIN;
const DAY = 86_400_000;
const T0 = Date.parse('2026-03-02T00:00:00Z');

let fx: ServiceFixture;

beforeEach(async () => {
  fx = await openServices('2026-03-02T00:00:00Z');
});

afterEach(() => fx.close());

/** A process run: its own counters, its run starting at the clock's current time. */
function run(opts: { retentionDays?: number } = {}): { analytics: AnalyticsService; counters: RequestCounters } {
  const counters = new RequestCounters(fx.clock.now);
  const analytics = new AnalyticsService({
    meta: fx.meta,
    usage: fx.buckets,
    counters,
    retentionMs: (opts.retentionDays ?? 90) * DAY,
    storageResolutionMs: QUARTER,
    now: fx.clock.now,
  });
  analytics.startRun();
  return { analytics, counters };
}

const put = (bucket: string, key: string, size: number) =>
  fx.objects.put({ bucket, key, body: body(Buffer.alloc(size, 1)), headers: {}, userMeta: {} });

function validationMessage(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    if (isAppError(err) && err.code === 'ValidationError') return err.message;
    throw err;
  }
  throw new Error('no ValidationError');
}

describe('storage samples', () => {
  it('records a sample per bucket and the instance total at each tick, and serves the last sample of each window', async () => {
    const { analytics } = run();
    fx.buckets.create('alpha');
    fx.buckets.create('beta');
    analytics.recordUsage();
    await put('alpha', 'a', 100);
    fx.clock.ms = T0 + QUARTER + 50;
    analytics.recordUsage();
    await put('beta', 'b', 30);
    await put('alpha', 'c', 5);
    fx.clock.ms = T0 + 2 * QUARTER + 50;
    analytics.recordUsage();
    const rows = fx.meta.db.prepare('SELECT at, bucket, bytes FROM usage_samples ORDER BY at, bucket').all();
    expect(rows).toEqual([
      { at: T0, bucket: '', bytes: 0 },
      { at: T0, bucket: 'alpha', bytes: 0 },
      { at: T0, bucket: 'beta', bytes: 0 },
      { at: T0 + QUARTER + 50, bucket: '', bytes: 100 },
      { at: T0 + QUARTER + 50, bucket: 'alpha', bytes: 100 },
      { at: T0 + QUARTER + 50, bucket: 'beta', bytes: 0 },
      { at: T0 + 2 * QUARTER + 50, bucket: '', bytes: 135 },
      { at: T0 + 2 * QUARTER + 50, bucket: 'alpha', bytes: 105 },
      { at: T0 + 2 * QUARTER + 50, bucket: 'beta', bytes: 30 },
    ]);
    fx.clock.ms = T0 + 3 * QUARTER - 1;
    const total = analytics.storage({ from: T0, to: T0 + 3 * QUARTER });
    expect(total).toMatchObject({ from: T0, to: T0 + 3 * QUARTER, step: QUARTER, count: 3, resolution: QUARTER });
    expect(total.points.map((p) => [p.t - T0, p.bytes, p.objects])).toEqual([
      [0, 0, 0],
      [QUARTER, 100, 1],
      [2 * QUARTER, 135, 3],
    ]);
    const alpha = analytics.storage({ from: T0, to: T0 + 3 * QUARTER, bucket: 'alpha' });
    expect(alpha.points.map((p) => p.bytes)).toEqual([0, 100, 105]);
  });

  it('shows the hours the server was down as gaps, and the window holding now with the live value', async () => {
    fx.buckets.create('alpha');
    const first = run();
    for (let i = 0; i < 3; i++) {
      fx.clock.ms = T0 + i * QUARTER;
      await put('alpha', `k${i}`, 10);
      first.analytics.recordUsage();
    }
    // Down from 00:30 to 02:00.
    fx.clock.ms = T0 + 2 * 60 * MIN;
    const second = run();
    second.analytics.recordUsage();
    await put('alpha', 'late', 1000);
    fx.clock.ms = T0 + 2 * 60 * MIN + QUARTER + 1;
    second.analytics.recordUsage();
    fx.clock.ms = T0 + 2 * 60 * MIN + 2 * QUARTER + 7;
    await put('alpha', 'now', 5);
    const series = second.analytics.storage({ from: T0, step: QUARTER });
    expect(series.points.map((p) => p.bytes)).toEqual([10, 20, 30, null, null, null, null, null, 30, 1030, 1035]);
    expect(series.points.every((p) => (p.bytes === null) === (p.objects === null))).toBe(true);
  });

  it('keeps samples for the retention period only', async () => {
    fx.buckets.create('alpha');
    const { analytics } = run({ retentionDays: 3 });
    analytics.recordUsage();
    fx.clock.ms = T0 + DAY;
    analytics.recordUsage();
    fx.clock.ms = T0 + 3 * DAY + 1;
    analytics.recordUsage();
    const ats = fx.meta.db.prepare('SELECT DISTINCT at FROM usage_samples ORDER BY at').pluck().all();
    expect(ats).toEqual([T0 + DAY, T0 + 3 * DAY + 1]);
  });

  it('keeps the answer within MAX_POINTS whatever the range and step asked for', () => {
    fx.clock.ms = T0 + 3 * 365 * DAY;
    const { analytics } = run();
    const series = analytics.storage({ from: T0, step: QUARTER });
    expect(series.points.length).toBeLessThanOrEqual(MAX_POINTS);
    expect(series.step).toBeGreaterThan(QUARTER);
    const fine = analytics.storage({ from: T0 + 3 * 365 * DAY - 2 * 60 * MIN, step: MIN });
    expect(fine.step).toBe(QUARTER);
  });
});

describe('request counts', () => {
  it('match a known workload: per window, per surface, per operation, errors by class, flushed or not', () => {
    const { analytics, counters } = run();
    const workload = [
      { at: 10_000, n: 30, surface: 's3', route_class: 'PutObject', status_class: '2xx' },
      { at: 20_000, n: 5, surface: 's3', route_class: 'GetObject', status_class: '4xx' },
      { at: MIN + 1, n: 12, surface: 's3', route_class: 'GetObject', status_class: '2xx' },
      { at: MIN + 2, n: 2, surface: 's3', route_class: 'GetObject', status_class: '5xx' },
      { at: 3 * MIN + 5, n: 4, surface: 'admin', route_class: '/api/admin/buckets', status_class: '2xx' },
      { at: 3 * MIN + 6, n: 1, surface: 's3', route_class: 'Unknown', status_class: 'aborted' },
    ];
    for (const w of workload) {
      fx.clock.ms = T0 + w.at;
      for (let i = 0; i < w.n; i++) counters.count(w);
      if (w.at === MIN + 2) analytics.flushRequests();
    }
    fx.clock.ms = T0 + 5 * MIN;
    const series = analytics.requests({ from: T0, step: MIN });
    expect(series.points.map((p) => p.totals?.requests)).toEqual([35, 14, 0, 5, 0]);
    expect(series.points.map((p) => [p.totals?.clientErrors, p.totals?.serverErrors])).toEqual([
      [5, 0],
      [0, 2],
      [0, 0],
      [0, 0],
      [0, 0],
    ]);
    expect(series.points[3]?.bySurface).toEqual({
      admin: { requests: 4, clientErrors: 0, serverErrors: 0 },
      s3: { requests: 1, clientErrors: 0, serverErrors: 0 },
    });
    expect(series.totals).toEqual({ requests: 54, clientErrors: 5, serverErrors: 2 });
    expect(series.operations.map((o) => [o.surface, o.routeClass, o.requests])).toEqual([
      ['s3', 'PutObject', 30],
      ['s3', 'GetObject', 19],
      ['admin', '/api/admin/buckets', 4],
      ['s3', 'Unknown', 1],
    ]);
    analytics.flushRequests();
    expect(analytics.requests({ from: T0, step: MIN }).totals).toEqual(series.totals);
    const coarse = analytics.requests({ from: T0, step: 5 * MIN });
    expect(coarse.points.map((p) => p.totals?.requests)).toEqual([54]);
  });

  it('shows windows the server was down as null, idle ones as 0', () => {
    const first = run();
    fx.clock.ms = T0 + 30_000;
    first.counters.count({ surface: 's3', route_class: 'GetObject', status_class: '2xx' });
    fx.clock.ms = T0 + 2 * MIN;
    first.analytics.flushRequests();
    // Down from 00:02 to 00:06.
    fx.clock.ms = T0 + 6 * MIN;
    const second = run();
    fx.clock.ms = T0 + 7 * MIN + 10;
    second.counters.count({ surface: 's3', route_class: 'GetObject', status_class: '2xx' });
    fx.clock.ms = T0 + 9 * MIN;
    const series = second.analytics.requests({ from: T0, step: MIN });
    expect(series.points.map((p) => p.totals?.requests ?? null)).toEqual([1, 0, 0, null, null, null, 0, 1, 0]);
  });

  it('records a run whose start could not be written (a full disk at boot) with its first usage tick', () => {
    const unrecorded = new AnalyticsService({
      meta: fx.meta,
      usage: fx.buckets,
      counters: new RequestCounters(fx.clock.now),
      retentionMs: DAY,
      storageResolutionMs: QUARTER,
      now: fx.clock.now,
    }); // no startRun(): its insert failed
    fx.clock.ms = T0 + 2 * MIN;
    unrecorded.recordUsage();
    fx.clock.ms = T0 + 5 * MIN;
    run();
    expect(
      fx.meta.db
        .prepare('SELECT started_at AS startedAt, last_seen_at AS lastSeenAt FROM server_uptime ORDER BY started_at')
        .all(),
    ).toEqual([
      { startedAt: T0, lastSeenAt: T0 + 2 * MIN },
      { startedAt: T0 + 5 * MIN, lastSeenAt: T0 + 5 * MIN },
    ]);
  });

  it("keeps a failed flush's counts for the next one", () => {
    const { analytics, counters } = run();
    counters.count({ surface: 's3', route_class: 'PutObject', status_class: '2xx' });
    fx.meta.db.exec('ALTER TABLE request_minutes RENAME TO request_minutes_away');
    expect(() => analytics.flushRequests()).toThrow();
    fx.meta.db.exec('ALTER TABLE request_minutes_away RENAME TO request_minutes');
    counters.count({ surface: 's3', route_class: 'PutObject', status_class: '2xx' });
    analytics.flushRequests();
    expect(fx.meta.db.prepare('SELECT requests FROM request_minutes').pluck().all()).toEqual([2]);
  });

  it('prunes minutes beyond the retention period', () => {
    const { analytics, counters } = run({ retentionDays: 1 });
    counters.count({ surface: 's3', route_class: 'PutObject', status_class: '2xx' });
    analytics.flushRequests();
    fx.clock.ms = T0 + DAY + MIN;
    counters.count({ surface: 's3', route_class: 'GetObject', status_class: '2xx' });
    analytics.flushRequests();
    expect(fx.meta.db.prepare('SELECT route_class FROM request_minutes').pluck().all()).toEqual(['GetObject']);
  });

  it('bounds a year of minutes to MAX_POINTS', () => {
    fx.clock.ms = T0 + 365 * DAY;
    const { analytics } = run();
    const series = analytics.requests({ from: T0, step: MIN });
    expect(series.points.length).toBeLessThanOrEqual(MAX_POINTS);
    expect(series.step % MIN).toBe(0);
  });
});

describe('per-bucket breakdown', () => {
  it('lists live usage largest first, with shares, growth since a sample, and a limit', async () => {
    for (const name of ['a-small', 'b-large', 'c-new']) if (name !== 'c-new') fx.buckets.create(name);
    const { analytics } = run();
    await put('a-small', 'x', 10);
    await put('b-large', 'x', 50);
    analytics.recordUsage();
    fx.clock.ms = T0 + 2 * DAY;
    fx.buckets.create('c-new');
    await put('b-large', 'y', 40);
    await put('c-new', 'x', 20);
    const view = analytics.buckets({ limit: 2, since: T0 });
    expect(view.totals).toEqual({ buckets: 3, bytes: 120, objects: 4, versions: 4 });
    expect(view.truncated).toBe(true);
    expect(view.buckets.map((b) => [b.bucket, b.bytes, b.share])).toEqual([
      ['b-large', 90, 0.75],
      ['c-new', 20, 20 / 120],
    ]);
    expect(view.buckets[0]?.growth).toEqual({ bytes: 40, objects: 1, from: T0 });
    expect(view.buckets[1]?.growth).toBeNull();
  });
});

describe('validation', () => {
  it('names the field of a bad range', () => {
    const { analytics } = run();
    expect(validationMessage(() => analytics.storage({ from: T0 + DAY }))).toMatch(/^from: /);
    expect(validationMessage(() => analytics.requests({ from: T0 - MIN, to: T0 - 2 * MIN }))).toMatch(/^to: /);
    expect(validationMessage(() => analytics.buckets({ limit: 10, since: T0 + 1 }))).toMatch(/^since: /);
  });
});
