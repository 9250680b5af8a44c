// The webhook delivery thread (started by webhook-thread.ts): the dispatcher and its runner, with a connection of its
// own
// to meta.db that only reads (PRAGMA query_only), so claiming rows, signing, sending and the backoff never run on the
// event loop. The event loop keeps the two things only it may do: it writes each outbox row in the commit that makes
// the change, and it writes the outcomes this thread hands back (SQLite has one writer: a second one could make a
// commit of the event loop's wait on its lock).
//
// The event loop tells this thread of durable commits through a shared 64-bit watermark (no message per commit).
// Messages, all small and at most one per batch of outcomes:
//   thread -> main  { op: 'record', batch, outcomes } | { op: 'prune' } | { op: 'log', line } | { op: 'stopped' }
//   main -> thread  { op: 'recorded', batch, error? } | { op: 'stop' }

import Database from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';
import { WebhookClient } from '../clients/webhook-client.js';
import type { BackoffPolicy } from '../lib/backoff.js';
import { createLogger } from '../observability/logger.js';
import { WebhookDispatcher, type WebhookTarget } from '../services/events/webhook-dispatcher.js';
import { WEBHOOK_BACKOFF, WEBHOOK_BATCH_SIZE, WEBHOOK_CONCURRENCY } from '../services/events/webhook-service.js';
import { WebhookOutboxRepo, type OutboxOutcome } from '../storage/db/webhook-outbox-repo.js';
import { startWebhookWorker } from '../workers/webhook-worker.js';

/** What webhook-thread.ts passes in `workerData`. */
export interface DeliveryThreadData {
  /** meta.db */
  file: string;
  target: WebhookTarget;
  userAgent: string;
  pollMs: number;
  logLevel: string;
  /** The retry backoff; default WEBHOOK_BACKOFF. */
  backoff?: BackoffPolicy;
  /** A BigInt64Array(1) over it holds the id up to which rows are durable; the event loop notifies on each advance. */
  watermark: SharedArrayBuffer;
}

export type ThreadToMain =
  | { op: 'record'; batch: number; outcomes: OutboxOutcome[] }
  | { op: 'prune' }
  | { op: 'log'; line: string }
  | { op: 'stopped' };

export type MainToThread = { op: 'recorded'; batch: number; error?: string } | { op: 'stop' };

const port = parentPort;
if (port === null) throw new Error('webhook-delivery-thread.js runs as a worker thread only');
const data = workerData as DeliveryThreadData;
const send = (message: ThreadToMain): void => port.postMessage(message);

// Log lines cross to the event loop's logger (which writes them where the process logs go).
const logger = createLogger(data.logLevel, { write: (line: string) => send({ op: 'log', line }) });

const db = new Database(data.file, { fileMustExist: true });
db.pragma('busy_timeout = 5000');
db.pragma('query_only = ON');
// Its reads touch the outbox's newest pages only: a small cache is enough.
db.pragma('cache_size = -1024');

const waiting = new Map<number, { resolve: () => void; reject: (err: Error) => void }>();
let nextBatch = 1;
const transport = new WebhookClient({ maxSockets: WEBHOOK_CONCURRENCY });
const watermark = new BigInt64Array(data.watermark);
/** The watermark as this thread last read it (and told the dispatcher). */
let seen = Atomics.load(watermark, 0);

const dispatcher = new WebhookDispatcher({
  repo: new WebhookOutboxRepo(db),
  target: data.target,
  transport,
  userAgent: data.userAgent,
  logger,
  now: Date.now,
  random: Math.random,
  concurrency: WEBHOOK_CONCURRENCY,
  batchSize: WEBHOOK_BATCH_SIZE,
  backoff: data.backoff ?? WEBHOOK_BACKOFF,
  // Not every row present: after a restart of this thread the newest rows may not be durable yet.
  durableUpTo: Number(seen),
  record: (outcomes) =>
    new Promise<void>((resolve, reject) => {
      const batch = nextBatch++;
      waiting.set(batch, { resolve, reject });
      send({ op: 'record', batch, outcomes });
    }),
});

const runner = startWebhookWorker({
  service: {
    poll: (signal) => Promise.resolve(dispatcher.poll(signal)),
    idle: () => dispatcher.idle(),
    isBusy: () => dispatcher.isBusy,
    nextDueAt: () => dispatcher.nextDueAt(),
    // Pruning writes: the event loop does it when asked (once an hour).
    prune: () => {
      send({ op: 'prune' });
      return 0;
    },
  },
  pollMs: data.pollMs,
  logger,
});
dispatcher.setDrainedListener(() => runner.wake());

// Waits for the watermark to move, without a message per commit: the event loop stores the new id and notifies.
let stopping = false;
function watch(): void {
  if (stopping) return;
  const wait = Atomics.waitAsync(watermark, 0, seen);
  if (wait.async) void wait.value.then(advanced);
  else setImmediate(advanced);
}
function advanced(): void {
  seen = Atomics.load(watermark, 0);
  dispatcher.advance(Number(seen));
  runner.wake();
  watch();
}
watch();

port.on('message', (message: MainToThread) => {
  if (message.op === 'recorded') {
    const waiter = waiting.get(message.batch);
    waiting.delete(message.batch);
    if (message.error === undefined) waiter?.resolve();
    else waiter?.reject(new Error(message.error));
  } else if (message.op === 'stop' && !stopping) {
    stopping = true;
    // Aborts the requests in flight (not counted as attempts) and waits for the outcomes to be written.
    void runner.stop().finally(() => {
      transport.close();
      db.close();
      send({ op: 'stopped' });
    });
  }
});
