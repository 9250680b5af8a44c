// The audit service over a real database in a temp directory, with an injected clock: flush, bounded buffer,
// retention pruning, secrets stripped, filters and keyset paging.

import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isAppError } from '../../core/errors.js';
import { createLogger } from '../../observability/logger.js';
import { MetadataStore } from '../../storage/db/metadata-store.js';
import { AuditService } from './audit-service.js';

const DAY = 86_400_000;
let dir: string;
let meta: MetadataStore;
let clock: { ms: number };
let logLines: string[];

function service(opts: { retentionDays?: number; maxBuffered?: number } = {}): AuditService {
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      logLines.push(...chunk.toString().split('\n').filter(Boolean));
      done();
    },
  });
  return new AuditService({
    meta,
    logger: createLogger('info', sink),
    retentionDays: opts.retentionDays ?? 90,
    now: () => clock.ms,
    maxBuffered: opts.maxBuffered,
  });
}

beforeEach(() => {
  dir = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'store-audit-'));
  meta = MetadataStore.open(join(dir, 'meta.db'));
  clock = { ms: Date.parse('2030-01-01T00:00:00Z') };
  logLines = [];
});
afterEach(async () => {
  await meta.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('AuditService: recording and flushing', () => {
  it('logs each record at once with audit: true and stores it only on flush', async () => {
    const audit = service();
    audit.record({ event: 'user.created', subject: 'admin', details: { username: 'bob' } });
    expect(audit.list({ limit: 10 }).items).toEqual([]);
    expect(audit.bufferedCount).toBe(1);
    expect(audit.flush()).toEqual({ inserted: 1, pruned: 0 });
    expect(audit.bufferedCount).toBe(0);
    expect(audit.list({ limit: 10 }).items).toEqual([
      {
        id: expect.any(String),
        time: '2030-01-01T00:00:00.000Z',
        event: 'user.created',
        subject: 'admin',
        bucket: null,
        details: { username: 'bob' },
      },
    ]);
    await new Promise((r) => setTimeout(r, 50)); // pino writes asynchronously
    const line = JSON.parse(logLines.find((l) => l.includes('user.created')) ?? '{}') as Record<string, unknown>;
    expect(line).toMatchObject({ audit: true, event: 'user.created', subject: 'admin', details: { username: 'bob' } });
  });

  it('stamps the time of the action, not of the flush', () => {
    const audit = service();
    audit.record({ event: 'auth.login', subject: 'a' });
    clock.ms += 5000;
    audit.flush();
    expect(audit.list({ limit: 1 }).items[0]?.time).toBe('2030-01-01T00:00:00.000Z');
  });

  it('never stores or logs secret fields, nor credential-shaped values', async () => {
    const audit = service();
    audit.record({
      event: 'key.created',
      subject: 'admin',
      bucket: 'b',
      details: {
        accessKeyId: 'AKIAEXAMPLE',
        secretAccessKey: 'TOPSECRET-1',
        nested: { password: 'TOPSECRET-2', note: 'Bearer TOPSECRET-3' },
      },
    });
    audit.flush();
    await meta.close();
    const bytes = Buffer.concat([
      readFileSync(join(dir, 'meta.db')),
      existsSync(join(dir, 'meta.db-wal')) ? readFileSync(join(dir, 'meta.db-wal')) : Buffer.alloc(0),
    ]);
    expect(bytes.includes('AKIAEXAMPLE')).toBe(true); // the control: the row is there
    for (const secret of ['TOPSECRET-1', 'TOPSECRET-2', 'TOPSECRET-3']) expect(bytes.includes(secret)).toBe(false);
    await new Promise((r) => setTimeout(r, 50));
    expect(logLines.join('\n')).toContain('AKIAEXAMPLE');
    expect(logLines.join('\n')).not.toMatch(/TOPSECRET/);
    meta = MetadataStore.open(join(dir, 'meta.db'));
  });

  it('drops the oldest records beyond the bound, counts them, and never throws', () => {
    const audit = service({ maxBuffered: 3 });
    for (const subject of ['s1', 's2', 's3', 's4', 's5']) audit.record({ event: 'auth.login', subject });
    expect(audit.droppedCount).toBe(2);
    audit.flush();
    expect(audit.list({ limit: 10 }).items.map((i) => i.subject)).toEqual(['s5', 's4', 's3']);
  });

  it('replaces oversized details by a marker', () => {
    const audit = service();
    audit.record({ event: 'bucket.config_updated', subject: 'a', details: { policy: 'x'.repeat(10_000) } });
    audit.flush();
    expect(audit.list({ limit: 1 }).items[0]?.details).toEqual({ truncated: true });
  });

  it('keeps the records when a flush fails and writes them on the next one', () => {
    const audit = service();
    audit.record({ event: 'auth.login', subject: 'kept' });
    meta.db.exec('ALTER TABLE audit RENAME TO audit_away');
    expect(audit.flush()).toEqual({ inserted: 0, pruned: 0 });
    expect(audit.bufferedCount).toBe(1);
    audit.record({ event: 'auth.logout', subject: 'later' });
    meta.db.exec('ALTER TABLE audit_away RENAME TO audit');
    expect(audit.flush()).toEqual({ inserted: 2, pruned: 0 });
    expect(audit.list({ limit: 10 }).items.map((i) => i.subject)).toEqual(['later', 'kept']);
  });
});

describe('AuditService: retention', () => {
  it('prunes rows older than the retention on each flush, with the injected clock', () => {
    const audit = service({ retentionDays: 2 });
    audit.record({ event: 'auth.login', subject: 'old' });
    clock.ms += DAY;
    audit.record({ event: 'auth.login', subject: 'middle' });
    audit.flush();
    clock.ms += DAY; // old is exactly 2 days old: kept (strictly older is pruned)
    expect(audit.flush().pruned).toBe(0);
    clock.ms += 1;
    expect(audit.flush().pruned).toBe(1);
    expect(audit.list({ limit: 10 }).items.map((i) => i.subject)).toEqual(['middle']);
    clock.ms += 10 * DAY;
    audit.record({ event: 'auth.login', subject: 'new' });
    expect(audit.flush()).toEqual({ inserted: 1, pruned: 1 });
    expect(audit.list({ limit: 10 }).items.map((i) => i.subject)).toEqual(['new']);
  });
});

describe('AuditService: list', () => {
  function seed(audit: AuditService): void {
    const events = ['auth.login', 'user.created', 'bucket.created'] as const;
    for (let i = 0; i < 30; i++) {
      const event = events[i % 3] as (typeof events)[number];
      audit.record({
        event,
        subject: i % 2 === 0 ? 'alice' : 'bob',
        bucket: event === 'bucket.created' ? `b${i % 2}` : undefined,
        details: { i },
      });
      // Two records share each millisecond: the id breaks the tie.
      if (i % 2 === 1) clock.ms += 1000;
    }
    audit.flush();
  }
  const indexes = (items: { details: Record<string, unknown> }[]): unknown[] => items.map((item) => item.details['i']);

  it('pages newest first without gaps or repeats, and ends with a null cursor', () => {
    const audit = service();
    seed(audit);
    const seen: unknown[] = [];
    let cursor: string | undefined;
    for (let pages = 0; pages < 10; pages++) {
      const page = audit.list({ limit: 7, cursor });
      seen.push(...indexes(page.items));
      if (page.nextCursor === null) break;
      cursor = page.nextCursor;
    }
    expect(seen).toEqual(Array.from({ length: 30 }, (_, i) => 29 - i));
  });

  it('stays stable when rows are inserted between pages', () => {
    const audit = service();
    seed(audit);
    const first = audit.list({ limit: 10 });
    audit.record({ event: 'auth.login', subject: 'late' });
    clock.ms -= 60_000; // even a record stamped inside the range already shown
    audit.record({ event: 'auth.login', subject: 'late' });
    audit.flush();
    const second = audit.list({ limit: 10, cursor: first.nextCursor ?? undefined });
    expect(indexes(second.items)).toEqual([19, 18, 17, 16, 15, 14, 13, 12, 11, 10]);
  });

  it('an exact final page has a null cursor', () => {
    const audit = service();
    seed(audit);
    expect(audit.list({ limit: 30 }).nextCursor).toBeNull();
    expect(audit.list({ limit: 29 }).nextCursor).not.toBeNull();
  });

  it('filters by event, subject, bucket and time range together with paging', () => {
    const audit = service();
    const start = clock.ms;
    seed(audit);
    expect(audit.list({ event: 'user.created', limit: 50 }).items.every((i) => i.event === 'user.created')).toBe(true);
    expect(audit.list({ event: 'user.created', limit: 50 }).items).toHaveLength(10);
    expect(indexes(audit.list({ subject: 'bob', event: 'auth.login', limit: 50 }).items)).toEqual([27, 21, 15, 9, 3]);
    expect(indexes(audit.list({ bucket: 'b0', limit: 50 }).items)).toEqual([26, 20, 14, 8, 2]);
    // Seconds 2 and 3 after the start hold records 4..7; `to` is exclusive.
    const range = { from: new Date(start + 2000), to: new Date(start + 4000) };
    expect(indexes(audit.list({ ...range, limit: 50 }).items)).toEqual([7, 6, 5, 4]);
    const p1 = audit.list({ ...range, limit: 3 });
    expect(indexes(audit.list({ ...range, limit: 3, cursor: p1.nextCursor ?? undefined }).items)).toEqual([4]);
    expect(audit.list({ event: 'key.created', limit: 50 })).toEqual({ items: [], nextCursor: null });
  });

  it('refuses a cursor it did not produce', () => {
    const audit = service();
    for (const cursor of ['garbage!', Buffer.from('1.x').toString('base64url'), '']) {
      let caught: unknown;
      try {
        audit.list({ limit: 10, cursor });
      } catch (err) {
        caught = err;
      }
      expect(isAppError(caught) && caught.code).toBe('ValidationError');
    }
  });
});
