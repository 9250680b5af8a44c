// Webhook delivery for `store serve`: the delivery thread (webhook-delivery-thread.ts) claims, signs and sends; the
// event loop keeps the outbox's writes. Here: start the thread, tell it of durable commits through the shared
// watermark, write the outcomes it hands back, prune when it asks, relay its log lines, and restart it if it dies
// (its claimed rows are still pending in the outbox, so the new thread sends them: at-least-once).
//
// Why a thread: with delivery on the event loop (claims, outcome batches, signing, handing requests to a sender
// thread), webhooks cost a 4 KiB PUT 15–30% of its throughput at concurrency 16; see docs/performance.md, "Webhooks".

import type { Worker } from 'node:worker_threads';
import { startThread } from '../lib/start-thread.js';
import type { BackoffPolicy } from '../lib/backoff.js';
import type { Logger } from '../observability/logger.js';
import type { WebhookService, WebhookTarget } from '../services/events/webhook-service.js';
import type { DeliveryThreadData, MainToThread, ThreadToMain } from './webhook-delivery-thread.js';
import type { RunningLoop } from '../workers/runner.js';

export interface WebhookThreadOptions {
  webhooks: WebhookService;
  target: WebhookTarget;
  /** meta.db */
  file: string;
  userAgent: string;
  pollMs: number;
  logLevel: string;
  logger: Logger;
  /** The thread's script (default: webhook-delivery-thread.js beside this file); tests substitute a scripted one. */
  script?: URL;
  /** The retry backoff (default WEBHOOK_BACKOFF); tests retry at once. */
  backoff?: BackoffPolicy;
  /** A dead thread is started again after this long (default 1 s). */
  restartDelayMs?: number;
}

/** stop() waits this long for the thread to write its last outcomes before ending it. */
const STOP_TIMEOUT_MS = 10_000;

const LOG_LEVELS = new Set(['trace', 'debug', 'info', 'warn', 'error', 'fatal']);

export function startWebhookThread(opts: WebhookThreadOptions): RunningLoop {
  const { webhooks, logger } = opts;
  const watermark = new BigInt64Array(new SharedArrayBuffer(8));
  Atomics.store(watermark, 0, BigInt(webhooks.durableUpTo));
  webhooks.setDurableListener((rowId) => {
    Atomics.store(watermark, 0, BigInt(rowId));
    Atomics.notify(watermark, 0);
  });
  const data: DeliveryThreadData = {
    file: opts.file,
    target: opts.target,
    userAgent: opts.userAgent,
    pollMs: opts.pollMs,
    logLevel: opts.logLevel,
    watermark: watermark.buffer as SharedArrayBuffer,
    ...(opts.backoff === undefined ? {} : { backoff: opts.backoff }),
  };

  const script = opts.script ?? new URL('./webhook-delivery-thread.js', import.meta.url);
  const restartDelayMs = opts.restartDelayMs ?? 1000;
  let stopping = false;
  let restartTimer: NodeJS.Timeout | undefined;
  /** The current thread has exited (and, unless stopping, a restart is scheduled). */
  let exited = false;
  let worker = start();

  function start(): Worker {
    const thread = startThread(script, { workerData: data });
    exited = false;
    const reply = (message: MainToThread): void => thread.postMessage(message);
    thread.on('message', (message: ThreadToMain) => {
      if (message.op === 'record') {
        try {
          webhooks.recordOutcomes(message.outcomes);
          reply({ op: 'recorded', batch: message.batch });
        } catch (err) {
          reply({ op: 'recorded', batch: message.batch, error: err instanceof Error ? err.message : String(err) });
        }
      } else if (message.op === 'prune') {
        try {
          const pruned = webhooks.prune();
          if (pruned > 0) logger.info({ worker: 'webhooks', pruned }, 'pruned delivered and failed webhook rows');
        } catch (err) {
          logger.error({ err, worker: 'webhooks' }, 'pruning webhook rows failed');
        }
      } else if (message.op === 'log') {
        relayLog(logger, message.line);
      }
    });
    thread.on('error', (err) => logger.error({ err }, 'webhook delivery thread failed'));
    thread.on('exit', (code) => {
      if (worker === thread) exited = true;
      if (stopping || worker !== thread) return;
      logger.error({ code }, `webhook delivery thread exited; starting it again in ${restartDelayMs} ms`);
      restartTimer = setTimeout(() => {
        if (!stopping) worker = start();
      }, restartDelayMs);
      restartTimer.unref();
    });
    return thread;
  }

  return {
    async stop() {
      stopping = true;
      clearTimeout(restartTimer);
      const thread = worker;
      // Dead, with its restart just cancelled: nothing to wait for.
      if (exited) return;
      // Aborts the requests in flight (not counted as attempts) and waits for the outcomes to be written here.
      const stopped = new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, STOP_TIMEOUT_MS);
        const done = (): void => {
          clearTimeout(timer);
          resolve();
        };
        thread.on('message', (message: ThreadToMain) => {
          if (message.op === 'stopped') done();
        });
        thread.once('exit', done);
      });
      thread.postMessage({ op: 'stop' } satisfies MainToThread);
      await stopped;
      await thread.terminate();
    },
  };
}

/** Writes a log line of the thread (pino JSON, already redacted) through this process's logger. */
function relayLog(logger: Logger, line: string): void {
  try {
    const { level, msg, time: _time, ...fields } = JSON.parse(line) as Record<string, unknown>;
    const at = typeof level === 'string' && LOG_LEVELS.has(level) ? (level as 'info') : 'info';
    logger[at]({ thread: 'webhooks', ...fields }, typeof msg === 'string' ? msg : '');
  } catch {
    logger.warn({ thread: 'webhooks' }, 'unreadable log line from the webhook delivery thread');
  }
}
