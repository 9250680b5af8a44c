// The persisted audit log: GET /audit (filters, keyset paging, newest first) and GET /audit/catalog (event names).

import { Type } from '@sinclair/typebox';
import { AppError } from '../../../core/errors.js';
import { parseIso8601 } from '../../../core/iso8601.js';
import { AUDIT_EVENTS } from '../../../services/audit/audit-events.js';
import type { AuditListQuery, AuditPage } from '../../../services/audit/audit-service.js';
import type { AdminApp } from '../typebox-type-provider.js';
import { ErrorBody } from './schemas.js';

export interface AuditRouteDeps {
  auditLog: { list(query: AuditListQuery): AuditPage };
}

export const AUDIT_PAGE_DEFAULT = 50;
export const AUDIT_PAGE_MAX = 200;

const AuditItem = Type.Object({
  id: Type.String(),
  time: Type.String({ format: 'date-time' }),
  event: Type.String(),
  subject: Type.String(),
  bucket: Type.Union([Type.String(), Type.Null()]),
  details: Type.Record(Type.String(), Type.Unknown(), {
    description: 'Context of the action; secret-looking fields are stripped',
  }),
});
const AuditQuery = Type.Object(
  {
    event: Type.Optional(
      Type.String({ minLength: 1, maxLength: 64, description: 'An event name from /audit/catalog' }),
    ),
    subject: Type.Optional(Type.String({ minLength: 1, maxLength: 256, description: 'Who acted (username)' })),
    bucket: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    from: Type.Optional(Type.String({ description: 'ISO 8601; inclusive' })),
    to: Type.Optional(Type.String({ description: 'ISO 8601; exclusive' })),
    cursor: Type.Optional(
      Type.String({ minLength: 1, maxLength: 128, description: 'nextCursor of the previous page' }),
    ),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: AUDIT_PAGE_MAX, default: AUDIT_PAGE_DEFAULT })),
  },
  { additionalProperties: false },
);

function instant(field: 'from' | 'to', value: string | undefined): Date | undefined {
  if (value === undefined) return undefined;
  const parsed = parseIso8601(value);
  if (!parsed) throw new AppError('ValidationError', { message: `${field}: must be an ISO 8601 date or date-time` });
  return parsed;
}

export function auditRoutes(app: AdminApp, deps: AuditRouteDeps): void {
  app.get(
    '/audit',
    {
      schema: {
        operationId: 'listAudit',
        tags: ['audit'],
        summary: 'Audit records, newest first, keyset-paged',
        querystring: AuditQuery,
        response: {
          200: Type.Object({ items: Type.Array(AuditItem), nextCursor: Type.Union([Type.String(), Type.Null()]) }),
          400: ErrorBody,
        },
      },
    },
    async (req) => {
      const q = req.query;
      const from = instant('from', q.from);
      const to = instant('to', q.to);
      return deps.auditLog.list({
        event: q.event,
        subject: q.subject,
        bucket: q.bucket,
        from,
        to,
        cursor: q.cursor,
        limit: q.limit ?? AUDIT_PAGE_DEFAULT,
      });
    },
  );

  app.get(
    '/audit/catalog',
    {
      schema: {
        operationId: 'auditCatalog',
        tags: ['audit'],
        summary: 'Every audit event name, for a filter',
        response: { 200: Type.Object({ events: Type.Array(Type.String()) }) },
      },
    },
    async () => ({ events: [...AUDIT_EVENTS] }),
  );
}
