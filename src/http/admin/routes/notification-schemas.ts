// TypeBox schemas of the notification routes (docs/admin-api.md "Notification targets", docs/admin-buckets-objects.md
// "Notifications"): targets with their delivery status, dead letters, and a bucket's notification configuration as
// JSON. Kept apart from the routes so the console imports their types without the services behind them.

import { Type } from '@sinclair/typebox';
import { CONFIGURABLE_EVENTS } from '../../../core/notification-config.js';
import { TARGET_KINDS } from '../../../services/notifications/target-kinds.js';
import { StringEnum, Strict } from './bucket-schemas.js';

export const Count = Type.Integer({ minimum: 0 });
const Kind = StringEnum(TARGET_KINDS);
const Settings = Type.Record(Type.String(), Type.Unknown(), {
  description:
    'The kind\'s settings (docs/notifications.md "Targets"). Secret fields (bearerToken, secret, password, token) ' +
    'are write-only: left out of a PUT, the stored ones are kept.',
});
const TargetId = Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$', description: 'The id in the target ARN' });
export const Status = Type.Object(
  {
    queued: Type.Integer({ minimum: 0, description: 'Pending deliveries (waiting or retrying)' }),
    delivered: Type.Integer({ minimum: 0, description: 'Delivered and not yet pruned (7 days)' }),
    failed: Type.Integer({ minimum: 0, description: 'Dead-lettered after STORE_NOTIFY_MAX_ATTEMPTS' }),
    lastErrorClass: Type.Union([Type.String(), Type.Null()], {
      description: 'e.g. "HTTP 503", "network error: ECONNREFUSED"; never a URL or credential',
    }),
    oldestPendingAgeSeconds: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]),
  },
  { additionalProperties: false },
);
export const TargetBody = Type.Object(
  {
    id: Type.String(),
    kind: Kind,
    arn: Type.String({ description: 'arn:store:sqs:<region>:<id>:<kind>, what bucket configurations name' }),
    config: Settings,
    secretsSet: Type.Array(Type.String(), { description: 'Names of the secret fields that are set' }),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
    status: Status,
  },
  { additionalProperties: false },
);
export const CreateBody = Strict({ id: TargetId, kind: Kind, config: Settings });
export const ReplaceBody = Strict({ kind: Kind, config: Settings });
export const Params = Type.Object({ id: TargetId });
export const DeadLetter = Type.Object(
  {
    id: Type.Integer({ description: 'The delivery id (retry one by it)' }),
    bucket: Type.String(),
    key: Type.String(),
    eventName: Type.String(),
    attempts: Count,
    lastError: Type.Union([Type.String(), Type.Null()]),
    failedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  },
  { additionalProperties: false },
);
export const DeadLetterQuery = Type.Object({
  cursor: Type.Optional(Type.String({ pattern: '^[0-9]{1,15}$', description: 'nextCursor of the previous page' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
});
export const RetryBody = Strict(
  { id: Type.Optional(Type.Integer({ minimum: 1, description: 'One dead letter; omitted: all of the target' })) },
  { description: 'Makes dead letters pending again, due at once' },
);

// A bucket's notification configuration.
const Rule = Strict({
  id: Type.Optional(
    Type.String({ maxLength: 255, description: 'The configuration Id (generated when absent or empty, as AWS)' }),
  ),
  kind: Type.Optional(
    StringEnum(['Queue', 'Topic', 'CloudFunction'] as const, {
      description: 'Which S3 configuration list it is answered in (all route alike; default Queue)',
    }),
  ),
  arn: Type.String({ minLength: 1, maxLength: 2048, description: 'A target ARN, arn:store:sqs:<region>:<id>:<kind>' }),
  events: Type.Array(StringEnum(CONFIGURABLE_EVENTS as readonly string[]), {
    minItems: 1,
    description: "AWS's event names, e.g. s3:ObjectCreated:Put or the wildcard s3:ObjectCreated:*",
  }),
  prefix: Type.Optional(Type.String({ maxLength: 1024, description: 'Filter.S3Key prefix rule' })),
  suffix: Type.Optional(Type.String({ maxLength: 1024, description: 'Filter.S3Key suffix rule' })),
});
export const NotificationBody = Strict(
  { rules: Type.Array(Rule, { maxItems: 1000 }) },
  { description: 'The bucket notification configuration; no rules means none' },
);
export const NotificationResponse = Type.Object({
  rules: Type.Array(
    Type.Object({
      id: Type.String(),
      kind: StringEnum(['Queue', 'Topic', 'CloudFunction'] as const),
      arn: Type.String(),
      events: Type.Array(Type.String()),
      prefix: Type.Optional(Type.String()),
      suffix: Type.Optional(Type.String()),
    }),
  ),
});
