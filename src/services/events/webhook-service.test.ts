/* eslint-disable max-lines -- one fixture (outbox, clock, random source, transport) for the whole delivery contract */
// WebhookService and the WebhookDispatcher wired as the delivery thread wires them (webhook-delivery-thread.ts: the
// dispatcher told of durable commits, its outcomes written back by the service), against a real outbox table with a
// recording transport, an injected clock and an injected random source: headers and signature, due-time order, the
// retry schedule (full jitter, base 2 s, cap 1 h), 3xx and network failures, dead-lettering, the durability barrier,
// bounded concurrency, pruning and status. The thread itself runs in app/webhook-thread.test.ts and the integration
// tests.

import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { WebhookPost, WebhookPostResult, WebhookTransport } from '../../clients/webhook-client.js';
import type { ObjectEvent } from '../../core/object-event.js';
import { MetadataStore } from '../../storage/db/metadata-store.js';
import { WebhookOutboxRepo } from '../../storage/db/webhook-outbox-repo.js';
import { WebhookDispatcher, type DeliveryRun } from './webhook-dispatcher.js';
import {
  WEBHOOK_BACKOFF,
  WEBHOOK_BATCH_SIZE,
  WEBHOOK_CONCURRENCY,
  WebhookService,
  type WebhookServiceOptions,
} from './webhook-service.js';
import { verifySignature } from './webhook-signature.js';

const logger = pino({ level: 'silent' });
const SECRET = 'Zq8v3Lr0Xc5Tn2Wm7Ks4Hd9Fb1Gy6Pj=';
const T0 = Date.parse('2030-01-01T00:00:00Z');

/** Answers each POST from a script (default 200) and records what was sent. */
class ScriptedTransport implements WebhookTransport {
  sent: WebhookPost[] = [];
  inFlight = 0;
  maxInFlight = 0;
  script: (WebhookPostResult | (() => Promise<WebhookPostResult>))[] = [];

  async post(req: WebhookPost): Promise<WebhookPostResult> {
    this.sent.push(req);
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      const next = this.script.shift() ?? { kind: 'response', status: 200 };
      return typeof next === 'function' ? await next() : await new Promise((r) => setImmediate(() => r(next)));
    } finally {
      this.inFlight--;
    }
  }

  close(): void {}
}

let dir: string;
let meta: MetadataStore;
let repo: WebhookOutboxRepo;
let clock: number;
let transport: ScriptedTransport;
let randoms: number[];

beforeEach(() => {
  dir = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'webhook-svc-'));
  meta = MetadataStore.open(join(dir, 'meta.db'));
  repo = new WebhookOutboxRepo(meta.db);
  clock = T0;
  transport = new ScriptedTransport();
  randoms = [];
});

afterEach(async () => {
  await meta.close();
  rmSync(dir, { recursive: true, force: true });
});

interface DeliveryOptions {
  concurrency?: number;
  batchSize?: number;
}

/**
 * The service with a dispatcher on this thread, wired as webhook-delivery-thread.ts wires them across the thread
 * boundary, plus deliverDue(): send everything due and wait for the outcomes.
 */
class Delivered extends WebhookService {
  readonly dispatcher: WebhookDispatcher | undefined;

  constructor(opts: WebhookServiceOptions & DeliveryOptions) {
    super(opts);
    const target = opts.target;
    this.dispatcher =
      target &&
      new WebhookDispatcher({
        repo: opts.repo,
        target,
        transport,
        userAgent: opts.userAgent,
        logger,
        now: () => clock,
        random: () => randoms.shift() ?? 0.5,
        concurrency: opts.concurrency ?? WEBHOOK_CONCURRENCY,
        batchSize: opts.batchSize ?? WEBHOOK_BATCH_SIZE,
        backoff: WEBHOOK_BACKOFF,
        durableUpTo: this.durableUpTo,
        record: async (outcomes) => this.recordOutcomes(outcomes),
      });
    this.setDurableListener((rowId) => {
      this.dispatcher?.advance(rowId);
      this.onWake();
    });
  }

  private onWake: () => void = () => undefined;

  /**
   * Called after a durable commit and when the requests in flight finish with nothing left claimed (the runner's
   * wake-up).
   */
  setWakeListener(listener: () => void): void {
    this.onWake = listener;
    this.dispatcher?.setDrainedListener(listener);
  }

  poll(signal: AbortSignal): Promise<number> {
    return Promise.resolve(this.dispatcher?.poll(signal) ?? 0);
  }

  idle(): Promise<void> {
    return this.dispatcher?.idle() ?? Promise.resolve();
  }

  nextDueAt(): number | undefined {
    return this.dispatcher?.nextDueAt();
  }

  /** Polls and waits until nothing is due now (at most 16 batches); the attempts made. */
  async deliverDue(signal: AbortSignal): Promise<DeliveryRun> {
    if (!this.dispatcher) return { attempted: 0, delivered: 0, retried: 0, failed: 0 };
    const before = { ...this.dispatcher.totals };
    for (let i = 0; i < 16 && !signal.aborted; i++) {
      const claimed = this.dispatcher.poll(signal);
      await this.dispatcher.idle();
      if (claimed === 0) break;
    }
    const after = this.dispatcher.totals;
    return {
      attempted: after.attempted - before.attempted,
      delivered: after.delivered - before.delivered,
      retried: after.retried - before.retried,
      failed: after.failed - before.failed,
    };
  }
}

function service(overrides: Partial<WebhookServiceOptions> & DeliveryOptions = {}): Delivered {
  return new Delivered({
    repo,
    durable: () => meta.durable(),
    logger,
    userAgent: 'store-webhooks/9.9.9',
    now: () => clock,
    target: {
      url: 'https://user:pw@hooks.example/in?x=1',
      secret: SECRET,
      events: ['object.created', 'object.deleted'],
      maxAttempts: 4,
      timeoutMs: 1234,
    },
    ...overrides,
  });
}

const event = (key: string): ObjectEvent => ({
  type: 'object.created',
  bucket: 'bkt',
  key,
  size: 3,
  etag: 'e',
  eventTime: new Date(clock).toISOString(),
});

/** Commits one row per key and reports each commit, as the event pipeline does (delivery waits for that). */
async function enqueue(svc: WebhookService, ...keys: string[]): Promise<void> {
  for (const key of keys) {
    const id = meta.transaction(() => svc.enqueue(event(key)));
    await svc.committed(id);
  }
}

/** Commits `count` rows in one transaction. */
async function enqueueMany(svc: WebhookService, count: number): Promise<void> {
  const ids: number[] = [];
  meta.transaction(() => {
    for (let i = 0; i < count; i++) ids.push(svc.enqueue(event(`k${i}`)));
  });
  await Promise.all(ids.map((id) => svc.committed(id)));
}

const run = (svc: Delivered) => svc.deliverDue(new AbortController().signal);
const keyOf = (post: WebhookPost): string => (JSON.parse(post.body) as { key: string }).key;

describe('a delivery', () => {
  it('POSTs the stored body with the spec headers and a signature a receiver verifies at the send time', async () => {
    const svc = service();
    await enqueue(svc, 'k1');
    clock += 2500; // the signature's t is the send time, not the commit time
    expect(await run(svc)).toEqual({ attempted: 1, delivered: 1, retried: 0, failed: 0 });
    const [post] = transport.sent;
    expect(post!.url.href).toBe('https://user:pw@hooks.example/in?x=1');
    expect(post!.timeoutMs).toBe(1234);
    expect(post!.body).toBe(
      `{"type":"object.created","bucket":"bkt","key":"k1","size":3,"etag":"e","eventTime":"${new Date(T0).toISOString()}"}`,
    );
    expect(Object.keys(post!.headers).sort()).toEqual([
      'content-type',
      'user-agent',
      'x-store-delivery',
      'x-store-event',
      'x-store-signature',
    ]);
    expect(post!.headers).toMatchObject({
      'content-type': 'application/json',
      'user-agent': 'store-webhooks/9.9.9',
      'x-store-event': 'object.created',
    });
    expect(post!.headers['x-store-delivery']).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    expect(post!.headers['x-store-signature']).toMatch(
      new RegExp(`^t=${Math.floor((T0 + 2500) / 1000)},v1=[0-9a-f]{64}$`),
    );
    const check = (s: string) =>
      verifySignature({
        secret: s,
        header: post!.headers['x-store-signature'],
        body: Buffer.from(post!.body),
        nowSeconds: clock / 1000,
      });
    expect(check(SECRET)).toEqual({ ok: true });
    expect(check(`${SECRET}!`)).toEqual({ ok: false, reason: 'mismatch' });
    expect(svc.outboxCounts()).toEqual({ pending: 0, delivered: 1, failed: 0 });
    expect(await run(svc)).toEqual({ attempted: 0, delivered: 0, retried: 0, failed: 0 });
  });

  it('writes rows only for the configured event types', () => {
    const svc = service();
    expect([svc.accepts('object.created'), svc.accepts('object.deleted'), svc.accepts('multipart.completed')]).toEqual([
      true,
      true,
      false,
    ]);
    const off = service({ target: undefined });
    expect(off.enabled).toBe(false);
    expect(off.accepts('object.created')).toBe(false);
  });

  it('sends in due-time order: retries that fell due before newer rows go first', async () => {
    const svc = service();
    await enqueue(svc, 'a');
    clock += 1;
    await enqueue(svc, 'b');
    transport.script = [
      { kind: 'response', status: 500 },
      { kind: 'response', status: 500 },
    ];
    randoms = [0.5, 0.01]; // a retries at +1000 ms, b at +1 + 20 ms
    await run(svc);
    clock += 5000;
    await enqueue(svc, 'c');
    transport.sent = [];
    await service({ concurrency: 1 }).deliverDue(new AbortController().signal);
    expect(transport.sent.map(keyOf)).toEqual(['b', 'a', 'c']);
  });
});

describe('retries', () => {
  it('waits random(0, min(1 h, 2 s * 2^(n-1))) after the n-th failure, keeping the delivery id, and dead-letters at maxAttempts', async () => {
    const svc = service();
    await enqueue(svc, 'k');
    transport.script = [
      { kind: 'response', status: 500 },
      { kind: 'response', status: 302 },
      { kind: 'error', reason: 'timed out after 1234 ms' },
      { kind: 'error', reason: 'network error: ECONNREFUSED' },
    ];
    randoms = [0.999, 0.5, 0.25];
    const windows: number[] = [];
    for (let attempt = 1; attempt <= 3; attempt++) {
      const before = clock;
      expect((await run(svc)).retried).toBe(1);
      const due = svc.nextDueAt()!;
      windows.push(due - before);
      clock = due - 1;
      expect((await run(svc)).attempted).toBe(0); // not a millisecond early
      clock = due;
    }
    expect(windows).toEqual([Math.floor(0.999 * 2000), 0.5 * 4000, 0.25 * 8000]);
    expect(await run(svc)).toEqual({ attempted: 1, delivered: 0, retried: 0, failed: 1 });
    expect(new Set(transport.sent.map((p) => p.headers['x-store-delivery'])).size).toBe(1);
    expect(svc.nextDueAt()).toBeUndefined();
    const status = svc.status();
    expect(status.counts).toEqual({ pending: 0, delivered: 0, failed: 1 });
    expect(status.lastError).toEqual({ message: 'network error: ECONNREFUSED', at: new Date(clock).toISOString() });
    clock += 10 * 3_600_000;
    expect((await run(svc)).attempted).toBe(0); // failed is final
  });

  it('records a 3xx as a failure (never followed) and any 2xx as success', async () => {
    const svc = service({ concurrency: 1 });
    await enqueue(svc, 'k1', 'k2', 'k3');
    transport.script = [
      { kind: 'response', status: 301 },
      { kind: 'response', status: 204 },
      { kind: 'response', status: 199 },
    ];
    const result = await svc.deliverDue(new AbortController().signal);
    expect(result).toEqual({ attempted: 3, delivered: 1, retried: 2, failed: 0 });
    expect(svc.status().lastError?.message).toBe('HTTP 199');
    expect(
      meta.db.prepare("SELECT last_error FROM webhook_outbox WHERE status = 'pending' ORDER BY id").pluck().all(),
    ).toEqual(['redirect not followed (HTTP 301)', 'HTTP 199']);
  });

  it('caps the window at one hour however many attempts', async () => {
    const svc = service({
      target: {
        url: 'https://h.example/',
        secret: SECRET,
        events: ['object.created'],
        maxAttempts: 100,
        timeoutMs: 10,
      },
    });
    await enqueue(svc, 'k');
    meta.db.prepare('UPDATE webhook_outbox SET attempts = 40').run();
    transport.script = [{ kind: 'response', status: 503 }];
    randoms = [0.999999];
    await run(svc);
    expect(svc.nextDueAt()! - clock).toBe(Math.floor(0.999999 * 3_600_000));
  });

  it('does not count a request cut by shutdown as an attempt: the row stays due', async () => {
    const svc = service();
    await enqueue(svc, 'k');
    const stop = new AbortController();
    transport.script = [
      async () => {
        stop.abort();
        return { kind: 'aborted' };
      },
    ];
    expect(await svc.deliverDue(stop.signal)).toEqual({ attempted: 0, delivered: 0, retried: 0, failed: 0 });
    expect(meta.db.prepare('SELECT attempts FROM webhook_outbox').pluck().get()).toBe(0);
    expect(svc.nextDueAt()).toBe(T0);
  });
});

describe('durability and load', () => {
  it('sends nothing until the commit that wrote the row is durable, and asks for no fsync of its own', async () => {
    let release!: () => void;
    let barriers = 0;
    const barrier = new Promise<void>((r) => {
      release = r;
    });
    const svc = service({
      durable: () => {
        barriers++;
        return barrier;
      },
    });
    const id = meta.transaction(() => svc.enqueue(event('k')));
    const reported = svc.committed(id);
    expect(await run(svc)).toEqual({ attempted: 0, delivered: 0, retried: 0, failed: 0 });
    expect(svc.nextDueAt()).toBeUndefined(); // not due for the runner either
    expect(transport.sent).toEqual([]);
    release();
    await reported;
    expect((await run(svc)).delivered).toBe(1);
    expect(barriers).toBe(1); // the writer's barrier only: delivery never fsyncs for itself
  });

  it('treats rows found at boot as durable (they were read back from the data files)', async () => {
    const before = service();
    meta.transaction(() => {
      before.enqueue(event('left-by-a-crash'));
    });
    const after = service();
    expect((await run(after)).delivered).toBe(1);
    expect(transport.sent.map(keyOf)).toEqual(['left-by-a-crash']);
  });

  it('starts from the watermark it is given, not every row present (a delivery thread started again mid-run)', async () => {
    const svc = service();
    const durableRow = meta.transaction(() => svc.enqueue(event('durable')));
    meta.transaction(() => svc.enqueue(event('not-yet-durable')));
    const recorded: number[] = [];
    const dispatcher = new WebhookDispatcher({
      repo,
      transport,
      logger,
      userAgent: 'store-webhooks/9.9.9',
      now: () => clock,
      random: () => 0.5,
      concurrency: 2,
      batchSize: 8,
      backoff: WEBHOOK_BACKOFF,
      target: {
        url: 'https://hooks.example/in',
        secret: SECRET,
        events: ['object.created'],
        maxAttempts: 3,
        timeoutMs: 1000,
      },
      durableUpTo: durableRow,
      record: async (outcomes) => {
        recorded.push(...outcomes.map((o) => o.id));
        repo.recordOutcomes(outcomes, clock);
      },
    });
    dispatcher.poll(new AbortController().signal);
    await dispatcher.idle();
    expect(transport.sent.map(keyOf)).toEqual(['durable']);
    dispatcher.advance(durableRow + 1);
    dispatcher.poll(new AbortController().signal);
    await dispatcher.idle();
    expect(transport.sent.map(keyOf)).toEqual(['durable', 'not-yet-durable']);
    expect(recorded).toEqual([durableRow, durableRow + 1]);
  });

  it('wakes the runner when a reported commit is durable', async () => {
    const svc = service();
    let wakes = 0;
    svc.setWakeListener(() => {
      wakes++;
    });
    await enqueue(svc, 'k');
    expect(wakes).toBe(1);
  });

  it('keeps at most `concurrency` requests in flight and works through a backlog in batches', async () => {
    const svc = service({ concurrency: 3, batchSize: 10 });
    await enqueueMany(svc, 95);
    const result = await run(svc);
    expect(result.delivered).toBe(95);
    expect(transport.maxInFlight).toBe(3);
    expect(new Set(transport.sent.map((p) => p.headers['x-store-delivery'])).size).toBe(95);
  });

  it('lets a hanging request hold one slot only: later rows go out meanwhile, and the runner hears when all are sent', async () => {
    const svc = service({ concurrency: 2 });
    let wakes = 0;
    svc.setWakeListener(() => {
      wakes++;
    });
    const signal = new AbortController().signal;
    let release!: (r: WebhookPostResult) => void;
    transport.script = [
      () =>
        new Promise((r) => {
          release = r;
        }),
    ];
    await enqueue(svc, 'slow');
    expect(await svc.poll(signal)).toBe(1);
    expect(svc.nextDueAt()).toBeUndefined(); // the row being sent is not "due" for the runner
    await enqueue(svc, 'a', 'b', 'c');
    expect(svc.nextDueAt()).toBe(clock);
    expect(await svc.poll(signal)).toBe(3);
    for (let i = 0; i < 50 && svc.outboxCounts().delivered < 3; i++) await new Promise((r) => setTimeout(r, 5));
    expect(transport.sent.map(keyOf)).toEqual(['slow', 'a', 'b', 'c']);
    expect(transport.maxInFlight).toBe(2);
    expect(svc.outboxCounts()).toEqual({ pending: 1, delivered: 3, failed: 0 });
    expect(wakes).toBeGreaterThanOrEqual(1);
    release({ kind: 'response', status: 200 });
    await svc.idle();
    expect(svc.outboxCounts()).toEqual({ pending: 0, delivered: 4, failed: 0 });
  });

  it('returns to the runner after 16 batches even with more due', async () => {
    const svc = service({ batchSize: 2 });
    await enqueueMany(svc, 40);
    expect((await run(svc)).delivered).toBe(32);
    expect(svc.outboxCounts().pending).toBe(8);
  });
});

describe('pruning and status', () => {
  it('prunes delivered and failed rows 7 days after they finished, never pending ones', async () => {
    const svc = service({
      concurrency: 1,
      target: { url: 'https://h.example/', secret: SECRET, events: ['object.created'], maxAttempts: 1, timeoutMs: 10 },
    });
    await enqueue(svc, 'ok', 'bad', 'later');
    transport.script = [
      { kind: 'response', status: 200 },
      { kind: 'response', status: 500 },
    ];
    await run(svc);
    expect(svc.outboxCounts()).toEqual({ pending: 0, delivered: 2, failed: 1 });
    await enqueue(svc, 'fresh'); // pending, and stays so (no run)
    clock += 7 * 86_400_000;
    expect(svc.prune()).toBe(0);
    clock += 1;
    expect(svc.prune()).toBe(3);
    expect(svc.outboxCounts()).toEqual({ pending: 1, delivered: 0, failed: 0 });
  });

  it('reports the oldest pending age and no URL or secret', async () => {
    const svc = service();
    expect(svc.status()).toEqual({
      enabled: true,
      counts: { pending: 0, delivered: 0, failed: 0 },
      oldestPendingAgeSeconds: null,
      lastError: null,
    });
    await enqueue(svc, 'a');
    clock += 61_500;
    await enqueue(svc, 'b');
    const status = svc.status();
    expect(status.oldestPendingAgeSeconds).toBe(61);
    const text = JSON.stringify(status);
    for (const secret of [SECRET, 'user', 'pw', 'hooks.example']) expect(text).not.toContain(secret);
    expect(service({ target: undefined }).status().enabled).toBe(false);
  });

  it('never prunes the newest row, so an id is never handed out twice', async () => {
    const svc = service();
    await enqueue(svc, 'only');
    await run(svc);
    clock += 8 * 86_400_000;
    expect(svc.prune()).toBe(0);
    const next = meta.transaction(() => svc.enqueue(event('next')));
    expect(next).toBe(2);
    expect(svc.prune()).toBe(1);
  });

  it('reads its counts back after a restart: pending counted at boot, delivered and failed from the totals', async () => {
    const svc = service({
      target: { url: 'https://h.example/', secret: SECRET, events: ['object.created'], maxAttempts: 1, timeoutMs: 10 },
      concurrency: 1,
    });
    await enqueue(svc, 'a', 'b', 'c');
    transport.script = [
      { kind: 'response', status: 200 },
      { kind: 'response', status: 500 },
      { kind: 'response', status: 200 },
    ];
    await run(svc);
    await enqueue(svc, 'd');
    expect(svc.outboxCounts()).toEqual({ pending: 1, delivered: 2, failed: 1 });
    expect(service().outboxCounts()).toEqual({ pending: 1, delivered: 2, failed: 1 });
  });

  it('writes a batch of outcomes in one transaction', async () => {
    const calls: number[] = [];
    const record = repo.recordOutcomes.bind(repo);
    repo.recordOutcomes = (outcomes, now) => {
      calls.push(outcomes.length);
      return record(outcomes, now);
    };
    const svc = service({ batchSize: 64 });
    await enqueueMany(svc, 50);
    expect((await run(svc)).delivered).toBe(50);
    expect(calls.reduce((a, b) => a + b, 0)).toBe(50);
    expect(calls.length).toBeLessThanOrEqual(3);
  });

  it('keeps the last error across a restart of the service', async () => {
    const svc = service();
    await enqueue(svc, 'k');
    transport.script = [{ kind: 'response', status: 418 }];
    await run(svc);
    expect(service().status().lastError?.message).toBe('HTTP 418');
  });
});
