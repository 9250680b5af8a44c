// The target kinds and each kind's settings, as TypeBox schemas (docs/notifications.md "Targets"): the admin API
// validates a target against its kind's schema, and the kind's transport module (transports/<kind>.ts) receives the
// settings, secrets included, as `createXTransport(config)`. Secret fields are listed per kind: written, never read.

import { Type, type Static, type TObject } from '@sinclair/typebox';

export const TARGET_KINDS = ['webhook', 'redis', 'nats', 'amqp', 'mqtt', 'postgres'] as const;
export type TargetKind = (typeof TARGET_KINDS)[number];

const Url = (description: string) => Type.String({ minLength: 1, maxLength: 2048, description });
const Secret = (description: string) =>
  Type.String({ minLength: 1, maxLength: 4096, description: `${description} (write-only)` });
const Name = (description: string) => Type.String({ minLength: 1, maxLength: 255, description });
const opts = { additionalProperties: false } as const;

export const WebhookTargetConfig = Type.Object(
  {
    endpoint: Url('https URL, or http to a loopback host (127.0.0.0/8, ::1, localhost)'),
    bearerToken: Type.Optional(Secret('Sent as Authorization: Bearer <token>')),
    secret: Type.Optional(
      Type.String({
        minLength: 32,
        maxLength: 4096,
        description: 'HMAC key of X-Store-Signature, as the global webhook signs (write-only, at least 32 characters)',
      }),
    ),
    timeoutMs: Type.Optional(Type.Integer({ minimum: 100, maximum: 60_000, default: 5000 })),
  },
  opts,
);
export const RedisTargetConfig = Type.Object(
  {
    url: Url('redis://host:port[/db]'),
    username: Type.Optional(Name('ACL user')),
    password: Type.Optional(Secret('AUTH password')),
    key: Name('The list or stream key'),
    format: Type.Union([Type.Literal('list'), Type.Literal('stream')], { description: 'RPUSH to a list, or XADD' }),
  },
  opts,
);
export const NatsTargetConfig = Type.Object(
  {
    url: Url('nats://host:port'),
    subject: Name('The subject to publish on'),
    jetStream: Type.Optional(
      Type.Boolean({ description: 'Publish through JetStream (acknowledged) when a stream exists' }),
    ),
    username: Type.Optional(Name('User')),
    password: Type.Optional(Secret('Password')),
    token: Type.Optional(Secret('Token')),
  },
  opts,
);
export const AmqpTargetConfig = Type.Object(
  {
    url: Url('amqp://host:port[/vhost], without credentials'),
    username: Type.Optional(Name('User')),
    password: Type.Optional(Secret('Password')),
    exchange: Type.String({ maxLength: 255, description: 'The exchange ("" for the default exchange)' }),
    routingKey: Type.String({ maxLength: 255, description: 'The routing key' }),
  },
  opts,
);
export const MqttTargetConfig = Type.Object(
  {
    url: Url('mqtt://host:port'),
    topic: Name('The topic to publish on'),
    qos: Type.Optional(Type.Union([Type.Literal(0), Type.Literal(1)], { default: 1 })),
    username: Type.Optional(Name('User')),
    password: Type.Optional(Secret('Password')),
  },
  opts,
);
export const PostgresTargetConfig = Type.Object(
  {
    host: Name('Host'),
    port: Type.Optional(Type.Integer({ minimum: 1, maximum: 65535, default: 5432 })),
    database: Name('Database'),
    user: Name('User'),
    password: Type.Optional(Secret('Password')),
    table: Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]{0,62}$', description: 'Table name (created if missing)' }),
    format: Type.Union([Type.Literal('namespace'), Type.Literal('access')], {
      description: 'namespace: one row per key, upserted or deleted; access: one row appended per event (as MinIO)',
    }),
  },
  opts,
);

export type WebhookTargetSettings = Static<typeof WebhookTargetConfig>;

/** Each kind's settings schema and which of its fields are secrets. */
export const KIND_SCHEMAS: { readonly [K in TargetKind]: { schema: TObject; secrets: readonly string[] } } = {
  webhook: { schema: WebhookTargetConfig, secrets: ['bearerToken', 'secret'] },
  redis: { schema: RedisTargetConfig, secrets: ['password'] },
  nats: { schema: NatsTargetConfig, secrets: ['password', 'token'] },
  amqp: { schema: AmqpTargetConfig, secrets: ['password'] },
  mqtt: { schema: MqttTargetConfig, secrets: ['password'] },
  postgres: { schema: PostgresTargetConfig, secrets: ['password'] },
};

export function isTargetKind(value: string): value is TargetKind {
  return (TARGET_KINDS as readonly string[]).includes(value);
}
