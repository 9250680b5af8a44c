// runTransaction: one set of better-sqlite3 transaction wrappers per connection, with the semantics of a fresh one.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runTransaction, type Db } from './database.js';

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
    expect(() => runTransaction(db, () => {
      insert(db, 'a');
      throw new Error('boom');
    }, 'immediate')).toThrow('boom');
    expect(db.inTransaction).toBe(false);
    expect(values(db)).toEqual([]);
  });

  it('runs a nested call in a savepoint: its failure undoes only its own writes', () => {
    const db = memoryDb();
    runTransaction(db, () => {
      insert(db, 'outer');
      expect(() => runTransaction(db, () => {
        insert(db, 'inner');
        throw new Error('inner fails');
      })).toThrow('inner fails');
      expect(db.inTransaction).toBe(true);
      runTransaction(db, () => insert(db, 'second'));
    }, 'immediate');
    expect(values(db)).toEqual(['outer', 'second']);
  });

  it('builds better-sqlite3\'s wrappers once per connection, not once per call', () => {
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

