// The dispatcher's scheduling (docs/notifications.md "Delivery", "A target that is down"): an in-memory outbox with
// the repo's due-row rules, a transport whose answers the test sets, and fake timers for the clock and the passes.

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import pino from 'pino';
import type { NotificationOutcome, NotificationRow } from '../../storage/db/notification-repo.js';
import { NotificationDispatcher, TARGET_PAUSE_CAP_MS } from './notification-dispatcher.js';
import type { Target } from './notification-targets.js';
import type { NotificationDelivery } from './transports/transport.js';
import { TransportError } from './transports/transport-error.js';

const TARGET: Target = {
  id: 'hook',
  kind: 'webhook',
  arn: 'arn:store:sqs:us-east-1:hook:webhook',
  settings: {},
  secrets: {},
  createdAt: 0,
  updatedAt: 0,
};

/** The outbox as NotificationRepo keeps it: pending rows due in (next attempt, id) order, one per key at a time. */
class MemoryOutbox {
  rows: (NotificationRow & { status: 'pending' | 'delivered' | 'failed' })[] = [];
  transactions = 0;
  outcomesWritten = 0;

  add(n: number, opts: { now: number; sameKey?: boolean }): void {
    for (let i = 0; i < n; i++) {
      const id = this.rows.length + 1;
      this.rows.push({
        id,
        targetId: TARGET.id,
        bucket: 'b',
        key: opts.sameKey ? 'k' : `k${id}`,
        eventName: 'ObjectCreated:Put',
        body: `{"n":${id}}`,
        createdAt: opts.now,
        attempts: 0,
        nextAttemptAt: opts.now,
        lastError: undefined,
        finishedAt: undefined,
        status: 'pending',
      });
    }
  }

  due(target: string, opts: { now: number; maxId: number; limit: number }): NotificationRow[] {
    const pending = this.rows.filter((r) => r.status === 'pending' && r.targetId === target);
    return pending
      .filter((r) => r.nextAttemptAt <= opts.now && r.id <= opts.maxId)
      .filter((r) => !pending.some((p) => p.key === r.key && p.id < r.id))
      .sort((a, b) => a.nextAttemptAt - b.nextAttemptAt || a.id - b.id)
      .slice(0, opts.limit)
      .map((r) => ({ ...r }));
  }

  nextDueAt(target: string): number | undefined {
    const times = this.rows.filter((r) => r.status === 'pending' && r.targetId === target).map((r) => r.nextAttemptAt);
    return times.length ? Math.min(...times) : undefined;
  }

  recordOutcomes(outcomes: readonly NotificationOutcome[], now: number): void {
    for (const o of outcomes) {
      const row = this.rows.find((r) => r.id === o.id && r.status === 'pending');
      if (!row) continue;
      row.attempts = o.attempts;
      this.outcomesWritten++;
      if (o.status === 'retry') row.nextAttemptAt = o.nextAttemptAt;
      else {
        row.status = o.status;
        row.finishedAt = now;
      }
    }
  }

  prune(): number {
    return 0;
  }

  count(status: 'pending' | 'delivered' | 'failed'): number {
    return this.rows.filter((r) => r.status === status).length;
  }
}

interface Harness {
  outbox: MemoryOutbox;
  dispatcher: NotificationDispatcher;
  sends: NotificationDelivery[];
  /** How the target answers from now: accepts, cannot be reached (down), or is reached and refuses (HTTP 503). */
  setState: (state: 'up' | 'down' | 'refusing') => void;
  /** Holds every send until the returned function is called. */
  hold: () => () => void;
  /** Replaces the target's settings, as an admin's PUT does (the targets tell their listeners). */
  changeTarget: (settings: Record<string, unknown>) => void;
  /** The settings of the target each send went out with, in order. */
  sentWith: Record<string, unknown>[];
}

function harness(opts: { concurrency?: number; maxAttempts?: number; latencyMs?: number } = {}): Harness {
  const outbox = new MemoryOutbox();
  const sends: NotificationDelivery[] = [];
  let state: 'up' | 'down' | 'refusing' = 'up';
  let gate: Promise<void> = Promise.resolve();
  let target: Target = TARGET;
  const listeners: ((id: string) => void)[] = [];
  const sentWith: Record<string, unknown>[] = [];
  const dispatcher = new NotificationDispatcher({
    repo: outbox,
    targets: {
      all: () => [target],
      find: (id) => (id === target.id ? target : undefined),
      onChange: (listener) => listeners.push(listener),
    },
    durableUpTo: () => Number.MAX_SAFE_INTEGER,
    transaction: (fn) => {
      outbox.transactions++;
      return fn();
    },
    logger: pino({ level: 'silent' }),
    backoff: { baseMs: 2000, capMs: 3_600_000 },
    maxAttempts: opts.maxAttempts ?? 8,
    concurrency: opts.concurrency ?? 4,
    now: () => Date.now(),
    random: () => 0.5,
    createTransport: (made) =>
      Promise.resolve({
        send: async (d) => {
          sends.push(d);
          sentWith.push(made.settings);
          await gate;
          if (opts.latencyMs) await new Promise((r) => setTimeout(r, opts.latencyMs));
          if (state === 'down') throw new TransportError('unreachable', 'ECONNREFUSED', 'network error: ECONNREFUSED');
          if (state === 'refusing') throw new Error('HTTP 503');
        },
        close: () => Promise.resolve(),
      }),
  });
  const hold = (): (() => void) => {
    let open = (): void => undefined;
    gate = new Promise((resolve) => (open = resolve));
    return open;
  };
  const changeTarget = (settings: Record<string, unknown>): void => {
    target = { ...target, settings };
    for (const listener of listeners) listener(target.id);
  };
  return { outbox, dispatcher, sends, setState: (v) => (state = v), hold, changeTarget, sentWith };
}

beforeEach(() => {
  vi.useFakeTimers({ now: 1_000_000 });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('NotificationDispatcher', () => {
  it('delivers every row once, writing several outcomes per transaction', async () => {
    const h = harness();
    h.outbox.add(40, { now: Date.now() });
    h.dispatcher.start();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(h.outbox.count('delivered')).toBe(40);
    // A row stays claimed until its outcome is written: none is sent twice.
    expect(new Set(h.sends.map((d) => d.body)).size).toBe(h.sends.length);
    expect(h.sends).toHaveLength(40);
    expect(h.outbox.transactions).toBeLessThan(h.outbox.outcomesWritten);
    await h.dispatcher.stop();
  });

  it('pauses a target that is down: an hour of outage dead-letters nothing and costs a few probes, not a send per row', async () => {
    const h = harness();
    h.setState('down');
    h.outbox.add(500, { now: Date.now() });
    h.dispatcher.start();
    await vi.advanceTimersByTimeAsync(3_600_000);
    expect(h.outbox.count('failed')).toBe(0);
    expect(h.outbox.count('pending')).toBe(500);
    // The first four in flight, then one probe at a time at most every TARGET_PAUSE_CAP_MS / 2 (random 0.5).
    const probes = h.sends.length;
    expect(probes).toBeLessThanOrEqual(4 + Math.ceil(3_600_000 / (TARGET_PAUSE_CAP_MS / 2)) + 10);
    expect(probes).toBeGreaterThanOrEqual(4 + 60);
    // Back up: the queue drains within one pause.
    h.setState('up');
    await vi.advanceTimersByTimeAsync(TARGET_PAUSE_CAP_MS);
    expect(h.outbox.count('delivered')).toBe(500);
    expect(h.outbox.count('failed')).toBe(0);
    await h.dispatcher.stop();
  });

  it('probes a paused target at once when resumed (settings changed, dead letters retried)', async () => {
    const h = harness();
    h.setState('down');
    h.outbox.add(3, { now: Date.now() });
    h.dispatcher.start();
    await vi.advanceTimersByTimeAsync(100_000); // paused for up to TARGET_PAUSE_CAP_MS
    const before = h.sends.length;
    h.setState('up');
    h.dispatcher.resume(TARGET.id);
    await vi.advanceTimersByTimeAsync(100);
    expect(h.sends.length).toBeGreaterThan(before);
    expect(h.outbox.count('delivered')).toBe(3);
    await h.dispatcher.stop();
  });

  it('a lone row waits out a day-long outage without spending an attempt', async () => {
    const h = harness({ maxAttempts: 3 });
    h.setState('down');
    h.outbox.add(1, { now: Date.now() });
    h.dispatcher.start();
    await vi.advanceTimersByTimeAsync(86_400_000);
    expect(h.outbox.count('failed')).toBe(0);
    expect(h.outbox.rows[0]).toMatchObject({ status: 'pending', attempts: 0 });
    // Probed at most every TARGET_PAUSE_CAP_MS / 2 (random 0.5): a recovered target is found within that.
    expect(h.sends.length).toBeGreaterThan(86_400_000 / TARGET_PAUSE_CAP_MS);
    h.setState('up');
    await vi.advanceTimersByTimeAsync(TARGET_PAUSE_CAP_MS);
    expect(h.outbox.count('delivered')).toBe(1);
    await h.dispatcher.stop();
  });

  it('a freed slot takes the next queued row at once: throughput is the slots over the send time', async () => {
    const h = harness({ latencyMs: 2 });
    h.outbox.add(400, { now: Date.now() });
    h.dispatcher.start();
    // 400 rows over 4 slots of 2 ms each take 200 ms; a pass between sends (5 ms each) would take over 700.
    await vi.advanceTimersByTimeAsync(260);
    expect(h.outbox.count('delivered')).toBe(400);
    expect(h.sends).toHaveLength(400);
    await h.dispatcher.stop();
  });

  it("still dead-letters a row the target keeps refusing after maxAttempts of that row's own", async () => {
    const h = harness({ maxAttempts: 3 });
    h.setState('refusing');
    h.outbox.add(1, { now: Date.now() });
    h.dispatcher.start();
    await vi.advanceTimersByTimeAsync(600_000);
    expect(h.outbox.count('failed')).toBe(1);
    expect(h.sends).toHaveLength(3);
    await h.dispatcher.stop();
  });

  it("keeps a key's rows in commit order across a pause", async () => {
    const h = harness();
    h.setState('down');
    h.outbox.add(5, { now: Date.now(), sameKey: true });
    h.dispatcher.start();
    await vi.advanceTimersByTimeAsync(30_000);
    h.setState('up');
    await vi.advanceTimersByTimeAsync(TARGET_PAUSE_CAP_MS * 3);
    expect(h.outbox.count('delivered')).toBe(5);
    // Row 1 is probed while the target is down (its later rows wait behind it), then each goes out in turn.
    const order = h.sends.map((d) => (JSON.parse(d.body) as { n: number }).n);
    expect(order.filter((n, i) => n !== order[i - 1])).toEqual([1, 2, 3, 4, 5]);
    await h.dispatcher.stop();
  });

  it('sends with the new settings once a target changes, also the rows after one that was out meanwhile', async () => {
    const h = harness({ concurrency: 1 });
    const open = h.hold();
    h.outbox.add(5, { now: Date.now() });
    h.dispatcher.start();
    await vi.advanceTimersByTimeAsync(10);
    expect(h.sentWith).toEqual([{}]); // one row out under the old settings
    h.changeTarget({ endpoint: 'new' });
    open();
    await vi.advanceTimersByTimeAsync(1000);
    expect(h.outbox.count('delivered')).toBe(5);
    expect(h.sentWith.slice(1)).toEqual(new Array(4).fill({ endpoint: 'new' }));
    await h.dispatcher.stop();
  });

  it('still passes, and claims, while wakes arrive faster than its 5 ms delay (a steady write load)', async () => {
    const h = harness();
    h.dispatcher.start();
    await vi.advanceTimersByTimeAsync(100); // idle: the next pass is a poll away
    h.outbox.add(10, { now: Date.now() });
    // A commit every millisecond, each waking the dispatcher, for 50 ms.
    for (let i = 0; i < 50; i++) {
      h.dispatcher.wake();
      await vi.advanceTimersByTimeAsync(1);
    }
    expect(h.outbox.count('delivered')).toBe(10);
    await h.dispatcher.stop();
  });

  it('writes outcomes still queued when it stops, before the database closes', async () => {
    const h = harness();
    const open = h.hold();
    h.outbox.add(4, { now: Date.now() });
    h.dispatcher.start();
    await vi.advanceTimersByTimeAsync(10);
    expect(h.sends).toHaveLength(4);
    // The sends succeed and stop() is called in the same turn: the (faked) setImmediate that would write the
    // outcomes never runs before stop() returns.
    open();
    await h.dispatcher.stop();
    expect(h.outbox.count('delivered')).toBe(4);
  });
});
