import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SharedTransactions } from './shared-transactions.js';

let db: Database.Database;
let shared: SharedTransactions;
const insert = (v: string) => (): number => Number(db.prepare('INSERT INTO t (v) VALUES (?)').run(v).lastInsertRowid);
const values = (): string[] => db.prepare('SELECT v FROM t ORDER BY id').pluck().all() as string[];

beforeEach(() => {
  db = new Database(':memory:');
  db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL UNIQUE)');
  shared = new SharedTransactions(db);
});

afterEach(() => db.close());

describe('shared transactions (group commit at the SQLite level)', () => {
  it('runs the writes queued in one turn in one transaction, each resolving with its own result', async () => {
    const seenInTransaction: boolean[] = [];
    const results = await Promise.all(['a', 'b', 'c'].map((v) => shared.run(() => {
      seenInTransaction.push(db.inTransaction);
      return insert(v)();
    })));
    expect(results).toEqual([1, 2, 3]);
    expect(seenInTransaction).toEqual([true, true, true]);
    expect(values()).toEqual(['a', 'b', 'c']);
    expect(db.inTransaction).toBe(false);
  });

  it('rolls back and rejects only the write that throws; the others in its batch commit', async () => {
    const outcomes = await Promise.allSettled([
      shared.run(insert('a')),
      shared.run(() => {
        insert('half')();
        throw new Error('refused');
      }),
      shared.run(insert('a')), // UNIQUE violation: SQLite's own error, same rule
      shared.run(insert('c')),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled']);
    expect((outcomes[1] as PromiseRejectedResult).reason).toEqual(new Error('refused'));
    expect(String((outcomes[2] as PromiseRejectedResult).reason)).toMatch(/UNIQUE/);
    expect(values()).toEqual(['a', 'c']);
  });

  it('fails every write of the batch when SQLite ends the transaction under it (as after a full disk)', async () => {
    const outcomes = await Promise.allSettled([
      shared.run(insert('a')),
      shared.run(() => {
        insert('b')();
        // What SQLite does itself after SQLITE_FULL or an I/O error: the whole transaction is gone.
        db.prepare('ROLLBACK').run();
        throw new Error('database or disk is full');
      }),
      shared.run(insert('c')),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected', 'rejected']);
    for (const o of outcomes) expect((o as PromiseRejectedResult).reason).toEqual(new Error('database or disk is full'));
    // Nothing of the batch holds, and nothing after it ran outside a transaction.
    expect(values()).toEqual([]);
    expect(db.inTransaction).toBe(false);
    // The next batch works.
    await shared.run(insert('d'));
    expect(values()).toEqual(['d']);
  });

  it('starts a new batch for writes queued after a flush, and flush() commits what is queued at once', async () => {
    const first = shared.run(insert('a'));
    shared.flush();
    expect(values()).toEqual(['a']);
    await first;
    await shared.run(insert('b'));
    expect(values()).toEqual(['a', 'b']);
    shared.flush(); // nothing queued: no transaction
    expect(db.inTransaction).toBe(false);
  });

  it('settles writes queued from inside a batch in the next one', async () => {
    let inner: Promise<number> | undefined;
    await shared.run(() => {
      inner = shared.run(insert('later'));
      return insert('now')();
    });
    expect(values()).toEqual(['now']);
    await expect(inner).resolves.toBe(2);
    expect(values()).toEqual(['now', 'later']);
  });
});
