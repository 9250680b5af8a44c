import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
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

/**
 * Counts the transactions begun while one is open (better-sqlite3 runs those as savepoints). Must be called before the
 * connection's first transaction: runTransaction builds its wrappers once per connection, through db.transaction.
 */
function countSavepoints(): () => number {
  let nested = 0;
  const original = db.transaction.bind(db);
  vi.spyOn(db, 'transaction').mockImplementation((fn) => {
    const runner = original(fn);
    const counted =
      (mode: 'immediate' | 'deferred') =>
      (...args: unknown[]): unknown => {
        if (db.inTransaction) nested++;
        return (runner[mode] as (...a: unknown[]) => unknown)(...args);
      };
    // runTransaction calls only these two.
    return { immediate: counted('immediate'), deferred: counted('deferred') } as unknown as typeof runner;
  });
  return () => nested;
}

describe('shared transactions (group commit at the SQLite level)', () => {
  it('runs the writes queued in one turn in one transaction, each resolving with its own result', async () => {
    const seenInTransaction: boolean[] = [];
    const results = await Promise.all(
      ['a', 'b', 'c'].map((v) =>
        shared.run(() => {
          seenInTransaction.push(db.inTransaction);
          return insert(v)();
        }),
      ),
    );
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
    for (const o of outcomes)
      expect((o as PromiseRejectedResult).reason).toEqual(new Error('database or disk is full'));
    // Nothing of the batch holds, and nothing after it ran outside a transaction.
    expect(values()).toEqual([]);
    expect(db.inTransaction).toBe(false);
    // The next batch works.
    await shared.run(insert('d'));
    expect(values()).toEqual(['d']);
  });

  it('runs a batch in which no write throws once, without a savepoint per write', async () => {
    const savepoints = countSavepoints();
    const runs: string[] = [];
    const results = await Promise.all(
      ['a', 'b', 'c'].map((v) =>
        shared.run(() => {
          runs.push(v);
          return insert(v)();
        }),
      ),
    );
    expect(results).toEqual([1, 2, 3]);
    expect(runs).toEqual(['a', 'b', 'c']);
    expect(savepoints()).toBe(0);
    expect(values()).toEqual(['a', 'b', 'c']);
  });

  it('when a write throws, rolls the batch back and runs every write again, each in a savepoint', async () => {
    const savepoints = countSavepoints();
    const runs: string[] = [];
    const write = (v: string, fail = false) =>
      shared.run(() => {
        runs.push(v);
        insert(v)();
        if (fail) throw new Error(`${v} refused`);
        return v;
      });
    const outcomes = await Promise.allSettled([write('a'), write('b', true), write('c')]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    // The first run stopped at the write that threw; the second ran all three.
    expect(runs).toEqual(['a', 'b', 'a', 'b', 'c']);
    expect(savepoints()).toBe(3);
    expect(values()).toEqual(['a', 'c']);
  });

  it("runs a batch of one that throws once: its rollback is the whole transaction's", async () => {
    const savepoints = countSavepoints();
    let runs = 0;
    await expect(
      shared.run(() => {
        runs++;
        insert('x')();
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    expect(runs).toBe(1);
    expect(savepoints()).toBe(0);
    expect(values()).toEqual([]);
    expect(db.inTransaction).toBe(false);
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
