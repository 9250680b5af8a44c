// The event loop's side of the webhook delivery thread, against a scripted thread that speaks the same protocol as
// webhook-delivery-thread.ts (which itself runs from the build, in the integration tests): the watermark reaches the
// thread without a message, outcomes it hands back are written and counted, pruning runs when it asks, its log lines
// reach the process logger, a thread that dies is started again, and stop() waits for it to finish.

import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startWebhookThread } from './webhook-thread.js';
import { createLogger } from '../observability/logger.js';
import { WebhookService } from '../services/events/webhook-service.js';
import { MetadataStore } from '../storage/db/metadata-store.js';
import { WebhookOutboxRepo } from '../storage/db/webhook-outbox-repo.js';
import type { RunningLoop } from '../workers/runner.js';

// Dies at its first start (a marker file remembers); then, for each row id up to the watermark, hands back a
// 'delivered' outcome, asks for a prune once that is written, and logs what it saw (with a secret to be redacted).
const SCRIPT = `
import { parentPort, workerData } from 'node:worker_threads';
import { existsSync, writeFileSync } from 'node:fs';
const marker = workerData.file + '.started';
if (!existsSync(marker)) { writeFileSync(marker, ''); process.exit(3); }
const log = (level, fields, msg) => parentPort.postMessage({ op: 'log', line: JSON.stringify({ level, time: 'x', msg, ...fields }) });
const w = new BigInt64Array(workerData.watermark);
log('info', { startedAt: Number(Atomics.load(w, 0)) }, 'scripted thread up');
parentPort.postMessage({ op: 'log', line: 'not a JSON line' });
// With this marker, outcomes are retries without a due time: the event loop cannot write them.
const badOutcomes = existsSync(workerData.file + '.bad-outcomes');
let sent = 0;
let batch = 0;
function watch() {
  const r = Number(Atomics.load(w, 0)) > sent ? { async: false } : Atomics.waitAsync(w, 0, BigInt(sent));
  (r.async ? r.value : Promise.resolve()).then(() => {
    const upTo = Number(Atomics.load(w, 0));
    const outcomes = [];
    for (let id = sent + 1; id <= upTo; id++) {
      outcomes.push(badOutcomes ? { id, attempts: 1, status: 'retry', nextAttemptAt: null, error: 'HTTP 500' } : { id, attempts: 1, status: 'delivered' });
    }
    sent = upTo;
    parentPort.postMessage({ op: 'record', batch: ++batch, outcomes });
    watch();
  });
}
watch();
parentPort.on('message', (m) => {
  if (m.op === 'recorded') {
    log('warn', { batch: m.batch, error: m.error ?? null, secret: 'hunter2-hunter2' }, 'outcomes written');
    parentPort.postMessage({ op: 'prune' });
  } else if (m.op === 'stop') {
    log('info', {}, 'stopping');
    parentPort.postMessage({ op: 'stopped' });
  }
});
`;

const SECRET = 'Zq8v3Lr0Xc5Tn2Wm7Ks4Hd9Fb1Gy6Pj=';
let dir: string;
let meta: MetadataStore;
let lines: Record<string, unknown>[];
let loop: RunningLoop | undefined;
let clock: number;

beforeEach(() => {
  dir = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'webhook-thread-'));
  meta = MetadataStore.open(join(dir, 'meta.db'));
  writeFileSync(join(dir, 'thread.mjs'), SCRIPT);
  lines = [];
  clock = Date.now();
});

afterEach(async () => {
  await loop?.stop();
  loop = undefined;
  await meta.close();
  rmSync(dir, { recursive: true, force: true });
});

async function until(cond: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; logs: ${JSON.stringify(lines)}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

function start(restartDelayMs = 20): { webhooks: WebhookService; repo: WebhookOutboxRepo } {
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(
        ...chunk
          .toString()
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as Record<string, unknown>),
      );
      done();
    },
  });
  const logger = createLogger('info', sink);
  const repo = new WebhookOutboxRepo(meta.db);
  const target = {
    url: 'http://127.0.0.1:9/in',
    secret: SECRET,
    events: ['object.created' as const],
    maxAttempts: 3,
    timeoutMs: 1000,
  };
  const webhooks = new WebhookService({
    repo,
    durable: () => meta.durable(),
    target,
    userAgent: 'store-webhooks/9.9.9',
    logger,
    now: () => clock,
  });
  loop = startWebhookThread({
    webhooks,
    target,
    file: join(dir, 'meta.db'),
    userAgent: 'store-webhooks/9.9.9',
    pollMs: 1000,
    logLevel: 'info',
    logger,
    script: pathToFileURL(join(dir, 'thread.mjs')),
    restartDelayMs,
  });
  return { webhooks, repo };
}

async function commit(webhooks: WebhookService, key: string): Promise<number> {
  const id = meta.transaction(() =>
    webhooks.enqueue({
      type: 'object.created',
      bucket: 'b',
      key,
      size: 1,
      etag: 'e',
      eventTime: new Date(clock).toISOString(),
    }),
  );
  await webhooks.committed(id);
  return id;
}

describe('the webhook delivery thread, from the event loop', () => {
  it('starts a thread that died again, and passes it the rows present at boot as durable', async () => {
    const early = meta.transaction(() =>
      new WebhookOutboxRepo(meta.db).insert({
        deliveryId: 'd0',
        eventType: 'object.created',
        body: '{}',
        createdAt: clock,
      }),
    );
    start();
    await until(() => lines.some((l) => l['msg'] === 'scripted thread up'), 'the restarted thread');
    expect(
      lines.find(
        (l) => typeof l['msg'] === 'string' && (l['msg'] as string).startsWith('webhook delivery thread exited'),
      ),
    ).toMatchObject({ level: 'error', code: 3 });
    expect(lines.find((l) => l['msg'] === 'scripted thread up')).toMatchObject({
      level: 'info',
      thread: 'webhooks',
      startedAt: early,
    });
  });

  it('tells the thread of durable commits, writes the outcomes it hands back, and counts them', async () => {
    writeFileSync(join(dir, 'meta.db.started'), '');
    const { webhooks, repo } = start();
    const first = await commit(webhooks, 'a');
    const second = await commit(webhooks, 'b');
    await until(() => webhooks.outboxCounts().delivered === 2, 'both outcomes');
    expect(webhooks.outboxCounts()).toEqual({ pending: 0, delivered: 2, failed: 0 });
    expect(repo.due(clock + 1, second, 10)).toEqual([]);
    expect(first).toBeLessThan(second);
    // Its log lines arrive through this process's logger, redacted, at their own level.
    await until(() => lines.some((l) => l['msg'] === 'outcomes written'), 'the relayed log line');
    expect(lines.find((l) => l['msg'] === 'outcomes written')).toMatchObject({
      level: 'warn',
      thread: 'webhooks',
      error: null,
      secret: '[redacted]',
    });
  });

  it('answers outcomes it cannot write with the error, writing none of the batch', async () => {
    writeFileSync(join(dir, 'meta.db.started'), '');
    writeFileSync(join(dir, 'meta.db.bad-outcomes'), '');
    const { webhooks, repo } = start();
    const id = await commit(webhooks, 'a');
    await until(() => lines.some((l) => l['msg'] === 'outcomes written'), 'the answer');
    expect(lines.find((l) => l['msg'] === 'outcomes written')?.['error']).toMatch(/NOT NULL/);
    expect(webhooks.outboxCounts()).toEqual({ pending: 1, delivered: 0, failed: 0 });
    expect(repo.due(clock, id, 10).map((r) => [r.id, r.attempts])).toEqual([[id, 0]]);
  });

  it('logs a line from the thread it cannot read as such, and goes on', async () => {
    writeFileSync(join(dir, 'meta.db.started'), '');
    start();
    await until(() => lines.some((l) => l['msg'] === 'scripted thread up'), 'the thread');
    await until(
      () => lines.some((l) => l['msg'] === 'unreadable log line from the webhook delivery thread'),
      'the warning',
    );
    expect(lines.find((l) => l['msg'] === 'unreadable log line from the webhook delivery thread')).toMatchObject({
      level: 'warn',
      thread: 'webhooks',
    });
  });

  it('prunes when the thread asks (the event loop owns the writes)', async () => {
    writeFileSync(join(dir, 'meta.db.started'), '');
    const { webhooks } = start();
    await commit(webhooks, 'a');
    await until(() => webhooks.outboxCounts().delivered === 1, 'the first outcome');
    clock += 8 * 24 * 3_600_000;
    await commit(webhooks, 'b');
    // The second outcome's prune removes the first row (finished 8 days ago); the newest row is always kept.
    await until(() => lines.some((l) => l['msg'] === 'pruned delivered and failed webhook rows'), 'the prune');
    expect(lines.find((l) => l['msg'] === 'pruned delivered and failed webhook rows')).toMatchObject({ pruned: 1 });
    // The first outcome's own prune request can arrive after the clock moved and before the second outcome is
    // written: the prune still removes only the old row, and the second outcome lands in its own time.
    await until(
      () => webhooks.outboxCounts().delivered === 1 && webhooks.outboxCounts().pending === 0,
      'the second outcome',
    );
    expect(webhooks.outboxCounts()).toEqual({ pending: 0, delivered: 1, failed: 0 });
  });

  it('stop() returns at once when the thread is dead and waiting to be started again', async () => {
    start(60_000);
    await until(
      () =>
        lines.some(
          (l) => typeof l['msg'] === 'string' && (l['msg'] as string).startsWith('webhook delivery thread exited'),
        ),
      'the exit',
    );
    const began = Date.now();
    await loop?.stop();
    loop = undefined;
    expect(Date.now() - began).toBeLessThan(1000);
    expect(lines.some((l) => l['msg'] === 'scripted thread up')).toBe(false);
  });

  it('stop() asks the thread to finish and waits for it', async () => {
    writeFileSync(join(dir, 'meta.db.started'), '');
    start();
    await until(() => lines.some((l) => l['msg'] === 'scripted thread up'), 'the thread');
    await loop?.stop();
    loop = undefined;
    await until(() => lines.some((l) => l['msg'] === 'stopping'), 'the stop message');
    expect(
      lines.some(
        (l) => typeof l['msg'] === 'string' && (l['msg'] as string).startsWith('webhook delivery thread exited'),
      ),
    ).toBe(false);
  });
});
