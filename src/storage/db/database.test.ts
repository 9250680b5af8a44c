// runTransaction (one set of better-sqlite3 transaction wrappers per connection) and migration 12 (the objects index
// that duplicated objects_versions_newest_first is gone, and no statement on objects needed it).

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { migrate, openDatabase, runTransaction, type Db } from './database.js';
import { MIGRATIONS } from './migrations.js';
import { ObjectsRepo } from './objects-repo.js';

const open: Db[] = [];
const dirs: string[] = [];
afterEach(() => {
  for (const db of open.splice(0)) db.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function memoryDb(): Db {
  const db = new BetterSqlite3(':memory:');
  open.push(db);
  db.exec('CREATE TABLE t (v TEXT NOT NULL)');
  return db;
}

const values = (db: Db): string[] => db.prepare('SELECT v FROM t ORDER BY rowid').pluck().all() as string[];
const insert = (db: Db, v: string): void => void db.prepare('INSERT INTO t (v) VALUES (?)').run(v);

describe('runTransaction', () => {
  it('commits what fn wrote and returns its result', () => {
    const db = memoryDb();
    const result = runTransaction(db, () => {
      insert(db, 'a');
      expect(db.inTransaction).toBe(true);
      return 42;
    });
    expect(result).toBe(42);
    expect(db.inTransaction).toBe(false);
    expect(values(db)).toEqual(['a']);
  });

  it('rolls everything back and rethrows when fn throws', () => {
    const db = memoryDb();
    expect(() =>
      runTransaction(
        db,
        () => {
          insert(db, 'a');
          throw new Error('boom');
        },
        'immediate',
      ),
    ).toThrow('boom');
    expect(db.inTransaction).toBe(false);
    expect(values(db)).toEqual([]);
  });

  it('runs a nested call in a savepoint: its failure undoes only its own writes', () => {
    const db = memoryDb();
    runTransaction(
      db,
      () => {
        insert(db, 'outer');
        expect(() =>
          runTransaction(db, () => {
            insert(db, 'inner');
            throw new Error('inner fails');
          }),
        ).toThrow('inner fails');
        expect(db.inTransaction).toBe(true);
        runTransaction(db, () => insert(db, 'second'));
      },
      'immediate',
    );
    expect(values(db)).toEqual(['outer', 'second']);
  });

  it("builds better-sqlite3's wrappers once per connection, not once per call", () => {
    const db = memoryDb();
    const spy = vi.spyOn(db, 'transaction');
    for (let i = 0; i < 5; i++) runTransaction(db, () => insert(db, `v${i}`), i % 2 === 0 ? 'immediate' : 'deferred');
    expect(spy).toHaveBeenCalledTimes(1);
    const other = memoryDb();
    const otherSpy = vi.spyOn(other, 'transaction');
    runTransaction(other, () => insert(other, 'x'));
    expect(otherSpy).toHaveBeenCalledTimes(1);
    expect(values(db)).toHaveLength(5);
    expect(values(other)).toEqual(['x']);
  });

  it('takes the write lock at BEGIN in immediate mode, and at the first write in deferred mode', () => {
    const dir = mkdtempSync(join(tmpdir(), 'store-db-'));
    dirs.push(dir);
    const file = join(dir, 'meta.db');
    const db = new BetterSqlite3(file);
    open.push(db);
    db.pragma('journal_mode = WAL');
    db.exec('CREATE TABLE t (v TEXT NOT NULL)');
    const other = new BetterSqlite3(file, { timeout: 0 });
    open.push(other);
    const otherWrites = (): boolean => {
      try {
        insert(other, 'other');
        return true;
      } catch (err) {
        expect((err as { code?: string }).code).toBe('SQLITE_BUSY');
        return false;
      }
    };
    expect(runTransaction(db, otherWrites, 'immediate')).toBe(false);
    expect(runTransaction(db, otherWrites, 'deferred')).toBe(true);
  });
});

describe('migration 12', () => {
  const indexes = (db: Db): string[] =>
    db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'objects' ORDER BY name")
      .pluck()
      .all() as string[];

  it('drops objects_by_key_order from a database at schema 11, and a fresh one never has it', () => {
    const old = new BetterSqlite3(':memory:');
    open.push(old);
    for (let i = 0; i < 11; i++) old.exec(MIGRATIONS[i] as string);
    old.pragma('user_version = 11');
    expect(indexes(old)).toContain('objects_by_key_order');
    migrate(old);
    expect(indexes(old)).not.toContain('objects_by_key_order');
    expect(indexes(old)).toContain('objects_versions_newest_first');

    const dir = mkdtempSync(join(tmpdir(), 'store-db-'));
    dirs.push(dir);
    const { db } = openDatabase(join(dir, 'meta.db'));
    open.push(db);
    expect(indexes(db)).not.toContain('objects_by_key_order');
  });

  it('leaves every lookup of a key an index seek on objects_versions_newest_first or objects_by_version', () => {
    const dir = mkdtempSync(join(tmpdir(), 'store-db-'));
    dirs.push(dir);
    const { db } = openDatabase(join(dir, 'meta.db'));
    open.push(db);
    const prepared: string[] = [];
    const prepare = db.prepare.bind(db);
    vi.spyOn(db, 'prepare').mockImplementation((sql: string) => {
      prepared.push(sql);
      return prepare(sql);
    });
    new ObjectsRepo(db);
    const byKey = prepared.filter((sql) => /\bbucket = \? AND key = \?/.test(sql));
    expect(byKey.length).toBeGreaterThanOrEqual(4);
    for (const sql of byKey) {
      const params = Array.from({ length: (sql.match(/\?/g) ?? []).length }, () => 'x');
      const rows = db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[];
      const plan = rows.map((r) => r.detail).join(' | ');
      expect(plan, sql).toMatch(
        /SEARCH (objects|o|n) USING (COVERING )?INDEX (objects_versions_newest_first|objects_by_version) \(bucket=\? AND key=\?/,
      );
      expect(plan, sql).not.toMatch(/SCAN objects|TEMP B-TREE/);
    }
  });
});
