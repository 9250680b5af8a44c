// Replication and tiering (docs/replication.md): status (always 200; never the endpoint, bucket or a credential),
// dead-lettered intents and their retry, reconcile jobs (one at a time: 409 while one runs), tiering status.

import { Type, type Static } from '@sinclair/typebox';
import { AppError } from '../../../core/errors.js';
import type { AuditSink } from '../../../services/audit/audit-events.js';
import type { ReconcileService } from '../../../services/replication/reconcile-service.js';
import type { ReplicationService } from '../../../services/replication/replication-service.js';
import { REMOTE_ERROR_CLASSES } from '../../../services/replication/remote-store.js';
import type { TierService } from '../../../services/tiering/tier-service.js';
import { principalOf } from '../admin-principal.js';
import type { AdminApp } from '../typebox-type-provider.js';
import { Strict } from './bucket-schemas.js';
import { ErrorBody } from './schemas.js';

export interface ReplicationRouteDeps {
  replication: ReplicationService;
  reconcile: ReconcileService;
  tiering: TierService;
  audit: AuditSink;
}

const Count = Type.Integer({ minimum: 0 });
const ErrorClass = Type.Union(
  REMOTE_ERROR_CLASSES.map((c) => Type.Literal(c)),
  { description: 'A bounded error class; never a message, URL or key' },
);
const TargetBucket = Type.String({
  description:
    "The target bucket as last checked: ok, missing, an error class, 'unchecked' or 'not-configured' (never its name)",
});
const Tiering = Type.Object(
  {
    enabled: Type.Boolean({ description: 'STORE_TIER_ENABLED with a configured remote' }),
    stubs: Type.Integer({ minimum: 0, description: 'Versions whose bytes live only on the remote' }),
    restored: Type.Integer({
      minimum: 0,
      description: 'Tiered versions rehydrated and local until their restore ends',
    }),
    rehydrating: Count,
    pendingRemoteDeletes: Type.Integer({
      minimum: 0,
      description: 'Remote tier copies of removed versions not yet deleted',
    }),
    lastSweep: Type.Union([
      Type.Object(
        {
          at: Type.String({ format: 'date-time' }),
          tiered: Count,
          restubbed: Count,
          failed: Count,
          errorClass: Type.Union([ErrorClass, Type.Null()]),
        },
        { additionalProperties: false },
      ),
      Type.Null(),
    ]),
  },
  { additionalProperties: false },
);
const Status = Type.Object(
  {
    enabled: Type.Boolean({ description: 'STORE_REPLICATION_ENABLED with a complete target configuration' }),
    targetBucket: TargetBucket,
    outbox: Type.Object(
      { pending: Count, inflight: Count, failed: Type.Integer({ minimum: 0, description: 'Dead-lettered' }) },
      { additionalProperties: false },
    ),
    oldestPendingAgeSeconds: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]),
    lastDrain: Type.Union([
      Type.Object(
        {
          at: Type.String({ format: 'date-time' }),
          count: Type.Integer({ minimum: 0, description: 'Keys applied to the remote' }),
          errorClass: Type.Union([ErrorClass, Type.Null()]),
        },
        { additionalProperties: false },
      ),
      Type.Null(),
    ]),
    tiering: Tiering,
  },
  { additionalProperties: false },
);
const FailedItem = Type.Object(
  {
    bucket: Type.String(),
    key: Type.String(),
    attempts: Count,
    lastError: Type.Union([Type.String({ description: 'An error class' }), Type.Null()]),
    failedAt: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false },
);
const FailedQuery = Type.Object({
  cursor: Type.Optional(Type.String({ pattern: '^[0-9]{1,15}$', description: 'nextCursor of the previous page' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
});
const RetryBody = Strict(
  {
    bucket: Type.Optional(Type.String({ minLength: 1, maxLength: 63 })),
    key: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
  },
  { description: 'Both bucket and key: retry that key; neither: every dead-lettered intent' },
);
const ReconcileBody = Strict({
  bucket: Type.Optional(
    Type.String({ minLength: 1, maxLength: 63, description: 'Scope to one bucket; omitted: every bucket' }),
  ),
});
const Job = Type.Object(
  {
    id: Type.String(),
    state: Type.Union([Type.Literal('running'), Type.Literal('completed'), Type.Literal('failed')]),
    bucket: Type.Union([Type.String(), Type.Null()]),
    scanned: Type.Integer({ minimum: 0, description: 'Keys compared (local and remote side by side)' }),
    enqueued: Type.Integer({
      minimum: 0,
      description: 'Keys missing, different or extra on the remote, handed to the drain',
    }),
    errors: Count,
    error: Type.Union([Type.String({ description: 'An error class, or "interrupted by a restart"' }), Type.Null()]),
    startedAt: Type.String({ format: 'date-time' }),
    finishedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  },
  { additionalProperties: false },
);

const iso = (ms: number): string => new Date(ms).toISOString();

function jobView(job: ReturnType<ReconcileService['get']>): Static<typeof Job> {
  return {
    id: job.id,
    state: job.state,
    bucket: job.bucket ?? null,
    scanned: job.scanned,
    enqueued: job.enqueued,
    errors: job.errors,
    error: job.error ?? null,
    startedAt: iso(job.startedAt),
    finishedAt: job.finishedAt === undefined ? null : iso(job.finishedAt),
  };
}

export function replicationRoutes(app: AdminApp, deps: ReplicationRouteDeps): void {
  app.get(
    '/replication/status',
    {
      schema: {
        operationId: 'getReplicationStatus',
        tags: ['replication'],
        summary:
          'Replication status: enabled flag, target bucket check, outbox depth by status, last drain; tiering status',
        response: { 200: Status, 401: ErrorBody },
      },
    },
    async () => ({ ...deps.replication.status(), tiering: deps.tiering.status() }),
  );

  app.get(
    '/replication/failed',
    {
      schema: {
        operationId: 'listReplicationFailures',
        tags: ['replication'],
        summary: 'Dead-lettered replication intents, oldest first',
        querystring: FailedQuery,
        response: {
          200: Type.Object({ items: Type.Array(FailedItem), nextCursor: Type.Union([Type.String(), Type.Null()]) }),
          400: ErrorBody,
          401: ErrorBody,
        },
      },
    },
    async (req) => {
      const q = req.query;
      const page = deps.replication.failedPage(Number(q.cursor ?? 0), q.limit ?? 100);
      return {
        items: page.items.map((i) => ({
          bucket: i.bucket,
          key: i.key,
          attempts: i.attempts,
          lastError: i.lastError ?? null,
          failedAt: iso(i.failedAt),
        })),
        nextCursor: page.nextCursor === null ? null : String(page.nextCursor),
      };
    },
  );

  app.post(
    '/replication/failed/retry',
    {
      schema: {
        operationId: 'retryReplicationFailures',
        tags: ['replication'],
        summary: 'Make dead-lettered intents pending again (one key, or all)',
        body: RetryBody,
        response: { 200: Type.Object({ retried: Count }), 400: ErrorBody, 401: ErrorBody, 403: ErrorBody },
      },
    },
    async (req) => {
      const body = req.body;
      if ((body.bucket === undefined) !== (body.key === undefined)) {
        throw new AppError('ValidationError', {
          message: `${body.key === undefined ? 'key' : 'bucket'}: send both bucket and key, or neither`,
        });
      }
      const only =
        body.bucket !== undefined && body.key !== undefined ? { bucket: body.bucket, key: body.key } : undefined;
      const retried = deps.replication.retryFailed(only);
      deps.audit.record({
        event: 'replication.retried',
        subject: principalOf(req).username,
        ...(only ? { bucket: only.bucket, details: { key: only.key, retried } } : { details: { retried } }),
      });
      return { retried };
    },
  );

  app.post(
    '/replication/reconcile',
    {
      schema: {
        operationId: 'startReconcile',
        tags: ['replication'],
        summary:
          'Start a reconcile job: list local and remote side by side and re-enqueue what is missing or different (409 while one runs)',
        body: ReconcileBody,
        response: { 202: Job, 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 409: ErrorBody },
      },
    },
    async (req, reply) => {
      const { bucket } = req.body;
      const job = deps.reconcile.start(bucket);
      deps.audit.record({
        event: 'replication.reconcile_started',
        subject: principalOf(req).username,
        ...(bucket ? { bucket } : {}),
        details: { jobId: job.id },
      });
      return reply.status(202).send(jobView(job));
    },
  );

  app.get(
    '/replication/reconcile/:jobId',
    {
      schema: {
        operationId: 'getReconcileJob',
        tags: ['replication'],
        summary: "A reconcile job's state and counts",
        params: Type.Object({ jobId: Type.String({ minLength: 1, maxLength: 64 }) }),
        response: { 200: Job, 401: ErrorBody, 404: ErrorBody },
      },
    },
    async (req) => jobView(deps.reconcile.get(req.params.jobId)),
  );

  app.get(
    '/tiering/status',
    {
      schema: {
        operationId: 'getTieringStatus',
        tags: ['replication'],
        summary: 'Tiering status: enabled flag, stubs, restored versions, last sweep',
        response: { 200: Tiering, 401: ErrorBody },
      },
    },
    async () => deps.tiering.status(),
  );
}
