// Analytics: per-bucket usage samples taken at each usage-rollup tick, request and error counts flushed once a minute
// from in-memory counters, and the three admin reads over them: storage over time, the per-bucket breakdown, and
// request and error rates. A window with no data while the server was down is a gap (null), never interpolated;
// every answer has at most MAX_POINTS points whatever the range.

import { AppError } from '../../core/errors.js';
import {
  AnalyticsRepo,
  TOTAL_BUCKET,
  type RequestCount,
  type UsageSampleRow,
  type UptimeRow,
} from '../../storage/db/analytics-repo.js';
import type { MetadataStore } from '../../storage/db/metadata-store.js';
import type { BucketWithUsage } from '../bucket-service.js';
import { MINUTE_MS, type RequestCounters } from './request-counters.js';
import { planWindows, type WindowPlan } from './time-windows.js';

const DAY_MS = 86_400_000;
/** Rows pruned per table per write at most, so a first prune after a long pause never holds the writer long. */
const PRUNE_BATCH = 5000;
/** How many operations the request answer lists, busiest first. */
export const TOP_OPERATIONS = 50;

export interface AnalyticsServiceOptions {
  meta: MetadataStore;
  /** Live per-bucket usage (BucketService.listWithUsage): what a sample records. */
  usage: { listWithUsage(): BucketWithUsage[] };
  counters: RequestCounters;
  /** STORE_ANALYTICS_RETENTION_DAYS in ms. */
  retentionMs: number;
  /** USAGE_ROLLUP_INTERVAL_MS: the finest step a storage series can have. */
  storageResolutionMs: number;
  now?: () => number;
}

export interface SeriesQuery {
  /** Epoch ms; default: `to` minus the default range. */
  from?: number | undefined;
  /** Epoch ms; default and latest: now. */
  to?: number | undefined;
  /** Requested step in ms (raised to the resolution, or to fit MAX_POINTS). */
  step?: number | undefined;
}

export interface StoragePoint {
  t: number;
  bytes: number | null;
  objects: number | null;
  versions: number | null;
}

export interface StorageSeries extends WindowPlan {
  bucket: string | undefined;
  resolution: number;
  points: StoragePoint[];
}

export interface RequestTotals {
  requests: number;
  clientErrors: number;
  serverErrors: number;
}

export interface RequestPoint {
  t: number;
  /** Null for a window in which the server was down (and nothing was counted). */
  totals: RequestTotals | null;
  bySurface: Record<string, RequestTotals>;
}

export interface RequestSeries extends WindowPlan {
  resolution: number;
  points: RequestPoint[];
  totals: RequestTotals;
  /** Busiest first, at most TOP_OPERATIONS. */
  operations: (RequestTotals & { surface: string; routeClass: string })[];
}

export interface BucketBreakdown {
  at: number;
  since: number;
  totals: { buckets: number; bytes: number; objects: number; versions: number };
  buckets: (UsageSampleRow & { share: number; growth: { bytes: number; objects: number; from: number } | null })[];
  truncated: boolean;
}

export class AnalyticsService {
  private readonly repo: AnalyticsRepo;
  private readonly now: () => number;
  /** When this process run started (its uptime row). */
  readonly startedAt: number;

  constructor(private readonly opts: AnalyticsServiceOptions) {
    this.repo = new AnalyticsRepo(opts.meta.db);
    this.now = opts.now ?? Date.now;
    this.startedAt = this.now();
  }

  /** Records the start of this process run (windows it covers are "up", not gaps). */
  startRun(): void {
    this.opts.meta.transaction(() => this.repo.startRun(this.startedAt));
  }

  /** One usage-rollup tick: a sample per bucket and the instance total, all at the same instant; prunes old history. */
  recordUsage(): void {
    const at = this.now();
    const rows = this.liveUsage();
    this.opts.meta.transaction(() => {
      this.repo.insertSamples(at, [...rows, totalOf(rows)]);
      this.repo.touchRun(this.startedAt, at);
      this.repo.prune(at - this.opts.retentionMs, PRUNE_BATCH);
    });
  }

  /** Writes the counted requests to their minutes (kept for the next flush if the write fails); prunes old history. */
  flushRequests(): void {
    const rows = this.opts.counters.take();
    const at = this.now();
    try {
      this.opts.meta.transaction(() => {
        this.repo.addRequests(rows);
        this.repo.touchRun(this.startedAt, at);
        this.repo.prune(at - this.opts.retentionMs, PRUNE_BATCH);
      });
    } catch (err) {
      this.opts.counters.restore(rows);
      throw err;
    }
  }

  /**
   * Bytes, objects and versions of one bucket (or the whole instance) over time: each window holds the last sample
   * taken in it (the window that holds now, the live value). Default range: the last 7 days. Throws ValidationError.
   */
  storage(query: SeriesQuery & { bucket?: string | undefined }): StorageSeries {
    const now = this.now();
    const { from, to } = range(query, now, 7 * DAY_MS);
    const plan = planWindows({ from, to, requested: query.step, resolution: this.opts.storageResolutionMs });
    const samples = new Map(
      this.repo
        .sampleWindows(query.bucket ?? TOTAL_BUCKET, { from: plan.from, to: plan.to, step: plan.step })
        .map((w) => [w.window, w]),
    );
    const live = this.liveOf(query.bucket);
    const points: StoragePoint[] = [];
    for (let i = 0; i < plan.count; i++) {
      const t = plan.from + i * plan.step;
      const value = live && now >= t && now < t + plan.step ? live : samples.get(i);
      points.push(
        value
          ? { t, bytes: value.bytes, objects: value.objects, versions: value.versions }
          : { t, bytes: null, objects: null, versions: null },
      );
    }
    return { ...plan, bucket: query.bucket, resolution: this.opts.storageResolutionMs, points };
  }

  /**
   * Every bucket's live usage, largest first, with its share of the total and its growth since `since` (default 7 days
   * ago: measured from the bucket's first sample in the day after it; null without one). At most `limit` buckets.
   */
  buckets(query: { limit: number; since?: number | undefined }): BucketBreakdown {
    const at = this.now();
    const since = query.since ?? at - 7 * DAY_MS;
    if (since >= at) throw new AppError('ValidationError', { message: 'since: must be in the past' });
    const rows = this.liveUsage();
    const total = totalOf(rows);
    const baseline = this.repo.firstSamples(since, Math.min(at, since + DAY_MS));
    const sorted = [...rows].sort((a, b) => b.bytes - a.bytes || (a.bucket < b.bucket ? -1 : 1));
    return {
      at,
      since,
      totals: { buckets: rows.length, bytes: total.bytes, objects: total.objects, versions: total.versions },
      buckets: sorted.slice(0, query.limit).map((row) => {
        const first = baseline.get(row.bucket);
        return {
          ...row,
          share: total.bytes > 0 ? row.bytes / total.bytes : 0,
          growth: first
            ? { bytes: row.bytes - first.bytes, objects: row.objects - first.objects, from: first.at }
            : null,
        };
      }),
      truncated: rows.length > query.limit,
    };
  }

  /**
   * Requests, client errors (4xx) and server errors (5xx) per window, by surface, with the busiest operations over the
   * range. A window with nothing counted is 0 when the server was up during it and null (a gap) when it was down.
   * Includes what is counted but not yet flushed. Default range: the last 24 hours. Throws ValidationError.
   */
  requests(query: SeriesQuery): RequestSeries {
    const now = this.now();
    const { from, to } = range(query, now, DAY_MS);
    const plan = planWindows({ from, to, requested: query.step, resolution: MINUTE_MS });
    const points: RequestPoint[] = Array.from({ length: plan.count }, (_, i) => ({
      t: plan.from + i * plan.step,
      totals: null,
      bySurface: {},
    }));
    const add = (point: RequestPoint | undefined, surface: string, counts: RequestTotals): void => {
      if (!point) return;
      point.totals = sum(point.totals ?? zero(), counts);
      point.bySurface[surface] = sum(point.bySurface[surface] ?? zero(), counts);
    };
    for (const row of this.repo.requestWindows(plan.from, plan.to, plan.step))
      add(points[row.window], row.surface, row);
    const pending = this.opts.counters.peek().filter((r) => r.minute >= plan.from && r.minute < plan.to);
    for (const row of pending) add(points[Math.floor((row.minute - plan.from) / plan.step)], row.surface, row);
    const runs: UptimeRow[] = [...this.repo.runs(plan.from, plan.to), { startedAt: this.startedAt, lastSeenAt: now }];
    for (const point of points) {
      if (point.totals === null && runs.some((run) => run.startedAt < point.t + plan.step && run.lastSeenAt >= point.t))
        point.totals = zero();
    }
    const operations = mergeOperations([...this.repo.operationTotals(plan.from, plan.to), ...pending]);
    return {
      ...plan,
      resolution: MINUTE_MS,
      points,
      totals: operations.reduce<RequestTotals>((acc, op) => sum(acc, op), zero()),
      operations: operations.slice(0, TOP_OPERATIONS),
    };
  }

  private liveUsage(): UsageSampleRow[] {
    return this.opts.usage.listWithUsage().map(({ bucket, usage }) => ({
      bucket: bucket.name,
      bytes: usage.versionBytes,
      objects: usage.objectCount,
      versions: usage.versionCount,
    }));
  }

  /** The live value of one bucket (undefined when it does not exist now), or of the instance. */
  private liveOf(bucket: string | undefined): UsageSampleRow | undefined {
    const rows = this.liveUsage();
    return bucket === undefined ? totalOf(rows) : rows.find((r) => r.bucket === bucket);
  }
}

/** The query's range with defaults; `to` never beyond now. Throws ValidationError naming the field. */
function range(query: SeriesQuery, now: number, defaultSpan: number): { from: number; to: number } {
  const to = Math.min(query.to ?? now, now);
  const from = query.from ?? to - defaultSpan;
  if (query.from !== undefined && from >= now)
    throw new AppError('ValidationError', { message: 'from: must be in the past' });
  if (from >= to) throw new AppError('ValidationError', { message: 'to: must be later than from' });
  return { from, to };
}

function totalOf(rows: readonly UsageSampleRow[]): UsageSampleRow {
  return rows.reduce<UsageSampleRow>(
    (acc, r) => ({
      bucket: TOTAL_BUCKET,
      bytes: acc.bytes + r.bytes,
      objects: acc.objects + r.objects,
      versions: acc.versions + r.versions,
    }),
    { bucket: TOTAL_BUCKET, bytes: 0, objects: 0, versions: 0 },
  );
}

function zero(): RequestTotals {
  return { requests: 0, clientErrors: 0, serverErrors: 0 };
}

function sum(a: RequestTotals, b: RequestTotals): RequestTotals {
  return {
    requests: a.requests + b.requests,
    clientErrors: a.clientErrors + b.clientErrors,
    serverErrors: a.serverErrors + b.serverErrors,
  };
}

/** Persisted and pending counts summed per (surface, route class), busiest first. */
function mergeOperations(
  rows: readonly (RequestTotals & { surface: string; routeClass: string })[],
): (RequestTotals & { surface: string; routeClass: string })[] {
  const merged = new Map<string, RequestTotals & { surface: string; routeClass: string }>();
  for (const row of rows) {
    const key = `${row.surface}\n${row.routeClass}`;
    const have = merged.get(key);
    merged.set(
      key,
      have ? { ...have, ...sum(have, row) } : { surface: row.surface, routeClass: row.routeClass, ...sum(zero(), row) },
    );
  }
  return [...merged.values()].sort(
    (a, b) => b.requests - a.requests || (a.surface + a.routeClass < b.surface + b.routeClass ? -1 : 1),
  );
}
