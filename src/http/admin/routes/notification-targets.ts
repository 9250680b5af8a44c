// Bucket notification targets (docs/admin-api.md "Notification targets"): list with per-target delivery status,
// create, read, replace and delete (full-admin, audited), dead letters listed and retried. Secrets are write-only:
// a target shows which of its secrets are set, never their values.

import { Type, type Static } from '@sinclair/typebox';
import type { AuditSink } from '../../../services/audit/audit-events.js';
import type { NotificationService, TargetStatus } from '../../../services/notifications/notification-service.js';
import type { NotificationTargets, Target, TargetView } from '../../../services/notifications/notification-targets.js';
import { principalOf } from '../admin-principal.js';
import type { AdminApp } from '../typebox-type-provider.js';
import {
  Count,
  CreateBody,
  DeadLetter,
  DeadLetterQuery,
  Params,
  ReplaceBody,
  RetryBody,
  Status,
  TargetBody,
} from './notification-schemas.js';
import { ErrorBody, noContent } from './schemas.js';

export interface NotificationTargetRouteDeps {
  notificationTargets: NotificationTargets;
  notifications: NotificationService;
  audit: AuditSink;
}

const EMPTY_STATUS: Static<typeof Status> = {
  queued: 0,
  delivered: 0,
  failed: 0,
  lastErrorClass: null,
  oldestPendingAgeSeconds: null,
};

function withStatus(view: TargetView, status: TargetStatus | undefined): Static<typeof TargetBody> {
  if (status === undefined) return { ...view, status: EMPTY_STATUS };
  const { queued, delivered, failed, lastErrorClass, oldestPendingAgeSeconds } = status;
  return { ...view, status: { queued, delivered, failed, lastErrorClass, oldestPendingAgeSeconds } };
}

export function notificationTargetRoutes(app: AdminApp, deps: NotificationTargetRouteDeps): void {
  const { notificationTargets: targets, notifications } = deps;
  const show = (target: Target) =>
    withStatus(
      targets.view(target),
      notifications.status().find((s) => s.id === target.id),
    );
  const tags = ['notifications'];

  app.get(
    '/notification-targets',
    {
      schema: {
        operationId: 'listNotificationTargets',
        tags,
        summary: 'Notification targets with their delivery status (secrets never shown)',
        response: { 200: Type.Object({ items: Type.Array(TargetBody) }), 401: ErrorBody },
      },
    },
    async () => {
      const status = notifications.status();
      return {
        items: targets.all().map((t) =>
          withStatus(
            targets.view(t),
            status.find((s) => s.id === t.id),
          ),
        ),
      };
    },
  );

  app.post(
    '/notification-targets',
    {
      schema: {
        operationId: 'createNotificationTarget',
        tags,
        summary: 'Create a notification target (full-admin)',
        body: CreateBody,
        response: { 201: TargetBody, 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 409: ErrorBody },
      },
    },
    async (req, reply) => {
      const target = targets.create(req.body.id, { kind: req.body.kind, config: req.body.config });
      deps.audit.record({
        event: 'notification_target.created',
        subject: principalOf(req).username,
        details: { id: target.id, kind: target.kind },
      });
      return reply.status(201).send(show(target));
    },
  );

  app.get(
    '/notification-targets/:id',
    {
      schema: {
        operationId: 'getNotificationTarget',
        tags,
        summary: 'One notification target with its delivery status',
        params: Params,
        response: { 200: TargetBody, 401: ErrorBody, 404: ErrorBody },
      },
    },
    async (req) => show(targets.get(req.params.id)),
  );

  app.put(
    '/notification-targets/:id',
    {
      schema: {
        operationId: 'replaceNotificationTarget',
        tags,
        summary: "Replace a target's settings; secrets left out are kept (full-admin)",
        params: Params,
        body: ReplaceBody,
        response: { 200: TargetBody, 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody },
      },
    },
    async (req) => {
      const target = targets.update(req.params.id, { kind: req.body.kind, config: req.body.config });
      deps.audit.record({
        event: 'notification_target.updated',
        subject: principalOf(req).username,
        details: { id: target.id, kind: target.kind, fields: Object.keys(req.body.config).sort() },
      });
      return show(target);
    },
  );

  app.delete(
    '/notification-targets/:id',
    {
      schema: {
        operationId: 'deleteNotificationTarget',
        tags,
        summary: 'Delete a target and its queued deliveries (full-admin)',
        params: Params,
        response: { 204: noContent('Deleted'), 401: ErrorBody, 403: ErrorBody, 404: ErrorBody },
      },
    },
    async (req, reply) => {
      targets.delete(req.params.id);
      deps.audit.record({
        event: 'notification_target.deleted',
        subject: principalOf(req).username,
        details: { id: req.params.id },
      });
      return reply.status(204).send();
    },
  );

  app.get(
    '/notification-targets/:id/dead-letters',
    {
      schema: {
        operationId: 'listNotificationDeadLetters',
        tags,
        summary: "A target's dead-lettered deliveries, oldest first",
        params: Params,
        querystring: DeadLetterQuery,
        response: {
          200: Type.Object({ items: Type.Array(DeadLetter), nextCursor: Type.Union([Type.String(), Type.Null()]) }),
          400: ErrorBody,
          401: ErrorBody,
          404: ErrorBody,
        },
      },
    },
    async (req) => {
      const limit = req.query.limit ?? 100;
      const rows = notifications.deadLetters(req.params.id, Number(req.query.cursor ?? 0), limit);
      const last = rows.at(-1);
      return {
        items: rows.map((r) => ({
          id: r.id,
          bucket: r.bucket,
          key: r.key,
          eventName: r.eventName,
          attempts: r.attempts,
          lastError: r.lastError ?? null,
          failedAt: r.finishedAt === undefined ? null : new Date(r.finishedAt).toISOString(),
        })),
        nextCursor: rows.length === limit && last !== undefined ? String(last.id) : null,
      };
    },
  );

  app.post(
    '/notification-targets/:id/dead-letters/retry',
    {
      schema: {
        operationId: 'retryNotificationDeadLetters',
        tags,
        summary: "Make a target's dead letters (or one) pending again (full-admin)",
        params: Params,
        body: RetryBody,
        response: {
          200: Type.Object({ retried: Count }),
          400: ErrorBody,
          401: ErrorBody,
          403: ErrorBody,
          404: ErrorBody,
        },
      },
    },
    async (req) => {
      const retried = notifications.retry(req.params.id, req.body.id);
      deps.audit.record({
        event: 'notification_target.retried',
        subject: principalOf(req).username,
        details: { id: req.params.id, retried },
      });
      return { retried };
    },
  );
}
