// In-process handlers and the pipeline in front of them: dispatch only after the durability barrier, never
// awaited; a throwing, rejecting or never-settling handler affects nobody else; the outbox sees every accepted event.

import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { ObjectEvent } from '../../core/object-event.js';
import { EventHandlers } from './event-handlers.js';
import { EventPipeline, type EventOutbox } from './event-pipeline.js';

/** A logger whose records are kept for assertions. */
function recordingLogger(): { logger: pino.Logger; records: Record<string, unknown>[] } {
  const records: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      records.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { logger: pino({ level: 'debug' }, sink), records };
}

const created = (key: string): ObjectEvent => ({
  type: 'object.created',
  bucket: 'bkt',
  key,
  size: 1,
  etag: 'e',
  eventTime: '2030-01-01T00:00:00.000Z',
});
const deleted = (key: string): ObjectEvent => ({
  type: 'object.deleted',
  bucket: 'bkt',
  key,
  size: 0,
  etag: '',
  eventTime: '2030-01-01T00:00:00.000Z',
});
const tick = (): Promise<void> => new Promise((r) => setTimeout(r, 5));

/** A durability barrier the test releases by hand. */
function manualBarrier(): {
  durable: () => Promise<void>;
  release: () => void;
  fail: (err: Error) => void;
  calls: () => number;
} {
  let waiting: { resolve: () => void; reject: (e: Error) => void }[] = [];
  let calls = 0;
  return {
    durable: () => {
      calls++;
      return new Promise((resolve, reject) => waiting.push({ resolve, reject }));
    },
    release: () => {
      const w = waiting;
      waiting = [];
      w.forEach((x) => x.resolve());
    },
    fail: (err) => {
      const w = waiting;
      waiting = [];
      w.forEach((x) => x.reject(err));
    },
    calls: () => calls,
  };
}

describe('EventHandlers', () => {
  it('routes each type to its handlers, in registration order, with one frozen event', () => {
    const handlers = new EventHandlers(pino({ level: 'silent' }));
    const got: string[] = [];
    handlers.onObjectCreated((e) => {
      got.push(`c1:${e.key}`);
    });
    handlers.onObjectCreated((e) => {
      got.push(`c2:${e.key}`);
      expect(Object.isFrozen(e)).toBe(true);
    });
    handlers.onObjectDeleted((e) => {
      got.push(`d:${e.key}`);
    });
    handlers.onMultipartCompleted(() => {
      got.push('m');
    });
    handlers.dispatch(created('a'));
    handlers.dispatch(deleted('b'));
    expect(got).toEqual(['c1:a', 'c2:a', 'd:b']);
    expect([handlers.has('object.created'), handlers.has('multipart.completed')]).toEqual([true, true]);
  });

  it('unsubscribes', () => {
    const handlers = new EventHandlers(pino({ level: 'silent' }));
    let n = 0;
    const off = handlers.onObjectDeleted(() => {
      n++;
    });
    handlers.dispatch(deleted('a'));
    off();
    off();
    handlers.dispatch(deleted('a'));
    expect(n).toBe(1);
    expect(handlers.has('object.deleted')).toBe(false);
  });

  it('logs and drops a throwing or rejecting handler; the others still run; a hanging one is not waited for', async () => {
    const { logger, records } = recordingLogger();
    const handlers = new EventHandlers(logger);
    const got: string[] = [];
    handlers.onObjectCreated(() => {
      throw new Error('sync boom');
    });
    handlers.onObjectCreated(async () => {
      throw new Error('async boom');
    });
    handlers.onObjectCreated(() => new Promise(() => undefined));
    handlers.onObjectCreated((e) => {
      got.push(e.key);
    });
    const started = performance.now();
    handlers.dispatch(created('k'));
    expect(performance.now() - started).toBeLessThan(50);
    expect(got).toEqual(['k']);
    await tick();
    const failures = records.filter((r) => r['msg'] === 'event handler failed; the event is dropped for it');
    expect(failures.map((r) => (r['err'] as { message: string }).message).sort()).toEqual(['async boom', 'sync boom']);
    expect(failures.every((r) => r['eventType'] === 'object.created' && r['bucket'] === 'bkt' && !('key' in r))).toBe(
      true,
    );
  });
});

describe('EventPipeline', () => {
  it('dispatches each event after a barrier asked for right after its commit, on a later turn', async () => {
    const barrier = manualBarrier();
    const handlers = new EventHandlers(pino({ level: 'silent' }));
    const got: string[] = [];
    handlers.onObjectCreated((e) => {
      got.push(e.key);
    });
    const pipeline = new EventPipeline({ handlers, durable: barrier.durable, logger: pino({ level: 'silent' }) });
    pipeline.afterCommit(created('a'));
    pipeline.afterCommit(created('b'));
    await tick();
    expect(got).toEqual([]);
    expect(barrier.calls()).toBe(2); // one per commit, each shared with the writer's own wait
    barrier.release();
    await Promise.resolve();
    await Promise.resolve();
    expect(got).toEqual([]); // not in the barrier's continuation: the client's answer goes out first
    await tick();
    expect(got).toEqual(['a', 'b']);
    pipeline.afterCommit(created('c'));
    await tick();
    expect(got).toEqual(['a', 'b']);
    barrier.release();
    await tick();
    expect(got).toEqual(['a', 'b', 'c']);
  });

  it('drops an event (logged) whose barrier fails: its write may be lost', async () => {
    const barrier = manualBarrier();
    const { logger, records } = recordingLogger();
    const handlers = new EventHandlers(logger);
    const got: string[] = [];
    handlers.onObjectCreated((e) => {
      got.push(e.key);
    });
    const pipeline = new EventPipeline({ handlers, durable: barrier.durable, logger });
    pipeline.afterCommit(created('lost'));
    barrier.fail(new Error('EIO'));
    await tick();
    pipeline.afterCommit(created('later'));
    barrier.release();
    await tick();
    expect(got).toEqual(['later']);
    expect(records.some((r) => r['msg'] === 'durability barrier failed; event dropped for in-process handlers')).toBe(
      true,
    );
  });

  it('waits for nothing for a type without handlers, and bounds the events waiting while the disk stalls', async () => {
    const barrier = manualBarrier();
    const { logger, records } = recordingLogger();
    const handlers = new EventHandlers(logger);
    let n = 0;
    handlers.onObjectDeleted(() => {
      n++;
    });
    const pipeline = new EventPipeline({ handlers, durable: barrier.durable, logger, maxQueued: 3 });
    pipeline.afterCommit(created('nobody listens'));
    expect(barrier.calls()).toBe(0);
    for (let i = 0; i < 5; i++) pipeline.afterCommit(deleted(String(i)));
    expect(barrier.calls()).toBe(3);
    barrier.release();
    await tick();
    expect(n).toBe(3);
    pipeline.afterCommit(deleted('after'));
    barrier.release();
    await tick();
    expect(n).toBe(4); // room again once the stall cleared
    await new Promise((r) => setTimeout(r, 1100));
    expect(
      records.find((r) => r['msg'] === 'in-process event queue full; events dropped for handlers')?.['dropped'],
    ).toBe(2);
  });

  it('writes accepted events to the outbox inside the transaction and reports each committed row by id', () => {
    const enqueued: string[] = [];
    const committedIds: number[] = [];
    let nextId = 41;
    const outbox: EventOutbox = {
      accepts: (type) => type === 'object.deleted',
      enqueue: (e) => {
        enqueued.push(e.key);
        return ++nextId;
      },
      committed: (id) => {
        committedIds.push(id);
      },
    };
    const pipeline = new EventPipeline({
      handlers: new EventHandlers(pino({ level: 'silent' })),
      durable: async () => undefined,
      outbox,
      logger: pino({ level: 'silent' }),
    });
    const rolledBack = deleted('rolled back');
    const c = created('c');
    const d = deleted('d');
    pipeline.inTransaction(rolledBack); // its transaction failed: no afterCommit
    pipeline.inTransaction(c);
    pipeline.inTransaction(d);
    pipeline.afterCommit(c);
    pipeline.afterCommit(d);
    expect(enqueued).toEqual(['rolled back', 'd']);
    expect(committedIds).toEqual([43]);
  });

  it('never lets an outbox wake-up failure reach the writer', () => {
    const { logger, records } = recordingLogger();
    const outbox: EventOutbox = {
      accepts: () => true,
      enqueue: () => 1,
      committed: () => {
        throw new Error('wake failed');
      },
    };
    const pipeline = new EventPipeline({
      handlers: new EventHandlers(logger),
      durable: async () => undefined,
      outbox,
      logger,
    });
    const event = created('k');
    pipeline.inTransaction(event);
    expect(() => pipeline.afterCommit(event)).not.toThrow();
    expect(records.some((r) => r['msg'] === 'event dispatch failed')).toBe(true);
  });
});
