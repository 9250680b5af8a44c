// Lifecycle expirations notify as AWS names them (docs/notifications.md "Which operation fires which event"): the
// real services over a temp directory, the lifecycle run at an injected instant, the outbox rows read back.

import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/observability/logger.js';
import { RequestOrigins } from '../../src/lib/request-origin.js';
import { NO_EVENTS } from '../../src/services/events/event-sink.js';
import { NotificationService } from '../../src/services/notifications/notification-service.js';
import { NotificationEventSink } from '../../src/services/notifications/notification-sink.js';
import { NotificationTargets } from '../../src/services/notifications/notification-targets.js';
import { NotificationRepo } from '../../src/storage/db/notification-repo.js';
import { DAY, LifecycleHarness, rule } from './lifecycle-fixture.js';
import { openServices, type ServiceFixture } from '../helpers/services.js';

let fx: ServiceFixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

async function setUp(): Promise<{ h: LifecycleHarness; origins: RequestOrigins; rows: () => string[][] }> {
  const origins = new RequestOrigins();
  const holder: { service?: NotificationService } = {};
  const sink = {
    inTransaction: (e: Parameters<NotificationService['inTransaction']>[0]) => holder.service?.inTransaction(e),
    afterCommit: () => undefined,
    tagsChanged: (b: string, k: string) => holder.service?.tagsChanged(b, k),
    bindToCaller: <T>(fn: () => T) => origins.bind(fn),
  };
  fx = await openServices('2026-01-01T00:00:00.000Z', { events: sink });
  const { meta } = fx;
  const repo = new NotificationRepo(meta.db);
  const targets = new NotificationTargets({
    repo,
    transaction: (fn) => meta.transaction(fn),
    encryptionSecret: 'a-test-secret-of-enough-length-0123456789',
    region: 'us-east-1',
    now: fx.clock.now,
  });
  targets.create('hook', { kind: 'webhook', config: { endpoint: 'http://127.0.0.1:9/hook' } });
  holder.service = new NotificationService({
    repo,
    targets,
    origins,
    durable: () => meta.durable(),
    region: 'us-east-1',
    ownerId: 'owner',
    logger: createLogger('silent'),
    now: fx.clock.now,
    state: {
      configOf: (b) => meta.buckets.find(b)?.config.notification,
      isVersioned: (b) => meta.buckets.find(b)?.versioning === 'Enabled',
      latest: (b, k) => meta.objects.findLatest(b, k),
    },
  });
  // The composed sink app.ts builds is exercised too: it forwards to the inner sink and binds origins.
  expect(new NotificationEventSink(NO_EVENTS, holder.service, origins).bindToCaller(() => 1)()).toBe(1);
  const rows = () =>
    meta.db
      .prepare<[], { key: string; event_name: string }>('SELECT key, event_name FROM notification_outbox ORDER BY id')
      .all()
      .map((r) => [r.key, r.event_name]);
  return { h: new LifecycleHarness(fx), origins, rows };
}

describe('lifecycle expirations', () => {
  it('notify LifecycleExpiration:Delete unversioned and :DeleteMarkerCreated versioned', async () => {
    const { h, origins, rows } = await setUp();
    const arn = 'arn:store:sqs:us-east-1:hook:webhook';
    const subscribe = (bucket: string) =>
      fx?.buckets.updateConfig(bucket, (c) => ({
        ...c,
        notification: {
          rules: [{ id: 'life', kind: 'Queue', arn, events: ['s3:LifecycleExpiration:*', 's3:ObjectCreated:*'] }],
        },
      }));
    const plain = h.bucketWith('plain', [rule({ expiration: { days: 1 } })]);
    const versioned = h.bucketWith('vers', [rule({ expiration: { days: 1 } })], 'Enabled');
    subscribe(plain);
    subscribe(versioned);
    await h.put(plain, 'old');
    await h.put(versioned, 'old');
    const lifecycle = fx?.lifecycle({ origins });
    await lifecycle?.runOnce(new Date(Date.parse('2026-01-01T00:00:00.000Z') + 3 * DAY));
    expect(rows()).toEqual([
      ['old', 'ObjectCreated:Put'],
      ['old', 'ObjectCreated:Put'],
      ['old', 'LifecycleExpiration:Delete'],
      ['old', 'LifecycleExpiration:DeleteMarkerCreated'],
    ]);
  });
});
