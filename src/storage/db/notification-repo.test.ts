// A notification target's status figures (docs/notifications.md "Status and metrics") come from a delivered counter
// and index ranges, not from a scan of the outbox: the counter follows deliveries and pruning, and migration 17
// backfills it for a data directory that already holds delivered rows.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { migrate, type Db } from './database.js';
import { MIGRATIONS } from './migrations.js';
import { NotificationRepo } from './notification-repo.js';

let dir: string | undefined;
let db: Db | undefined;
afterEach(() => {
  db?.close();
  db = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function openDb(upTo?: number): Db {
  dir = mkdtempSync(join(tmpdir(), 'notify-repo-'));
  db = new BetterSqlite3(join(dir, 'meta.db'));
  if (upTo === undefined) migrate(db);
  else {
    for (let i = 0; i < upTo; i++) db.exec(MIGRATIONS[i] as string);
    db.pragma(`user_version = ${upTo}`);
  }
  return db;
}

function addTarget(repo: NotificationRepo, id: string): void {
  repo.saveTarget({ id, kind: 'webhook', config: '{}', secrets: undefined, createdAt: 0, updatedAt: 0 });
}

function insert(repo: NotificationRepo, row: { targetId: string; key: string; createdAt: number }): number {
  return repo.insert({ ...row, bucket: 'b', eventName: 'ObjectCreated:Put', body: '{}' });
}

describe('NotificationRepo counts', () => {
  it('counts pending, delivered and failed rows per target, through outcomes, retries and pruning', () => {
    const d = openDb();
    const repo = new NotificationRepo(d);
    addTarget(repo, 'a');
    addTarget(repo, 'b');
    const ids = [1, 2, 3, 4].map((i) => insert(repo, { targetId: 'a', key: `k${i}`, createdAt: 1000 + i }));
    insert(repo, { targetId: 'b', key: 'x', createdAt: 500 });
    expect(repo.counts()).toEqual([
      { targetId: 'a', pending: 4, delivered: 0, failed: 0, oldestPendingAt: 1001 },
      { targetId: 'b', pending: 1, delivered: 0, failed: 0, oldestPendingAt: 500 },
    ]);
    const [one, two, three] = ids as [number, number, number, number];
    repo.recordOutcomes(
      [
        { id: one, targetId: 'a', attempts: 1, status: 'delivered' },
        { id: two, targetId: 'a', attempts: 1, status: 'delivered' },
        { id: three, targetId: 'a', attempts: 8, status: 'failed', error: 'HTTP 503' },
      ],
      5000,
    );
    // A second outcome for a row no longer pending (a duplicate write) counts nothing.
    repo.recordOutcomes([{ id: one, targetId: 'a', attempts: 2, status: 'delivered' }], 5001);
    expect(repo.counts()[0]).toEqual({ targetId: 'a', pending: 1, delivered: 2, failed: 1, oldestPendingAt: 1004 });
    expect(repo.lastError('a')).toBe('HTTP 503');
    expect(repo.lastError('b')).toBeUndefined();

    expect(repo.retryFailed('a', 6000)).toBe(1);
    expect(repo.counts()[0]).toMatchObject({ pending: 2, delivered: 2, failed: 0, oldestPendingAt: 1003 });

    // Pruning keeps the newest row of the table and takes the pruned rows off the counter.
    expect(repo.prune(10_000)).toBe(2);
    expect(repo.counts()[0]).toMatchObject({ delivered: 0, pending: 2 });
  });

  it('forgets a deleted target with its rows; a target made again starts from zero', () => {
    const d = openDb();
    const repo = new NotificationRepo(d);
    addTarget(repo, 'a');
    const id = insert(repo, { targetId: 'a', key: 'k', createdAt: 1 });
    insert(repo, { targetId: 'a', key: 'k2', createdAt: 2 });
    repo.recordOutcomes([{ id, targetId: 'a', attempts: 1, status: 'delivered' }], 3);
    expect(repo.deleteTarget('a')).toBe(true);
    addTarget(repo, 'a');
    expect(repo.counts()).toEqual([{ targetId: 'a', pending: 0, delivered: 0, failed: 0, oldestPendingAt: undefined }]);
  });

  it('saving a target again (new settings) keeps its delivered count', () => {
    const d = openDb();
    const repo = new NotificationRepo(d);
    addTarget(repo, 'a');
    const id = insert(repo, { targetId: 'a', key: 'k', createdAt: 1 });
    repo.recordOutcomes([{ id, targetId: 'a', attempts: 1, status: 'delivered' }], 3);
    repo.saveTarget({ id: 'a', kind: 'webhook', config: '{"x":1}', secrets: undefined, createdAt: 0, updatedAt: 9 });
    expect(repo.counts()[0]?.delivered).toBe(1);
  });

  it('migration 17 backfills the delivered counter of an existing data directory', () => {
    const seventeen = MIGRATIONS.findIndex((sql) => sql.includes('delivered_count'));
    expect(seventeen).toBeGreaterThan(0);
    const d = openDb(seventeen);
    d.exec(
      `INSERT INTO notification_targets (id, kind, config, secrets, created_at, updated_at)
       VALUES ('a', 'webhook', '{}', NULL, 0, 0), ('b', 'redis', '{}', NULL, 0, 0)`,
    );
    const row = d.prepare(
      `INSERT INTO notification_outbox (target_id, bucket, key, event_name, body, status, next_attempt_at, created_at)
       VALUES (?, 'b', 'k', 'ObjectCreated:Put', '{}', ?, 0, 0)`,
    );
    for (const status of ['delivered', 'delivered', 'failed', 'pending']) row.run('a', status);
    row.run('b', 'delivered');
    migrate(d);
    expect(new NotificationRepo(d).counts()).toEqual([
      { targetId: 'a', pending: 1, delivered: 2, failed: 1, oldestPendingAt: 0 },
      { targetId: 'b', pending: 0, delivered: 1, failed: 0, oldestPendingAt: undefined },
    ]);
  });
});
