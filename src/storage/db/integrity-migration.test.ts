// The integrity migration counts the delete markers already stored (a data directory from before it), and its
// triggers keep the counts by status and of markers exact through inserts, status changes, updates and deletes,
// including results dropped with their version by the foreign key.

import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { migrate } from './database.js';
import { MIGRATIONS } from './migrations.js';

let db: BetterSqlite3.Database | undefined;
afterEach(() => db?.close());

const totals = (d: BetterSqlite3.Database) =>
  Object.fromEntries(
    (d.prepare('SELECT name, count FROM integrity_totals').all() as { name: string; count: number }[]).map((r) => [
      r.name,
      r.count,
    ]),
  );

describe('integrity migration', () => {
  it('backfills the marker count, then the triggers follow every change', () => {
    db = new BetterSqlite3(':memory:');
    db.pragma('foreign_keys = ON');
    const at = MIGRATIONS.findIndex((sql) => sql.includes('CREATE TABLE object_integrity'));
    expect(at).toBeGreaterThan(0);
    for (let i = 0; i < at; i++) db.exec(MIGRATIONS[i] as string);
    db.pragma(`user_version = ${at}`);
    db.exec(`INSERT INTO buckets (name, created_at, region) VALUES ('b', 0, 'r')`);
    const insert = db.prepare(
      `INSERT INTO objects (bucket, key, version_id, is_latest, is_delete_marker, size, etag, last_modified) VALUES ('b', ?, ?, 1, ?, 1, '', 0)`,
    );
    insert.run('m1', 'v1', 1);
    insert.run('m2', 'v2', 1);
    const obj = Number(insert.run('o', 'v3', 0).lastInsertRowid);
    migrate(db);
    expect(totals(db)).toEqual({ ok: 0, corrupt: 0, unchecked: 0, delete_markers: 2 });
    insert.run('m3', 'v4', 1);
    db.prepare(`DELETE FROM objects WHERE key = 'm1'`).run();
    db.prepare(`UPDATE objects SET is_delete_marker = 1 WHERE key = 'o'`).run();
    expect(totals(db).delete_markers).toBe(3);
    db.prepare(`UPDATE objects SET is_delete_marker = 0 WHERE key = 'o'`).run();
    db.prepare(`INSERT INTO object_integrity (object_id, status, checked_at) VALUES (?, 'ok', 1)`).run(obj);
    expect(totals(db)).toEqual({ ok: 1, corrupt: 0, unchecked: 0, delete_markers: 2 });
    db.prepare(`UPDATE object_integrity SET status = 'corrupt' WHERE object_id = ?`).run(obj);
    expect(totals(db)).toMatchObject({ ok: 0, corrupt: 1 });
    db.prepare('DELETE FROM objects WHERE id = ?').run(obj);
    expect(totals(db)).toEqual({ ok: 0, corrupt: 0, unchecked: 0, delete_markers: 2 });
    expect(db.prepare('SELECT count(*) FROM object_integrity').pluck().get()).toBe(0);
  });
});
