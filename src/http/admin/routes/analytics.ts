// Analytics (docs/integrity-analytics.md): GET /analytics/storage (bytes, objects and versions over time, for one
// bucket or the instance), /analytics/buckets (the per-bucket breakdown) and /analytics/requests (request and error
// rates). Every series has at most MAX_POINTS points: the step is raised to fit. Windows in which the server was
// down are null. Read-only, so never audited.

import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { AppError } from '../../../core/errors.js';
import { parseIso8601 } from '../../../core/iso8601.js';
import {
  TOP_OPERATIONS,
  type AnalyticsService,
  type RequestTotals,
} from '../../../services/analytics/analytics-service.js';
import { MAX_POINTS, parseStep } from '../../../services/analytics/time-windows.js';
import type { AdminApp } from '../typebox-type-provider.js';
import { ErrorBody } from './schemas.js';

export interface AnalyticsRouteDeps {
  analytics: Pick<AnalyticsService, 'storage' | 'buckets' | 'requests'>;
}

const BUCKETS_DEFAULT = 100;
const BUCKETS_MAX = 1000;

const tags = ['analytics'];
const Time = Type.String({ format: 'date-time' });
const Count = Type.Integer({ minimum: 0 });
const instant = (description: string) =>
  Type.String({ maxLength: 64, description: `ISO 8601 date or date-time (UTC when no zone). ${description}` });
const StepParam = Type.String({
  maxLength: 16,
  description:
    'Window length: seconds (300) or with a unit (30s, 5m, 1h, 1d); raised to the resolution and so that at most 500 points come back. Default: chosen from the range.',
});
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const SeriesFields = {
  from: Type.String({ format: 'date-time', description: 'Start of the first window (aligned to the step)' }),
  to: Type.String({ format: 'date-time', description: 'End of the last window (exclusive)' }),
  step: Type.Integer({ minimum: 1, description: 'Window length in seconds' }),
  resolution: Type.Integer({ minimum: 1, description: 'The finest step this series has, in seconds' }),
};

const StorageQuery = Type.Object(
  {
    from: Type.Optional(instant('Default: 7 days before to.')),
    to: Type.Optional(instant('Default and latest: now.')),
    bucket: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 63,
        description: 'One bucket (also a deleted one, while its history lasts); default: the whole instance',
      }),
    ),
    step: Type.Optional(StepParam),
  },
  { additionalProperties: false },
);
const StoragePoint = Type.Object(
  {
    t: Type.String({ format: 'date-time', description: 'Window start' }),
    bytes: Nullable(Count),
    objects: Nullable(Count),
    versions: Nullable(Count),
  },
  {
    additionalProperties: false,
    description:
      'The last sample in the window (the live value in the window holding now); nulls: no sample (the server was down)',
  },
);
const StorageBody = Type.Object(
  {
    bucket: Nullable(Type.String()),
    ...SeriesFields,
    points: Type.Array(StoragePoint, { maxItems: MAX_POINTS + 1 }),
  },
  { additionalProperties: false },
);

const BucketsQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: BUCKETS_MAX, default: BUCKETS_DEFAULT })),
    since: Type.Optional(
      instant('Growth is measured from the first sample at or after it (within a day). Default: 7 days ago.'),
    ),
  },
  { additionalProperties: false },
);
const BucketsBody = Type.Object(
  {
    at: Time,
    since: Time,
    totals: Type.Object(
      { buckets: Count, bytes: Count, objects: Count, versions: Count },
      { additionalProperties: false },
    ),
    buckets: Type.Array(
      Type.Object(
        {
          bucket: Type.String(),
          bytes: Type.Integer({ minimum: 0, description: 'Every stored version' }),
          objects: Type.Integer({ minimum: 0, description: 'Current objects (delete markers excluded)' }),
          versions: Type.Integer({ minimum: 0, description: 'Every version row, delete markers included' }),
          share: Type.Number({ minimum: 0, maximum: 1, description: 'Of the instance bytes' }),
          growth: Nullable(
            Type.Object(
              { bytes: Type.Integer(), objects: Type.Integer(), from: Time },
              { additionalProperties: false },
            ),
          ),
        },
        { additionalProperties: false },
      ),
      { maxItems: BUCKETS_MAX, description: 'Largest first' },
    ),
    truncated: Type.Boolean({ description: 'More buckets exist than limit' }),
  },
  { additionalProperties: false },
);

const RequestsQuery = Type.Object(
  {
    from: Type.Optional(instant('Default: 24 hours before to.')),
    to: Type.Optional(instant('Default and latest: now.')),
    step: Type.Optional(StepParam),
  },
  { additionalProperties: false },
);
const Totals = Type.Object(
  {
    requests: Count,
    clientErrors: Type.Integer({ minimum: 0, description: '4xx answers' }),
    serverErrors: Type.Integer({ minimum: 0, description: '5xx answers' }),
  },
  { additionalProperties: false },
);
const RequestPoint = Type.Object(
  {
    t: Type.String({ format: 'date-time', description: 'Window start' }),
    requests: Nullable(Count),
    clientErrors: Nullable(Count),
    serverErrors: Nullable(Count),
    requestsPerSecond: Nullable(Type.Number()),
    errorsPerSecond: Nullable(Type.Number()),
    errorRatio: Nullable(Type.Number({ description: '(4xx + 5xx) / requests; null without requests' })),
    bySurface: Type.Record(Type.String(), Totals, {
      description: 's3, admin, console, metrics, outside-mount, unparsed',
    }),
  },
  { additionalProperties: false, description: 'Nulls: the server was down for the whole window' },
);
const RequestsBody = Type.Object(
  {
    ...SeriesFields,
    points: Type.Array(RequestPoint, { maxItems: MAX_POINTS + 1 }),
    totals: Totals,
    operations: Type.Array(
      Type.Object(
        {
          surface: Type.String(),
          operation: Type.String({ description: 'The S3 operation or the admin route pattern (metrics route_class)' }),
          requests: Count,
          clientErrors: Count,
          serverErrors: Count,
        },
        { additionalProperties: false },
      ),
      { maxItems: TOP_OPERATIONS, description: `The busiest over the range, at most ${TOP_OPERATIONS}` },
    ),
  },
  { additionalProperties: false },
);

const iso = (ms: number): string => new Date(ms).toISOString();

/** An optional ISO 8601 parameter as epoch ms. Throws ValidationError naming the field. */
function instantOf(field: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const parsed = parseIso8601(value);
  if (!parsed) throw new AppError('ValidationError', { message: `${field}: must be an ISO 8601 date or date-time` });
  return parsed.getTime();
}

function stepOf(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = parseStep(value);
  if (ms === undefined)
    throw new AppError('ValidationError', {
      message: 'step: must be a duration such as 300, 30s, 5m, 1h or 1d (at most 366 days)',
    });
  return ms;
}

function bucketOf(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  // The shape of an S3 bucket name; a bucket that no longer exists is fine (its history is still there).
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(value))
    throw new AppError('ValidationError', { message: 'bucket: not a bucket name' });
  return value;
}

function rate(
  totals: RequestTotals | null,
  stepMs: number,
): Pick<Static<typeof RequestPoint>, 'requestsPerSecond' | 'errorsPerSecond' | 'errorRatio'> {
  if (totals === null) return { requestsPerSecond: null, errorsPerSecond: null, errorRatio: null };
  const errors = totals.clientErrors + totals.serverErrors;
  return {
    requestsPerSecond: totals.requests / (stepMs / 1000),
    errorsPerSecond: errors / (stepMs / 1000),
    errorRatio: totals.requests > 0 ? errors / totals.requests : null,
  };
}

export function analyticsRoutes(app: AdminApp, deps: AnalyticsRouteDeps): void {
  app.get(
    '/analytics/storage',
    {
      schema: {
        operationId: 'getStorageAnalytics',
        tags,
        summary: 'Bytes, objects and versions over time, for the instance or one bucket',
        querystring: StorageQuery,
        response: { 200: StorageBody, 400: ErrorBody, 401: ErrorBody },
      },
    },
    async (req) => {
      const q = req.query;
      const series = deps.analytics.storage({
        from: instantOf('from', q.from),
        to: instantOf('to', q.to),
        step: stepOf(q.step),
        bucket: bucketOf(q.bucket),
      });
      return {
        bucket: series.bucket ?? null,
        from: iso(series.from),
        to: iso(series.to),
        step: series.step / 1000,
        resolution: series.resolution / 1000,
        points: series.points.map((p) => ({ ...p, t: iso(p.t) })),
      };
    },
  );

  app.get(
    '/analytics/buckets',
    {
      schema: {
        operationId: 'getBucketAnalytics',
        tags,
        summary: 'Per-bucket breakdown: live usage, share of the total, growth',
        querystring: BucketsQuery,
        response: { 200: BucketsBody, 400: ErrorBody, 401: ErrorBody },
      },
    },
    async (req) => {
      const q = req.query;
      const view = deps.analytics.buckets({ limit: q.limit ?? BUCKETS_DEFAULT, since: instantOf('since', q.since) });
      return {
        at: iso(view.at),
        since: iso(view.since),
        totals: view.totals,
        truncated: view.truncated,
        buckets: view.buckets.map((b) => ({
          ...b,
          growth: b.growth ? { ...b.growth, from: iso(b.growth.from) } : null,
        })),
      };
    },
  );

  app.get(
    '/analytics/requests',
    {
      schema: {
        operationId: 'getRequestAnalytics',
        tags,
        summary: 'Request and error rates over time, by surface, with the busiest operations',
        querystring: RequestsQuery,
        response: { 200: RequestsBody, 400: ErrorBody, 401: ErrorBody },
      },
    },
    async (req) => {
      const q = req.query;
      const series = deps.analytics.requests({
        from: instantOf('from', q.from),
        to: instantOf('to', q.to),
        step: stepOf(q.step),
      });
      return {
        from: iso(series.from),
        to: iso(series.to),
        step: series.step / 1000,
        resolution: series.resolution / 1000,
        points: series.points.map((p) => ({
          t: iso(p.t),
          requests: p.totals?.requests ?? null,
          clientErrors: p.totals?.clientErrors ?? null,
          serverErrors: p.totals?.serverErrors ?? null,
          ...rate(p.totals, series.step),
          bySurface: p.bySurface,
        })),
        totals: series.totals,
        operations: series.operations.map((op) => ({
          surface: op.surface,
          operation: op.routeClass,
          requests: op.requests,
          clientErrors: op.clientErrors,
          serverErrors: op.serverErrors,
        })),
      };
    },
  );
}
