import { Value } from '@sinclair/typebox/value';
import { describe, expect, it } from 'vitest';
import { CONFIGURABLE_EVENTS } from '../../../src/core/notification-config.js';
import { KIND_SCHEMAS, TARGET_KINDS } from '../../../src/services/notifications/target-kinds.js';
import {
  EVENT_GROUPS,
  fieldsOf,
  formValues,
  normaliseEvents,
  ruleSummary,
  settingsOf,
  targetHealth,
} from './notifications';

const idle = { queued: 0, delivered: 0, failed: 0, lastErrorClass: null, oldestPendingAgeSeconds: null };

describe('target forms', () => {
  it("have one field per setting of each kind's server schema, secrets as secret fields", () => {
    for (const kind of TARGET_KINDS) {
      const { schema, secrets } = KIND_SCHEMAS[kind];
      const fields = fieldsOf(kind);
      expect(fields.map((f) => f.name).sort(), kind).toEqual(Object.keys(schema.properties).sort());
      expect(
        fields
          .filter((f) => f.type === 'secret')
          .map((f) => f.name)
          .sort(),
        kind,
      ).toEqual([...secrets].sort());
      const required = (schema.required ?? []) as string[];
      for (const f of fields) {
        // A required setting is a required (or sent-when-empty) field, unless a select always gives it a value.
        const demanded = f.required === true || f.allowEmpty === true || f.type === 'select';
        expect(demanded, `${kind}.${f.name}`).toBe(required.includes(f.name) || f.type === 'select');
      }
    }
  });

  it('turn the form into settings: trimmed, numbers as numbers, secrets only when typed', () => {
    const values = {
      ...formValues('webhook'),
      endpoint: ' https://hooks.example.com/s3 ',
      timeoutMs: '2000',
      bearerToken: '',
      secret: 's'.repeat(32),
    };
    expect(settingsOf('webhook', values)).toEqual({
      endpoint: 'https://hooks.example.com/s3',
      timeoutMs: 2000,
      secret: 's'.repeat(32),
    });
    expect(settingsOf('webhook', { ...values, endpoint: '' })).toBe('Endpoint is required.');
    expect(settingsOf('webhook', { ...values, timeoutMs: '2 s' })).toBe('Timeout (ms) must be a whole number.');
    expect(settingsOf('mqtt', { ...formValues('mqtt'), url: 'mqtt://127.0.0.1:1883', topic: 't' })).toEqual({
      url: 'mqtt://127.0.0.1:1883',
      topic: 't',
      qos: 1,
    });
    // AMQP's default exchange is "", sent as such.
    expect(settingsOf('amqp', { ...formValues('amqp'), url: 'amqp://127.0.0.1:5672/' })).toEqual({
      url: 'amqp://127.0.0.1:5672/',
      exchange: '',
      routingKey: '',
    });
    expect(settingsOf('nats', { ...formValues('nats'), url: 'nats://h:4222', subject: 's' })).toMatchObject({
      jetStream: true,
    });
  });

  it("give settings each kind's server schema accepts, with every field filled and with the required ones only", () => {
    const sample = (name: string): string =>
      name === 'url'
        ? 'proto://127.0.0.1:1'
        : name === 'endpoint'
          ? 'https://hooks.example.com/s3'
          : name === 'table'
            ? 'store_events'
            : 'x'.repeat(40);
    for (const kind of TARGET_KINDS) {
      const { schema } = KIND_SCHEMAS[kind];
      const full = formValues(kind);
      const minimal = formValues(kind);
      for (const f of fieldsOf(kind)) {
        if (f.type === 'text' || f.type === 'secret') full[f.name] = sample(f.name);
        if (f.type === 'number') full[f.name] = String(f.name === 'port' ? 5432 : 3000);
        if (f.required) minimal[f.name] = sample(f.name);
      }
      for (const values of [full, minimal]) {
        const config = settingsOf(kind, values);
        expect(typeof config, `${kind}: ${String(config)}`).toBe('object');
        expect(
          [...Value.Errors(schema, config)].map((e) => `${e.path} ${e.message}`),
          kind,
        ).toEqual([]);
      }
    }
  });

  it("fill an edit form from a target's settings, never with a secret", () => {
    const values = formValues('redis', { url: 'redis://h:6379/0', key: 'events', format: 'stream' });
    expect(values).toEqual({ url: 'redis://h:6379/0', key: 'events', format: 'stream', username: '', password: '' });
    expect(formValues('postgres')).toMatchObject({ port: '5432', format: 'namespace' });
  });
});

describe('target health', () => {
  it('is red for dead letters and for a failing target, amber while waiting, green only when delivered', () => {
    expect(targetHealth(idle)).toEqual({ value: 'Idle', detail: 'Nothing sent yet', tone: undefined });
    expect(targetHealth({ ...idle, delivered: 3 })).toEqual({ value: 'Delivering', detail: '3 delivered', tone: 'ok' });
    expect(targetHealth({ ...idle, delivered: 3, queued: 2, oldestPendingAgeSeconds: 5 })).toMatchObject({
      value: '2 pending',
      tone: 'warn',
    });
    const failing = { ...idle, delivered: 3, queued: 1, lastErrorClass: 'network error: ECONNREFUSED' };
    expect(targetHealth(failing)).toMatchObject({ value: 'Failing', tone: 'bad' });
    expect(targetHealth(failing).detail).toContain('ECONNREFUSED');
    expect(targetHealth({ ...idle, delivered: 9, failed: 1, lastErrorClass: 'HTTP 503' })).toEqual({
      value: '1 failed',
      detail: 'Dead-lettered: HTTP 503',
      tone: 'bad',
    });
  });
});

describe('event names', () => {
  it('group every name a configuration may use, each under its wildcard', () => {
    const listed = EVENT_GROUPS.flatMap((g) => [...(g.wildcard ? [g.wildcard] : []), ...g.events]);
    expect([...listed].sort()).toEqual([...CONFIGURABLE_EVENTS].sort());
    for (const g of EVENT_GROUPS)
      for (const e of g.events) if (g.wildcard) expect(e.startsWith(g.wildcard.slice(0, -1))).toBe(true);
  });

  it('drop the names a chosen wildcard covers', () => {
    expect(
      normaliseEvents([
        's3:ObjectCreated:Put',
        's3:ObjectCreated:*',
        's3:ObjectRemoved:Delete',
        's3:LifecycleTransition',
      ]),
    ).toEqual(['s3:ObjectCreated:*', 's3:ObjectRemoved:Delete', 's3:LifecycleTransition']);
  });

  it('describe a configuration in words, saying when its target does not exist', () => {
    const targets = [{ id: 'orders', kind: 'webhook', arn: 'arn:store:sqs:us-east-1:orders:webhook' }];
    expect(
      ruleSummary(
        { id: 'images', arn: targets[0]!.arn, events: ['s3:ObjectCreated:*'], prefix: 'images/', suffix: '.jpg' },
        targets,
      ),
    ).toBe('images: ObjectCreated:* for keys starting images/ and ending .jpg, to orders (webhook)');
    expect(
      ruleSummary({ id: 'x', arn: 'arn:store:sqs:us-east-1:gone:redis', events: ['s3:ObjectRemoved:*'] }, []),
    ).toBe('x: ObjectRemoved:* for every key, to arn:store:sqs:us-east-1:gone:redis (no such target: nothing is sent)');
  });
});
