// Backup and restore (docs/backup.md): GET /backup and /buckets/:name/backup stream a .zip while it is built;
// POST /restore and /buckets/:name/restore take the raw .zip as the body (no parser, no buffering: the request
// stream goes straight to a temp file); GET /backup/schedule and POST /backup/schedule/run-now drive scheduled
// snapshots. Downloads are audited too: a backup exports every byte the instance holds.

import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import { isAppError } from '../../../core/errors.js';
import { validateBucketName } from '../../../core/names.js';
import type { AuditSink } from '../../../services/audit/audit-events.js';
import type { BackupArchive, BackupScope } from '../../../services/backup/backup-service.js';
import type { BackupScheduleStatus, RunOutcome } from '../../../services/backup/backup-scheduler.js';
import type { RestoreRequest, RestoreResult, RestoreTarget } from '../../../services/backup/restore-service.js';
import { principalOf } from '../admin-principal.js';
import type { AdminApp } from '../typebox-type-provider.js';
import { BucketNameParams, Strict } from './bucket-schemas.js';
import { Binary } from './object-schemas.js';
import { declaredLength, rawBody, rawBodySchema, rawBodyScope } from './raw-body.js';
import { ErrorBody } from './schemas.js';

export interface BackupRouteDeps {
  audit: AuditSink;
  backups: { createArchive(scope: BackupScope): BackupArchive };
  restores: { restore(target: RestoreTarget, request: RestoreRequest): Promise<RestoreResult> };
  backupSchedule: {
    status(): Promise<BackupScheduleStatus>;
    runNow(): { started: boolean; done: Promise<RunOutcome> };
  };
}

const tags = ['backup'];
const Count = Type.Integer({ minimum: 0 });
const Iso = Type.Union([Type.String({ format: 'date-time' }), Type.Null()]);
// Strict: a misspelt parameter (bypassGovernence) is a 400, not silently dropped.
const RestoreQuery = Strict({
  bypassGovernance: Type.Optional(
    Type.Boolean({
      description: 'Let the reset remove versions under GOVERNANCE retention (never COMPLIANCE or a legal hold)',
    }),
  ),
});
const InstanceRestored = Type.Object(
  {
    bucketsRestored: Type.Integer({ minimum: 0, description: 'Buckets the instance now holds, all from the archive' }),
    objectsRestored: Type.Integer({ minimum: 0, description: 'Object versions restored (delete markers not counted)' }),
  },
  { additionalProperties: false },
);
const BucketRestored = Type.Object(
  {
    objectsRestored: Type.Integer({ minimum: 0, description: 'Object versions restored (delete markers not counted)' }),
  },
  { additionalProperties: false },
);
const RunNow = Type.Object(
  { started: Type.Boolean({ description: 'false: a run was already in flight, and this call joined it' }) },
  { additionalProperties: false },
);
const ScheduleStatus = Type.Object(
  {
    enabled: Type.Boolean(),
    running: Type.Boolean(),
    policy: Type.Object(
      {
        scope: Type.Union([Type.Literal('instance'), Type.Literal('buckets'), Type.Null()]),
        cron: Type.Union([Type.String(), Type.Null()]),
        intervalMinutes: Type.Union([Type.Integer(), Type.Null()]),
        keepLast: Count,
        maxAgeDays: Count,
        pushToReplication: Type.Boolean({
          description: 'True when finished snapshots are copied to the replication target',
        }),
      },
      { additionalProperties: false },
    ),
    snapshots: Type.Object(
      { count: Count, bytes: Count, newestAt: Iso, oldestAt: Iso },
      { additionalProperties: false },
    ),
    runs: Type.Object({ started: Count, succeeded: Count, failed: Count }, { additionalProperties: false }),
    lastRun: Type.Union([
      Type.Object(
        {
          startedAt: Type.String({ format: 'date-time' }),
          finishedAt: Type.String({ format: 'date-time' }),
          result: Type.Union([Type.Literal('ok'), Type.Literal('failed')]),
          snapshots: Count,
          bytes: Count,
          pruned: Count,
          error: Type.Union([Type.String({ description: 'An error code; never a path' }), Type.Null()]),
        },
        { additionalProperties: false },
      ),
      Type.Null(),
    ]),
    nextRunAt: Iso,
  },
  { additionalProperties: false },
);

const zipResponse = {
  description: 'The .zip archive (docs/backup-format.md), streamed as it is built',
  headers: { 'content-disposition': { type: 'string', description: 'attachment; filename="store-...zip"' } },
  content: { 'application/zip': { schema: Binary } },
};

function sendArchive(reply: FastifyReply, archive: BackupArchive, label: string): FastifyReply {
  const stamp = new Date(archive.createdAt).toISOString().replace(/[-:.]/g, '');
  void reply.headers({
    'content-type': 'application/zip',
    'content-disposition': `attachment; filename="store-${label}-${stamp}.zip"`,
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  });
  return reply.send(archive.stream);
}

/** Runs a restore with the request stream; on a failure the connection closes (the body may be left unread). */
async function runRestore(
  req: FastifyRequest & { query: Static<typeof RestoreQuery> },
  deps: BackupRouteDeps,
  target: RestoreTarget,
): Promise<RestoreResult> {
  const { bypassGovernance } = req.query;
  const body = rawBody(req);
  // A client that hangs up stops the restore (staging up to RESTORE_MAX_TOTAL_BYTES would otherwise go on for nobody).
  const hangUp = new AbortController();
  const onClose = (): void => hangUp.abort();
  req.raw.socket?.once('close', onClose);
  try {
    return await deps.restores.restore(target, {
      body,
      declaredLength: declaredLength(req),
      bypassGovernance: bypassGovernance ?? false,
      signal: hangUp.signal,
    });
  } catch (err) {
    if (isAppError(err)) err.headers['connection'] = 'close';
    throw err;
  } finally {
    req.raw.socket?.off('close', onClose);
  }
}

export function backupRoutes(app: AdminApp, deps: BackupRouteDeps): void {
  app.get(
    '/backup',
    {
      schema: {
        operationId: 'downloadInstanceBackup',
        tags,
        summary: 'A .zip snapshot of the whole instance (streamed)',
        description:
          'Every bucket with its configuration and every object version in history order, decrypted, as of the moment of the request.',
        response: { 200: zipResponse, 401: ErrorBody, 507: ErrorBody },
      },
    },
    async (req, reply) => {
      // HEAD (Fastify's automatic twin) opens no snapshot and exports nothing.
      if (req.method === 'HEAD') return reply.type('application/zip').send(Readable.from([]));
      const archive = deps.backups.createArchive({ kind: 'instance' });
      deps.audit.record({
        event: 'backup.exported',
        subject: principalOf(req).username,
        details: { kind: 'instance' },
      });
      return sendArchive(reply, archive, 'instance');
    },
  );

  app.get(
    '/buckets/:name/backup',
    {
      schema: {
        operationId: 'downloadBucketBackup',
        tags,
        summary: 'A .zip snapshot of one bucket (streamed)',
        params: BucketNameParams,
        response: { 200: zipResponse, 400: ErrorBody, 401: ErrorBody, 404: ErrorBody },
      },
    },
    async (req, reply) => {
      const { name } = req.params;
      if (req.method === 'HEAD') return reply.type('application/zip').send(Readable.from([]));
      const archive = deps.backups.createArchive({ kind: 'bucket', bucket: name });
      deps.audit.record({
        event: 'backup.exported',
        subject: principalOf(req).username,
        bucket: name,
        details: { kind: 'bucket' },
      });
      return sendArchive(reply, archive, `bucket-${name}`);
    },
  );

  // The archive is the raw request stream (raw-body.ts); RestoreService enforces RESTORE_MAX_TOTAL_BYTES as it arrives.
  rawBodyScope(app, (scope) => {
    const body = rawBodySchema('The .zip archive (application/zip)');
    scope.post(
      '/restore',
      {
        schema: {
          operationId: 'restoreInstance',
          tags,
          summary: 'Reset the whole instance to an instance archive (raw .zip body)',
          description:
            'Not a merge: buckets and versions the archive lacks are removed. Validated whole before anything changes; ' +
            'a bad archive is InvalidArchive (400) and changes nothing. 409 if object lock protects a version the reset would remove.',
          querystring: RestoreQuery,
          body,
          response: {
            200: InstanceRestored,
            400: ErrorBody,
            401: ErrorBody,
            403: ErrorBody,
            409: ErrorBody,
            507: ErrorBody,
          },
        },
      },
      async (req) => {
        const result = await runRestore(req, deps, { kind: 'instance' });
        deps.audit.record({
          event: 'backup.restored',
          subject: principalOf(req).username,
          details: {
            kind: 'instance',
            buckets: result.bucketsRestored,
            objects: result.objectsRestored,
            manifestVersion: result.manifestVersion,
          },
        });
        return { bucketsRestored: result.bucketsRestored, objectsRestored: result.objectsRestored };
      },
    );
    scope.post(
      '/buckets/:name/restore',
      {
        schema: {
          operationId: 'restoreBucket',
          tags,
          summary: 'Reset one bucket to a bucket archive, or to that bucket of an instance archive',
          description: 'Creates the bucket if it does not exist; other buckets are untouched.',
          params: BucketNameParams,
          querystring: RestoreQuery,
          body,
          response: {
            200: BucketRestored,
            400: ErrorBody,
            401: ErrorBody,
            403: ErrorBody,
            409: ErrorBody,
            507: ErrorBody,
          },
        },
      },
      async (req) => {
        const { name } = req.params;
        validateBucketName(name);
        const result = await runRestore(req, deps, { kind: 'bucket', bucket: name });
        deps.audit.record({
          event: 'bucket.restored',
          subject: principalOf(req).username,
          bucket: name,
          details: { objects: result.objectsRestored, manifestVersion: result.manifestVersion },
        });
        return { objectsRestored: result.objectsRestored };
      },
    );
  });

  app.get(
    '/backup/schedule',
    {
      schema: {
        operationId: 'getBackupSchedule',
        tags,
        summary: 'Scheduled backups: policy, snapshot counts, last and next run',
        description: 'Never shows the snapshot directory.',
        response: { 200: ScheduleStatus, 401: ErrorBody },
      },
    },
    async () => deps.backupSchedule.status(),
  );

  app.post(
    '/backup/schedule/run-now',
    {
      schema: {
        operationId: 'runScheduledBackupNow',
        tags,
        summary: 'Start a scheduled-backup run now, or join the one in flight',
        response: { 202: RunNow, 401: ErrorBody, 403: ErrorBody, 409: ErrorBody },
      },
    },
    async (req, reply) => {
      const { started } = deps.backupSchedule.runNow();
      deps.audit.record({ event: 'backup.run_started', subject: principalOf(req).username, details: { started } });
      return reply.status(202).send({ started });
    },
  );
}
