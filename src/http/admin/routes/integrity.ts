// Integrity (docs/integrity-analytics.md): GET /integrity (counts by status, the pass in progress, the last full
// pass), GET /integrity/corrupt (the corrupt versions, newest first, keyset-paged) and POST /integrity/scrub (start
// a pass now: 202, or 409 while one runs; audited).

import { Type, type Static } from '@sinclair/typebox';
import { AppError } from '../../../core/errors.js';
import type { AuditSink } from '../../../services/audit/audit-events.js';
import type { FinishedPass, IntegrityService, PassProgress } from '../../../services/integrity/integrity-service.js';
import { principalOf } from '../admin-principal.js';
import type { AdminApp } from '../typebox-type-provider.js';
import { ErrorBody } from './schemas.js';

export interface IntegrityRouteDeps {
  integrity: Pick<IntegrityService, 'status' | 'listCorrupt' | 'startPass'>;
  audit: AuditSink;
}

const CORRUPT_PAGE_DEFAULT = 50;
const CORRUPT_PAGE_MAX = 200;

const tags = ['integrity'];
const Count = Type.Integer({ minimum: 0 });
const Time = Type.String({ format: 'date-time' });
const Trigger = Type.Union([Type.Literal('scheduled'), Type.Literal('manual')]);
const PassFields = {
  startedAt: Time,
  trigger: Trigger,
  objectsChecked: Count,
  bytesChecked: Count,
  corruptFound: Type.Integer({ minimum: 0, description: 'Versions this pass found corrupt' }),
  repaired: Type.Integer({ minimum: 0, description: 'Of those, repaired from the repair source' }),
};
const CurrentPass = Type.Object(
  {
    ...PassFields,
    objectsTotal: Type.Integer({ minimum: 0, description: 'Versions with bytes when the pass started' }),
    bytesTotal: Type.Integer({ minimum: 0, description: 'Their bytes' }),
    percent: Type.Number({
      minimum: 0,
      maximum: 100,
      description: 'Bytes checked of bytesTotal (objects when there are no bytes)',
    }),
  },
  { additionalProperties: false },
);
const LastPass = Type.Object({ ...PassFields, finishedAt: Time }, { additionalProperties: false });
const StatusBody = Type.Object(
  {
    enabled: Type.Boolean({
      description: 'STORE_INTEGRITY_SCRUB_ENABLED: scheduled passes run (a manual pass runs either way)',
    }),
    counts: Type.Object(
      {
        ok: Type.Integer({ minimum: 0, description: 'Versions whose last check proved their bytes intact' }),
        corrupt: Type.Integer({
          minimum: 0,
          description: 'Versions whose bytes are missing, damaged or not what their ETag says',
        }),
        unchecked: Type.Integer({
          minimum: 0,
          description: 'Versions never checked yet (or whose check hit an I/O error); delete markers are not counted',
        }),
      },
      { additionalProperties: false },
    ),
    currentPass: Type.Union([CurrentPass, Type.Null()], { description: 'The pass in progress; null when idle' }),
    lastFullPass: Type.Union([LastPass, Type.Null()], {
      description: 'The last pass that reached the end; null before the first',
    }),
    nextPassAt: Type.Union([Time, Type.Null()], {
      description: 'When the next scheduled pass starts; null when disabled or running',
    }),
    repairAvailable: Type.Boolean({
      description: 'True when corrupt versions are repaired from a good copy (a replication target)',
    }),
    limits: Type.Object(
      {
        intervalMs: Count,
        objectsPerTick: Count,
        bytesPerTick: Count,
        passIntervalHours: Count,
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);

const CorruptItem = Type.Object(
  {
    bucket: Type.String(),
    key: Type.String(),
    versionId: Type.String({ description: '"null" for the version of an unversioned key' }),
    size: Count,
    detectedAt: Type.String({ format: 'date-time', description: 'When it was first found corrupt' }),
    checkedAt: Type.String({ format: 'date-time', description: 'Its last check' }),
    reason: Type.String({ description: 'missing, truncated, tampered, header, digest, unreadable or metadata' }),
    detail: Type.Union([Type.String(), Type.Null()]),
  },
  { additionalProperties: false },
);
const CorruptQuery = Type.Object(
  {
    cursor: Type.Optional(
      Type.String({ minLength: 1, maxLength: 128, description: 'nextCursor of the previous page' }),
    ),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: CORRUPT_PAGE_MAX, default: CORRUPT_PAGE_DEFAULT })),
  },
  { additionalProperties: false },
);
const ScrubAccepted = Type.Object({ started: Type.Literal(true), pass: CurrentPass }, { additionalProperties: false });

const iso = (ms: number): string => new Date(ms).toISOString();

function passView(pass: Omit<PassProgress, 'cursor'>, percent: number): Static<typeof CurrentPass> {
  return {
    startedAt: iso(pass.startedAt),
    trigger: pass.trigger,
    objectsChecked: pass.objectsChecked,
    bytesChecked: pass.bytesChecked,
    corruptFound: pass.corruptFound,
    repaired: pass.repaired,
    objectsTotal: pass.objectsTotal,
    bytesTotal: pass.bytesTotal,
    percent,
  };
}

function lastView(pass: FinishedPass): Static<typeof LastPass> {
  return {
    startedAt: iso(pass.startedAt),
    trigger: pass.trigger,
    objectsChecked: pass.objectsChecked,
    bytesChecked: pass.bytesChecked,
    corruptFound: pass.corruptFound,
    repaired: pass.repaired,
    finishedAt: iso(pass.finishedAt),
  };
}

function encodeCursor(after: { detectedAt: number; objectId: number }): string {
  return Buffer.from(JSON.stringify({ d: after.detectedAt, o: after.objectId })).toString('base64url');
}

/** Throws ValidationError naming `cursor` for anything encodeCursor did not make. */
function decodeCursor(text: string): { detectedAt: number; objectId: number } {
  try {
    if (!/^[A-Za-z0-9_-]+$/.test(text)) throw new Error('not base64url');
    const parsed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as Record<string, unknown>;
    if (Number.isSafeInteger(parsed['d']) && Number.isSafeInteger(parsed['o']) && Object.keys(parsed).length === 2) {
      return { detectedAt: parsed['d'] as number, objectId: parsed['o'] as number };
    }
  } catch {
    // fall through
  }
  throw new AppError('ValidationError', {
    message: 'cursor: not a cursor this API issued; pass nextCursor back unchanged',
  });
}

export function integrityRoutes(app: AdminApp, deps: IntegrityRouteDeps): void {
  app.get(
    '/integrity',
    {
      schema: {
        operationId: 'getIntegrityStatus',
        tags,
        summary: 'Scrub status: counts by status, the pass in progress, the last full pass',
        response: { 200: StatusBody, 401: ErrorBody },
      },
    },
    async () => {
      const s = deps.integrity.status();
      return {
        enabled: s.enabled,
        counts: s.counts,
        currentPass: s.currentPass ? passView(s.currentPass, s.currentPass.percent) : null,
        lastFullPass: s.lastFullPass ? lastView(s.lastFullPass) : null,
        nextPassAt: s.nextPassAt === undefined ? null : iso(s.nextPassAt),
        repairAvailable: s.repairAvailable,
        limits: {
          intervalMs: s.limits.intervalMs,
          objectsPerTick: s.limits.objectsPerTick,
          bytesPerTick: s.limits.bytesPerTick,
          passIntervalHours: Math.round(s.limits.passIntervalMs / 3_600_000),
        },
      };
    },
  );

  app.get(
    '/integrity/corrupt',
    {
      schema: {
        operationId: 'listCorruptObjects',
        tags,
        summary: 'Corrupt object versions, most recently detected first, keyset-paged',
        querystring: CorruptQuery,
        response: {
          200: Type.Object({ items: Type.Array(CorruptItem), nextCursor: Type.Union([Type.String(), Type.Null()]) }),
          400: ErrorBody,
          401: ErrorBody,
        },
      },
    },
    async (req) => {
      const q = req.query;
      const page = deps.integrity.listCorrupt(
        q.limit ?? CORRUPT_PAGE_DEFAULT,
        q.cursor === undefined ? undefined : decodeCursor(q.cursor),
      );
      const last = page.items[page.items.length - 1];
      return {
        items: page.items.map((e) => ({
          bucket: e.bucket,
          key: e.key,
          versionId: e.versionId,
          size: e.size,
          detectedAt: iso(e.detectedAt),
          checkedAt: iso(e.checkedAt),
          reason: e.reason,
          detail: e.detail ?? null,
        })),
        nextCursor: page.hasMore && last ? encodeCursor(last) : null,
      };
    },
  );

  app.post(
    '/integrity/scrub',
    {
      schema: {
        operationId: 'startIntegrityScrub',
        tags,
        summary: 'Start a full scrub pass now (also when the scheduled scrubber is disabled)',
        description:
          'The pass runs in the background at the configured per-tick limits; follow it with GET /integrity. 409 Conflict while a pass runs.',
        response: { 202: ScrubAccepted, 401: ErrorBody, 403: ErrorBody, 409: ErrorBody },
      },
    },
    async (req, reply) => {
      const pass = deps.integrity.startPass();
      deps.audit.record({
        event: 'integrity.scrub_started',
        subject: principalOf(req).username,
        details: { objects: pass.objectsTotal, bytes: pass.bytesTotal },
      });
      return reply.status(202).send({ started: true, pass: passView(pass, 0) });
    },
  );
}
