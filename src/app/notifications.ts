// Bucket notifications for `store serve` (docs/notifications.md): the targets, the outbox service on the event seam,
// and the dispatcher that delivers on the event loop (each send is I/O handed to a client library; the loop only
// claims rows and writes outcomes). Built by app.ts; started and stopped with the app.

import type { Logger } from '../observability/logger.js';
import type { MetricsRegistry } from '../observability/metrics-registry.js';
import { RequestOrigins } from '../lib/request-origin.js';
import type { BackoffPolicy } from '../lib/backoff.js';
import type { EventSink } from '../services/events/event-sink.js';
import { WEBHOOK_BACKOFF } from '../services/events/webhook-service.js';
import { NotificationDispatcher } from '../services/notifications/notification-dispatcher.js';
import { NotificationService } from '../services/notifications/notification-service.js';
import { NotificationEventSink } from '../services/notifications/notification-sink.js';
import { NotificationTargets } from '../services/notifications/notification-targets.js';
import type { MetadataStore } from '../storage/db/metadata-store.js';
import { NotificationRepo } from '../storage/db/notification-repo.js';

export interface NotificationsOptions {
  meta: MetadataStore;
  inner: EventSink;
  logger: Logger;
  metrics: MetricsRegistry;
  region: string;
  ownerId: string;
  encryptionSecret: string;
  /** The retry backoff (default: the global webhook's, base 2 s and cap 1 h); tests retry at once. */
  backoff?: BackoffPolicy | undefined;
  /** Attempts before a row is dead-lettered (default 8, as the global webhook's). */
  maxAttempts?: number | undefined;
}

export interface Notifications {
  origins: RequestOrigins;
  targets: NotificationTargets;
  service: NotificationService;
  sink: EventSink;
  start(): void;
  stop(): Promise<void>;
}

export function buildNotifications(opts: NotificationsOptions): Notifications {
  const { meta } = opts;
  const repo = new NotificationRepo(meta.db);
  const transaction = <T>(fn: () => T): T => meta.transaction(fn);
  const origins = new RequestOrigins();
  const targets = new NotificationTargets({
    repo,
    transaction,
    encryptionSecret: opts.encryptionSecret,
    region: opts.region,
    now: Date.now,
  });
  const service = new NotificationService({
    repo,
    targets,
    origins,
    durable: () => meta.durable(),
    region: opts.region,
    ownerId: opts.ownerId,
    logger: opts.logger,
    state: {
      configOf: (bucket) => meta.buckets.find(bucket)?.config.notification,
      isVersioned: (bucket) => meta.buckets.find(bucket)?.versioning === 'Enabled',
      latest: (bucket, key) => meta.objects.findLatest(bucket, key),
    },
  });
  let queue: { kind: string; status: string; count: number }[] = [];
  let queueAt = -Infinity;
  const dispatcher = new NotificationDispatcher({
    repo,
    targets,
    durableUpTo: () => service.durableUpTo,
    transaction,
    logger: opts.logger,
    backoff: opts.backoff ?? WEBHOOK_BACKOFF,
    maxAttempts: opts.maxAttempts ?? 8,
    onOutcome: (kind, outcome) => opts.metrics.countNotification(kind, outcome),
    // A grouped count of the outbox: at most once a second, however often passes run.
    onPass: () => {
      if (Date.now() - queueAt < 1000) return;
      queueAt = Date.now();
      queue = service.queueByKind();
    },
  });
  service.setDurableListener((retriedTarget) => {
    if (retriedTarget !== undefined) dispatcher.resume(retriedTarget);
    else dispatcher.wake();
  });
  opts.metrics.registerNotificationQueue(() => queue);
  return {
    origins,
    targets,
    service,
    sink: new NotificationEventSink(opts.inner, service, origins),
    start: () => dispatcher.start(),
    stop: () => dispatcher.stop(),
  };
}
