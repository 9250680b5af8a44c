// Bucket notifications in the console (docs/console.md "Notifications"): each target kind's form fields (typed
// against the server's settings schemas, so a field the server adds or renames fails `tsc`), the form's text turned
// into settings (secrets only when typed: left empty, a stored one is kept), a target's health in words and colour,
// the AWS event names grouped under their wildcards, and a configuration in words. Pure (unit-tested in Node).

import type { Static, TObject } from '@sinclair/typebox';
import type { NotificationEventName } from '../../../src/core/notification-config.js';
import type * as Kinds from '../../../src/services/notifications/target-kinds.js';
import { formatCount, formatDuration } from './format';
import type { Health } from './health';

export type TargetKind = Kinds.TargetKind;
export const TARGET_KIND_LABELS: Readonly<Record<TargetKind, string>> = {
  webhook: 'Webhook (HTTPS)',
  redis: 'Redis',
  nats: 'NATS',
  amqp: 'AMQP (RabbitMQ)',
  mqtt: 'MQTT',
  postgres: 'PostgreSQL',
};

export interface FieldSpec {
  label: string;
  type: 'text' | 'number' | 'secret' | 'select' | 'checkbox';
  required?: boolean;
  /** Sent even when empty ("" is AMQP's default exchange). */
  allowEmpty?: boolean;
  hint?: string;
  /** A select's values (sent as numbers when `numeric`). */
  options?: readonly string[];
  numeric?: boolean;
  /** The form's starting value for a new target. */
  initial?: string | boolean;
}
export interface Field extends FieldSpec {
  name: string;
}

/** One spec per settings field of the kind: every field, and no other (a mapped type over the server's schema). */
type FieldsOf<S extends TObject> = { readonly [K in keyof Static<S>]-?: FieldSpec };

const url = (hint: string): FieldSpec => ({ label: 'URL', type: 'text', required: true, hint });
const secret = (label: string, hint?: string): FieldSpec => ({ label, type: 'secret', ...(hint ? { hint } : {}) });
const user = (label = 'Username'): FieldSpec => ({ label, type: 'text' });

const WEBHOOK: FieldsOf<typeof Kinds.WebhookTargetConfig> = {
  endpoint: {
    label: 'Endpoint',
    type: 'text',
    required: true,
    hint: 'An https URL, or http to localhost, 127.0.0.0/8 or [::1]; no credentials in it.',
  },
  bearerToken: secret('Bearer token', 'Sent as Authorization: Bearer <token>.'),
  secret: secret('Signing secret', 'At least 32 characters: each request is signed as the global webhook signs.'),
  timeoutMs: { label: 'Timeout (ms)', type: 'number', hint: 'Default 5000.' },
};
const REDIS: FieldsOf<typeof Kinds.RedisTargetConfig> = {
  url: url('redis://host:port[/db]; rediss:// for TLS.'),
  key: { label: 'Key', type: 'text', required: true, hint: 'The list or stream the events go to.' },
  format: { label: 'Format', type: 'select', options: ['list', 'stream'], initial: 'list', hint: 'RPUSH or XADD.' },
  username: user('ACL user'),
  password: secret('Password'),
};
const NATS: FieldsOf<typeof Kinds.NatsTargetConfig> = {
  url: url('nats://host:port'),
  subject: { label: 'Subject', type: 'text', required: true },
  jetStream: {
    label: 'Publish through JetStream when a stream holds the subject (acknowledged)',
    type: 'checkbox',
    initial: true,
  },
  username: user(),
  password: secret('Password'),
  token: secret('Token'),
};
const AMQP: FieldsOf<typeof Kinds.AmqpTargetConfig> = {
  url: url('amqp://host:port[/vhost], without credentials; amqps:// for TLS.'),
  exchange: { label: 'Exchange', type: 'text', allowEmpty: true, hint: 'Empty for the default exchange.' },
  routingKey: { label: 'Routing key', type: 'text', allowEmpty: true },
  username: user(),
  password: secret('Password'),
};
const MQTT: FieldsOf<typeof Kinds.MqttTargetConfig> = {
  url: url('mqtt://host:port; mqtts:// for TLS.'),
  topic: { label: 'Topic', type: 'text', required: true, hint: 'No wildcards.' },
  qos: { label: 'QoS', type: 'select', options: ['1', '0'], numeric: true, initial: '1' },
  username: user(),
  password: secret('Password'),
};
const POSTGRES: FieldsOf<typeof Kinds.PostgresTargetConfig> = {
  host: { label: 'Host', type: 'text', required: true },
  port: { label: 'Port', type: 'number', initial: '5432' },
  database: { label: 'Database', type: 'text', required: true },
  user: { label: 'User', type: 'text', required: true },
  password: secret('Password'),
  table: { label: 'Table', type: 'text', required: true, hint: 'Letters, digits and _; created when missing.' },
  format: {
    label: 'Format',
    type: 'select',
    options: ['namespace', 'access'],
    initial: 'namespace',
    hint: 'namespace: one row per key; access: one row per event.',
  },
};

const SPECS: { readonly [K in TargetKind]: Readonly<Record<string, FieldSpec>> } = {
  webhook: WEBHOOK,
  redis: REDIS,
  nats: NATS,
  amqp: AMQP,
  mqtt: MQTT,
  postgres: POSTGRES,
};

/** The kind's fields in form order. */
export function fieldsOf(kind: TargetKind): Field[] {
  return Object.entries(SPECS[kind]).map(([name, spec]) => ({ name, ...spec }));
}

export type FormValues = Record<string, string | boolean>;

/** The form's values for a new target of `kind`, or for an existing target's settings (secrets always empty). */
export function formValues(kind: TargetKind, config?: Record<string, unknown>): FormValues {
  const out: FormValues = {};
  for (const f of fieldsOf(kind)) {
    const stored = config?.[f.name];
    if (f.type === 'secret') out[f.name] = '';
    else if (f.type === 'checkbox') out[f.name] = typeof stored === 'boolean' ? stored : f.initial === true;
    else if (config !== undefined) out[f.name] = stored === undefined || stored === null ? '' : String(stored);
    else out[f.name] = typeof f.initial === 'string' ? f.initial : '';
  }
  return out;
}

/**
 * The settings to send for the form's values, or the sentence saying what is missing. Secrets are sent only when
 * typed, so an edit that leaves them empty keeps the stored ones (the server keeps secrets a PUT leaves out).
 */
export function settingsOf(kind: TargetKind, values: FormValues): Record<string, unknown> | string {
  const config: Record<string, unknown> = {};
  for (const f of fieldsOf(kind)) {
    const raw = values[f.name];
    if (f.type === 'checkbox') {
      config[f.name] = raw === true;
      continue;
    }
    const text = typeof raw === 'string' ? (f.type === 'secret' ? raw : raw.trim()) : '';
    if (text === '') {
      if (f.allowEmpty) config[f.name] = '';
      else if (f.required) return `${f.label} is required.`;
      continue;
    }
    if (f.type === 'number' || f.numeric) {
      if (!/^\d+$/.test(text)) return `${f.label} must be a whole number.`;
      config[f.name] = Number(text);
    } else {
      config[f.name] = text;
    }
  }
  return config;
}

export interface TargetStatusFacts {
  queued: number;
  delivered: number;
  failed: number;
  lastErrorClass: string | null;
  oldestPendingAgeSeconds: number | null;
}

/**
 * A target's health: dead letters, or a last attempt that failed (retrying), are red; deliveries waiting amber;
 * green only when everything sent was delivered. docs/console.md "Health".
 */
export function targetHealth(s: TargetStatusFacts): Health {
  const age = s.oldestPendingAgeSeconds === null ? '' : `, oldest ${formatDuration(s.oldestPendingAgeSeconds)}`;
  if (s.failed > 0)
    return {
      value: `${formatCount(s.failed)} failed`,
      detail: `Dead-lettered${s.lastErrorClass ? `: ${s.lastErrorClass}` : ''}`,
      tone: 'bad',
    };
  if (s.lastErrorClass !== null)
    return {
      value: 'Failing',
      detail: `${s.lastErrorClass}; ${formatCount(s.queued)} pending, retrying${age}`,
      tone: 'bad',
    };
  if (s.queued > 0)
    return { value: `${formatCount(s.queued)} pending`, detail: `Not yet delivered${age}`, tone: 'warn' };
  if (s.delivered > 0) return { value: 'Delivering', detail: `${formatCount(s.delivered)} delivered`, tone: 'ok' };
  return { value: 'Idle', detail: 'Nothing sent yet', tone: undefined };
}

export interface EventGroup {
  label: string;
  /** The `:*` name covering the group, when AWS defines one. */
  wildcard?: string;
  events: readonly NotificationEventName[];
}

/** Every event a configuration may name, under its wildcard (AWS's "Supported event types"). */
export const EVENT_GROUPS: readonly EventGroup[] = [
  {
    label: 'Object created',
    wildcard: 's3:ObjectCreated:*',
    events: [
      's3:ObjectCreated:Put',
      's3:ObjectCreated:Post',
      's3:ObjectCreated:Copy',
      's3:ObjectCreated:CompleteMultipartUpload',
    ],
  },
  {
    label: 'Object removed',
    wildcard: 's3:ObjectRemoved:*',
    events: ['s3:ObjectRemoved:Delete', 's3:ObjectRemoved:DeleteMarkerCreated'],
  },
  {
    label: 'Object tagging',
    wildcard: 's3:ObjectTagging:*',
    events: ['s3:ObjectTagging:Put', 's3:ObjectTagging:Delete'],
  },
  {
    label: 'Object restore',
    wildcard: 's3:ObjectRestore:*',
    events: ['s3:ObjectRestore:Post', 's3:ObjectRestore:Completed'],
  },
  {
    label: 'Lifecycle expiration',
    wildcard: 's3:LifecycleExpiration:*',
    events: ['s3:LifecycleExpiration:Delete', 's3:LifecycleExpiration:DeleteMarkerCreated'],
  },
  { label: 'Lifecycle transition', events: ['s3:LifecycleTransition'] },
];

/** The chosen names without those a chosen wildcard already covers, in the groups' order. */
export function normaliseEvents(chosen: readonly string[]): string[] {
  const out: string[] = [];
  for (const g of EVENT_GROUPS) {
    if (g.wildcard !== undefined && chosen.includes(g.wildcard)) out.push(g.wildcard);
    else out.push(...g.events.filter((e) => chosen.includes(e)));
  }
  return out;
}

export interface RuleFacts {
  id: string;
  arn: string;
  events: readonly string[];
  prefix?: string;
  suffix?: string;
}

/** "images: ObjectCreated:* for keys starting images/ and ending .jpg, to orders (webhook)". */
export function ruleSummary(
  rule: RuleFacts,
  targets: ReadonlyArray<{ arn: string; id: string; kind: string }>,
): string {
  const events = rule.events.map((e) => e.replace(/^s3:/, '')).join(', ');
  const filters = [rule.prefix ? `starting ${rule.prefix}` : '', rule.suffix ? `ending ${rule.suffix}` : ''].filter(
    Boolean,
  );
  const keys = filters.length > 0 ? ` for keys ${filters.join(' and ')}` : ' for every key';
  const target = targets.find((t) => t.arn === rule.arn);
  const to = target ? `${target.id} (${target.kind})` : `${rule.arn} (no such target: nothing is sent)`;
  return `${rule.id}: ${events}${keys}, to ${to}`;
}
