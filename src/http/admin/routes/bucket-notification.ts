// A bucket's notification configuration in the admin API (docs/admin-buckets-objects.md "Notifications"): the same
// document PutBucketNotificationConfiguration sets, as JSON. Validated by core/notification-config.ts as the S3 plane
// does, every ARN checked against the defined targets in the transaction that stores it (newly referenced targets get
// an s3:TestEvent); refusals name the configurations and the ARN in words. Full-admin to change, audited.

import { randomUUID } from 'node:crypto';
import type { Static } from '@sinclair/typebox';
import { validateConfigPart } from '../../../core/bucket-config-parts.js';
import { AppError, isAppError } from '../../../core/errors.js';
import type { NotificationConfiguration, NotificationRule } from '../../../core/notification-config.js';
import type { AuditSink } from '../../../services/audit/audit-events.js';
import type { BucketService } from '../../../services/bucket-service.js';
import type { NotificationService } from '../../../services/notifications/notification-service.js';
import { principalOf } from '../admin-principal.js';
import type { AdminApp } from '../typebox-type-provider.js';
import { BucketNameParams, NoContent } from './bucket-schemas.js';
import { NotificationBody, NotificationResponse } from './notification-schemas.js';
import { ErrorBody } from './schemas.js';

export interface BucketNotificationRouteDeps {
  buckets: BucketService;
  notifications: NotificationService;
  audit: AuditSink;
}

const tags = ['bucket configuration'];

function toConfig(body: Static<typeof NotificationBody>): NotificationConfiguration {
  return {
    rules: body.rules.map((r): NotificationRule => ({
      id: r.id === undefined || r.id === '' ? `store-${randomUUID()}` : r.id,
      kind: r.kind ?? 'Queue',
      arn: r.arn,
      events: r.events,
      ...(r.prefix ? { prefix: r.prefix } : {}),
      ...(r.suffix ? { suffix: r.suffix } : {}),
    })),
  };
}

/** The first pair of rules core refuses together (the ambiguous ones), by their Ids. */
function overlappingPair(config: NotificationConfiguration): [NotificationRule, NotificationRule] | undefined {
  for (const [i, a] of config.rules.entries()) {
    for (const b of config.rules.slice(i + 1)) {
      try {
        validateConfigPart('notification', { rules: [a, b] }, '');
      } catch {
        return [a, b];
      }
    }
  }
  return undefined;
}

/**
 * core's InvalidArgument (AWS's words, which name nothing) with the configurations and the ARN it is about, so the
 * console can show the reason in words beside the form. Other errors pass through.
 */
function explained(err: unknown, config: NotificationConfiguration): unknown {
  if (!isAppError(err) || err.code !== 'InvalidArgument') return err;
  const arns = new Set(config.rules.map((r) => r.arn));
  const named = Object.entries(err.details)
    .filter(([name]) => name.startsWith('ArgumentName'))
    .map(([, value]) => value);
  const missing = named.filter((value) => arns.has(value));
  const words = (message: string): AppError => new AppError('InvalidArgument', { message, cause: err });
  if (missing.length > 0) {
    const ids = config.rules.filter((r) => missing.includes(r.arn)).map((r) => r.id);
    return words(
      `${err.message}: no notification target has the ARN ${missing.join(', ')} ` +
        `(configuration ${ids.join(', ')}). Create the target first, or choose one that exists.`,
    );
  }
  const pair = err.details['ArgumentName'] === 'Event' ? overlappingPair(config) : undefined;
  if (pair !== undefined) {
    return words(
      `Configurations ${pair[0].id} and ${pair[1].id} overlap: they share the event ${err.details['ArgumentValue']} ` +
        'and a key could match both filters (one prefix starts the other and one suffix ends the other). ' +
        'Give them prefixes or suffixes that cannot both match, or merge them.',
    );
  }
  if (err.details['ArgumentName'] === 'Id') return words(`${err.message} (${err.details['ArgumentValue']})`);
  return err;
}

/**
 * GET, PUT and DELETE /buckets/:name/notification. Throws NoSuchBucket (404), ValidationError (400: an unknown event
 * name or field), InvalidArgument (400: an ARN no target has, overlapping configurations, a duplicate Id).
 */
export function bucketNotificationRoutes(app: AdminApp, deps: BucketNotificationRouteDeps): void {
  const path = '/buckets/:name/notification';

  app.get(
    path,
    {
      schema: {
        operationId: 'getBucketNotification',
        tags,
        summary: "The bucket's notification configuration ({rules: []} when none is set, as S3 answers)",
        params: BucketNameParams,
        response: { 200: NotificationResponse, 401: ErrorBody, 404: ErrorBody },
      },
    },
    async (req) => ({ rules: deps.buckets.get(req.params.name).config.notification?.rules ?? [] }),
  );

  app.put(
    path,
    {
      schema: {
        operationId: 'putBucketNotification',
        tags,
        summary: "Set (replace) the bucket's notification configuration; no rules removes it",
        description:
          'InvalidArgument (400) for an ARN that names no target, two configurations with a shared event whose ' +
          'filters overlap, or a duplicate Id, each naming the configurations concerned. Each target newly ' +
          'referenced is sent an s3:TestEvent.',
        params: BucketNameParams,
        body: NotificationBody,
        response: { 200: NotificationResponse, 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody },
      },
    },
    async (req) => {
      const name = req.params.name;
      const next = toConfig(req.body);
      try {
        validateConfigPart('notification', next, name);
        deps.buckets.updateConfig(name, (config) => {
          deps.notifications.applyConfiguration({
            bucket: name,
            previous: config.notification,
            next,
            requestId: req.id,
          });
          const updated = { ...config };
          if (next.rules.length === 0) delete updated.notification;
          else updated.notification = next;
          return updated;
        });
      } catch (err) {
        throw explained(err, next);
      }
      deps.audit.record({
        event: 'bucket.config_updated',
        subject: principalOf(req).username,
        bucket: name,
        details: { kind: 'notification', rules: next.rules.length },
      });
      return { rules: next.rules };
    },
  );

  app.delete(
    path,
    {
      schema: {
        operationId: 'deleteBucketNotification',
        tags,
        summary: "Remove the bucket's notification configuration (204 whether or not it had one)",
        params: BucketNameParams,
        response: { 204: NoContent, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody },
      },
    },
    async (req, reply) => {
      const name = req.params.name;
      deps.buckets.updateConfig(name, (config) => {
        const updated = { ...config };
        delete updated.notification;
        return updated;
      });
      deps.audit.record({
        event: 'bucket.config_deleted',
        subject: principalOf(req).username,
        bucket: name,
        details: { kind: 'notification' },
      });
      return reply.status(204).send();
    },
  );
}
