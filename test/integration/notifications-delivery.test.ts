// Bucket notification delivery against the real server (docs/notifications.md "Delivery"): a key's events arrive in
// commit order through retries, a dead target holds back neither writes nor another target, its dead letters are
// listed and retried from the admin API, and a kill -9 between commit and delivery loses nothing.

import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { PutBucketNotificationConfigurationCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { startStore, useStore, type Store } from '../helpers/store.js';
import { useWebhookReceiver } from '../helpers/webhook-receiver.js';

const SECRET = randomBytes(36).toString('base64url');
const RETRY_AT_ONCE = {
  STORE_NOTIFY_MAX_ATTEMPTS: '2',
  STORE_NOTIFY_RETRY_BASE_MS: '0',
  STORE_NOTIFY_RETRY_CAP_MS: '0',
};

interface Rec {
  eventName: string;
  s3: { object: { key: string; size?: number; sequencer: string } };
}
const recordsOf = (events: Record<string, unknown>[]): Rec[] =>
  events.filter((e) => Array.isArray(e.Records)).map((e) => (e.Records as Rec[])[0] as Rec);

/** A TCP server that accepts each connection and resets it at once: a receiver that is down. */
async function resettingPort(): Promise<{ port: number; connections: () => number; close: () => Promise<void> }> {
  let connections = 0;
  const server = createServer((socket) => {
    connections++;
    socket.resetAndDestroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { port, connections: () => connections, close: () => new Promise((r) => server.close(() => r())) };
}

async function target(store: Store, id: string, opts: { endpoint: string; timeoutMs?: number }): Promise<string> {
  const { endpoint, timeoutMs = 2000 } = opts;
  const res = await store.adminCall('POST', '/notification-targets', {
    id,
    kind: 'webhook',
    config: { endpoint, secret: SECRET, timeoutMs },
  });
  expect(res.status).toBe(201);
  return (res.body as { arn: string }).arn;
}

async function until<T>(what: string, read: () => Promise<T>, ok: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const value = await read();
    if (ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('delivery', () => {
  const receiver = useWebhookReceiver(SECRET);
  const slow = useWebhookReceiver(SECRET, '/slow');
  const failing = useWebhookReceiver(SECRET, '/failing');
  const store = useStore(() => ({ env: { ...RETRY_AT_ONCE, METRICS_MODE: 'public' } }));

  it("keeps one key's events in commit order through failed attempts", async () => {
    const bucket = await store.bucket('order');
    const arn = await target(store, 'order', { endpoint: receiver.url });
    await store.s3.send(
      new PutBucketNotificationConfigurationCommand({
        Bucket: bucket,
        NotificationConfiguration: { QueueConfigurations: [{ QueueArn: arn, Events: ['s3:ObjectCreated:Put'] }] },
      }),
    );
    // Every third message fails its first attempt: it is retried, and the key's later events wait for it.
    let seen = 0;
    receiver.respond = (_req, n) => (n === 1 && ++seen % 3 === 0 ? { status: 503 } : { status: 200 });
    const before = receiver.accepted.size;
    const count = 30;
    for (let i = 1; i <= count; i++) {
      await store.s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'same', Body: 'x'.repeat(i) }));
    }
    await receiver.waitForAccepted(before + count + 1);
    const records = recordsOf(receiver.events().slice(before)).filter((r) => r.s3.object.key === 'same');
    expect(records.map((r) => r.s3.object.size)).toEqual(Array.from({ length: count }, (_, i) => i + 1));
    const sequencers = records.map((r) => r.s3.object.sequencer);
    expect([...sequencers].sort()).toEqual(sequencers);
    receiver.respond = () => ({ status: 200 });
  });

  it('a target that never answers holds back neither writes nor another target', async () => {
    slow.respond = () => 'hang';
    const bucket = await store.bucket('slow');
    const slowArn = await target(store, 'slow', { endpoint: slow.url, timeoutMs: 30_000 });
    const fastArn = await target(store, 'fast', { endpoint: receiver.url });
    const rule = (arn: string, prefix: string) => ({
      QueueArn: arn,
      Events: ['s3:ObjectCreated:*' as const],
      Filter: { Key: { FilterRules: [{ Name: 'prefix' as const, Value: prefix }] } },
    });
    await store.s3.send(
      new PutBucketNotificationConfigurationCommand({
        Bucket: bucket,
        NotificationConfiguration: { QueueConfigurations: [rule(slowArn, 's/'), rule(fastArn, 'f/')] },
      }),
    );
    const before = receiver.accepted.size;
    const started = Date.now();
    for (let i = 1; i <= 10; i++) {
      await store.s3.send(new PutObjectCommand({ Bucket: bucket, Key: `s/${i}`, Body: 'x' }));
      await store.s3.send(new PutObjectCommand({ Bucket: bucket, Key: `f/${i}`, Body: 'x' }));
    }
    await receiver.waitForAccepted(before + 11, 10_000);
    // Every slot of the slow target is held by a request that will hang for 30 s; the fast one's all arrived.
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(slow.requests.length).toBeGreaterThan(0);
    expect(slow.accepted.size).toBe(0);
    const status = (await store.adminCall('GET', '/notification-targets/slow')).body as { status: { queued: number } };
    expect(status.status.queued).toBe(11);
    expect((await store.adminCall('DELETE', '/notification-targets/slow')).status).toBe(204);
  });

  it('a refusing target holds back no other; its dead letters are listed, then retried once it is fixed', async () => {
    failing.respond = () => ({ status: 503 });
    const bucket = await store.bucket('dead');
    const deadArn = await target(store, 'dead', { endpoint: failing.url });
    const liveArn = await target(store, 'live', { endpoint: receiver.url });
    const rule = (arn: string, prefix: string) => ({
      QueueArn: arn,
      Events: ['s3:ObjectCreated:*' as const],
      Filter: { Key: { FilterRules: [{ Name: 'prefix' as const, Value: prefix }] } },
    });
    await store.s3.send(
      new PutBucketNotificationConfigurationCommand({
        Bucket: bucket,
        NotificationConfiguration: { QueueConfigurations: [rule(deadArn, 'd/'), rule(liveArn, 'l/')] },
      }),
    );
    const before = receiver.accepted.size;
    await store.s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'd/1', Body: 'x' }));
    for (let i = 1; i <= 5; i++)
      await store.s3.send(new PutObjectCommand({ Bucket: bucket, Key: `l/${i}`, Body: 'x' }));
    await receiver.waitForAccepted(before + 6); // the live target's test event and its five
    const letters = await until(
      'two dead letters',
      async () =>
        (await store.adminCall('GET', '/notification-targets/dead/dead-letters')).body as { items: unknown[] },
      (b) => b.items.length === 2,
    );
    expect(letters.items).toEqual([
      expect.objectContaining({ eventName: 's3:TestEvent', attempts: 2, lastError: 'HTTP 503' }),
      expect.objectContaining({ key: 'd/1', eventName: 'ObjectCreated:Put', attempts: 2 }),
    ]);
    const status = (await store.adminCall('GET', '/notification-targets/dead')).body as {
      status: { failed: number; queued: number; lastErrorClass: string };
    };
    expect(status.status).toMatchObject({ failed: 2, queued: 0 });
    expect(status.status.lastErrorClass).not.toContain('127.0.0.1');
    const metrics = await fetch(`${store.server.url}/metrics`).then((r) => r.text());
    expect(metrics).toMatch(/store_notification_deliveries_total\{kind="webhook",outcome="failed"\} [1-9]/);

    const fixed = await store.adminCall('PUT', '/notification-targets/dead', {
      kind: 'webhook',
      config: { endpoint: receiver.url },
    });
    expect(fixed.status).toBe(200);
    const duplicates = receiver.duplicates;
    const retried = await store.adminCall('POST', '/notification-targets/dead/dead-letters/retry', {});
    expect(retried.body).toEqual({ retried: 2 });
    // d/1, and the test event: the same body as the live target's (one PutBucketNotificationConfiguration), so the
    // receiver, which dedupes on X-Store-Delivery (a hash of the body), counts it as a duplicate.
    await receiver.waitForAccepted(before + 7);
    await until(
      'the re-sent test event',
      async () => receiver.duplicates,
      (n) => n > duplicates,
    );
    const keys = recordsOf(receiver.events().slice(before)).map((r) => r.s3.object.key);
    expect(keys).toContain('d/1');
    const after = (await store.adminCall('GET', '/notification-targets/dead/dead-letters')).body as {
      items: unknown[];
    };
    expect(after.items).toEqual([]);
  });

  it('a target that cannot be reached dead-letters nothing: its rows wait, queued, and go out once it answers', async () => {
    const down = await resettingPort();
    try {
      const bucket = await store.bucket('unreachable');
      const arn = await target(store, 'gone', { endpoint: `http://127.0.0.1:${down.port}/hook` });
      await store.s3.send(
        new PutBucketNotificationConfigurationCommand({
          Bucket: bucket,
          NotificationConfiguration: { QueueConfigurations: [{ QueueArn: arn, Events: ['s3:ObjectCreated:*'] }] },
        }),
      );
      await store.s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'g/1', Body: 'x' }));
      // Three times the attempts a row may spend (STORE_NOTIFY_MAX_ATTEMPTS 2), each reset by the "receiver".
      await until(
        'six probes',
        async () => down.connections(),
        (n) => n >= 6,
      );
      const status = (await store.adminCall('GET', '/notification-targets/gone')).body as {
        status: { failed: number; queued: number; lastErrorClass: string };
      };
      expect(status.status).toMatchObject({ failed: 0, queued: 2, lastErrorClass: 'network error: ECONNRESET' });
      const before = receiver.accepted.size;
      const moved = await store.adminCall('PUT', '/notification-targets/gone', {
        kind: 'webhook',
        config: { endpoint: receiver.url, secret: SECRET },
      });
      expect(moved.status).toBe(200);
      await receiver.waitForAccepted(before + 2); // the test event and g/1
      const done = await until(
        'the queue drained',
        async () =>
          ((await store.adminCall('GET', '/notification-targets/gone')).body as { status: { queued: number } }).status,
        (st) => st.queued === 0,
      );
      expect(done).toMatchObject({ failed: 0 });
      const keys = recordsOf(receiver.events().slice(before)).map((r) => r.s3.object.key);
      expect(keys).toContain('g/1');
    } finally {
      await down.close();
    }
  });
});

describe('a crash between commit and delivery', () => {
  const receiver = useWebhookReceiver(SECRET);
  it('delivers the committed events after kill -9 and a restart', async () => {
    // The receiver holds every request open: the process dies with them in flight and nothing marked delivered.
    receiver.respond = () => 'hang';
    const store = await startStore();
    try {
      const bucket = await store.bucket('crash');
      const arn = await target(store, 'crash', { endpoint: receiver.url, timeoutMs: 30_000 });
      await store.s3.send(
        new PutBucketNotificationConfigurationCommand({
          Bucket: bucket,
          NotificationConfiguration: { QueueConfigurations: [{ QueueArn: arn, Events: ['s3:ObjectCreated:*'] }] },
        }),
      );
      const keys = ['one', 'two', 'three'];
      for (const key of keys) await store.s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: key }));
      await until(
        'four requests in flight',
        async () => receiver.requests.length,
        (n) => n >= 4,
      );
      expect(receiver.accepted.size).toBe(0);
      await store.kill();

      receiver.respond = () => ({ status: 200 });
      await store.restart();
      await receiver.waitForAccepted(keys.length + 1);
      const got = recordsOf(receiver.events()).map((r) => r.s3.object.key);
      expect(got.sort()).toEqual([...keys].sort());
      expect(receiver.badSignatures).toBe(0);
    } finally {
      await store.dispose();
    }
  });
});
