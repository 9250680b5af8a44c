// Lifecycle expirations, transitions and restores notify as AWS names them (docs/notifications.md "Which operation
// fires which event"): the real services over a temp directory (the tier's remote in memory), the lifecycle run and
// the tier sweep at an injected instant, the outbox rows read back.

import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/observability/logger.js';
import { RequestOrigins } from '../../src/lib/request-origin.js';
import { NO_EVENTS, type ResidencyChange } from '../../src/services/events/event-sink.js';
import { TierService } from '../../src/services/tiering/tier-service.js';
import { LifecycleRepo } from '../../src/storage/db/lifecycle-repo.js';
import { TierRepo } from '../../src/storage/db/tier-repo.js';
import { MemoryRemote } from '../helpers/memory-remote.js';
import { NotificationService } from '../../src/services/notifications/notification-service.js';
import { NotificationEventSink } from '../../src/services/notifications/notification-sink.js';
import { NotificationTargets } from '../../src/services/notifications/notification-targets.js';
import { NotificationRepo } from '../../src/storage/db/notification-repo.js';
import { DAY, LifecycleHarness, rule } from './lifecycle-fixture.js';
import { body, openServices, type ServiceFixture } from '../helpers/services.js';

let fx: ServiceFixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

interface SetUp {
  h: LifecycleHarness;
  origins: RequestOrigins;
  rows: () => string[][];
  bodies: () => string[];
  sink: Pick<NotificationEventSink, 'inTransaction' | 'afterCommit' | 'residencyChanged'>;
}

async function setUp(): Promise<SetUp> {
  const origins = new RequestOrigins();
  const holder: { service?: NotificationService } = {};
  const sink = {
    inTransaction: (e: Parameters<NotificationService['inTransaction']>[0]) => holder.service?.inTransaction(e),
    afterCommit: () => undefined,
    tagsChanged: (b: string, k: string) => holder.service?.tagsChanged(b, k),
    residencyChanged: (change: ResidencyChange) => holder.service?.residencyChanged(change),
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
  const bodies = () => meta.db.prepare<[], string>('SELECT body FROM notification_outbox ORDER BY id').pluck().all();
  return { h: new LifecycleHarness(fx), origins, rows, bodies, sink };
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

describe('tiering', () => {
  it('notifies LifecycleTransition, then ObjectRestore:Post and :Completed with the restore expiry', async () => {
    const { rows, bodies, sink } = await setUp();
    const f = fx!;
    const tiers = new TierService({
      meta: f.meta,
      repo: new TierRepo(f.meta.db),
      lifecycle: new LifecycleRepo(f.meta.db),
      objects: f.objects,
      blobs: f.blobs,
      remote: new MemoryRemote(),
      enabled: true,
      dataDir: f.dir,
      readThroughTimeoutMs: 5000,
      maxConcurrentRehydrate: 1,
      presignTtlSeconds: 60,
      inlineMaxBytes: 1 << 20,
      logger: pino({ level: 'silent' }),
      events: sink,
      now: f.clock.now,
    });
    f.buckets.create('cold');
    f.buckets.putConfig('cold', 'lifecycle', {
      rules: [
        {
          id: 'r',
          status: 'Enabled',
          filter: { prefix: '' },
          transitions: [{ date: '2020-01-01T00:00:00.000Z', storageClass: 'GLACIER' }],
        },
      ],
    });
    const arn = 'arn:store:sqs:us-east-1:hook:webhook';
    f.buckets.updateConfig('cold', (c) => ({
      ...c,
      notification: {
        rules: [{ id: 'tier', kind: 'Queue', arn, events: ['s3:LifecycleTransition', 's3:ObjectRestore:*'] }],
      },
    }));
    // Objects under 128 KiB are not transitioned (S3's minimum).
    await f.objects.put({
      bucket: 'cold',
      key: 'big',
      body: body(Buffer.alloc(200 * 1024, 1)),
      headers: {},
      userMeta: {},
    });
    await f.objects.put({ bucket: 'cold', key: 'small', body: body(Buffer.from('s')), headers: {}, userMeta: {} });
    expect(await tiers.sweep(f.clock.date(), new AbortController().signal)).toMatchObject({ tiered: 1 });
    expect(rows()).toEqual([['big', 'LifecycleTransition']]);

    const stub = f.meta.objects.findLatest('cold', 'big')!;
    expect(await tiers.restore(stub, 2)).toEqual({ started: true });
    expect(rows()).toEqual([
      ['big', 'LifecycleTransition'],
      ['big', 'ObjectRestore:Post'],
    ]);
    // The rehydration runs on: its transaction's row is the state polled for.
    await expect.poll(() => rows().length).toBe(3);
    expect(rows()[2]).toEqual(['big', 'ObjectRestore:Completed']);
    const completed = JSON.parse(bodies()[2]!) as { Records: Record<string, unknown>[] };
    expect(completed.Records[0]).toMatchObject({
      eventName: 'ObjectRestore:Completed',
      s3: { object: { key: 'big', size: 200 * 1024 } },
      glacierEventData: {
        restoreEventData: {
          lifecycleRestorationExpiryTime: new Date(f.clock.now() + 2 * DAY).toISOString(),
          lifecycleRestoreStorageClass: 'GLACIER',
        },
      },
    });
    // Extending a restore is a RestoreObject accepted too.
    expect(await tiers.restore(f.meta.objects.findLatest('cold', 'big')!, 5)).toEqual({ started: false });
    expect(rows().map((r) => r[1])).toEqual([
      'LifecycleTransition',
      'ObjectRestore:Post',
      'ObjectRestore:Completed',
      'ObjectRestore:Post',
    ]);
  });
});
