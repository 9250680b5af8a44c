// Group commit at the SQLite level: writes queued during one turn of the event loop run in one transaction. A commit's
// fixed cost (BEGIN and COMMIT, and above all writing every page it touched to the WAL) is then paid once per batch:
// concurrent small PUTs touch many of the same table and index pages, which a batch writes once instead of once per
// write (docs/decisions.md, "Shared transactions").
//
// What a caller sees does not change: a write that throws rolls back alone and fails alone; the promise settles after
// the batch's COMMIT, and durability is still `MetadataStore.durable()`. How: the batch first runs without savepoints
// (each would make SQLite copy every page its write touches into the statement journal). If a write throws, the whole
// batch is rolled back and runs again with a savepoint per write. So a queued function may run twice, the first run's
// writes undone: it must do nothing but read and write through this connection (and harmless things, like waking a
// worker), and never queue another shared write.

import { runTransaction, type Db } from './database.js';

interface Queued {
  fn: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

export class SharedTransactions {
  private queued: Queued[] = [];
  private scheduled = false;

  constructor(private readonly db: Db) {}

  /** Runs `fn` (synchronous) in the next shared transaction; resolves with its result once that has committed. */
  run<T>(fn: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queued.push({ fn, resolve: resolve as (value: unknown) => void, reject });
      if (this.scheduled) return;
      this.scheduled = true;
      // setImmediate, not a microtask: requests whose bodies completed in the same poll phase join one batch.
      setImmediate(() => this.flush());
    });
  }

  /** Commits what is queued now (the shutdown path calls this before closing the connection). */
  flush(): void {
    const batch = this.queued;
    this.queued = [];
    this.scheduled = false;
    if (batch.length === 0) return;
    let outcomes: Outcome[];
    try {
      outcomes = this.runTogether(batch) ?? this.runInSavepoints(batch);
    } catch (error) {
      for (const item of batch) item.reject(error);
      return;
    }
    batch.forEach((item, i) => {
      const outcome = outcomes[i] as Outcome;
      if (outcome.ok) item.resolve(outcome.value);
      else item.reject(outcome.error);
    });
  }

  /**
   * The common case, no write throwing: one transaction, no savepoints. Undefined when a write threw (everything is
   * then rolled back, for runInSavepoints). A batch of one needs no second run: its rollback is the whole
   * transaction's.
   * Throws, as runInSavepoints does, when BEGIN, COMMIT or the transaction itself failed.
   */
  private runTogether(batch: readonly Queued[]): Outcome[] | undefined {
    const outcomes: Outcome[] = [];
    let writeThrew = false;
    try {
      runTransaction(
        this.db,
        () => {
          for (const item of batch) {
            try {
              outcomes.push({ ok: true, value: item.fn() });
            } catch (error) {
              // Unless SQLite has ended the transaction itself (a full disk, an I/O error: then every write fails).
              writeThrew = this.db.inTransaction;
              throw error;
            }
          }
        },
        'immediate',
      );
      return outcomes;
    } catch (error) {
      if (!writeThrew) throw error;
      return batch.length === 1 ? [{ ok: false, error }] : undefined;
    }
  }

  /** Each write in a savepoint of its own. Throws when the transaction fails as a whole (every write then fails). */
  private runInSavepoints(batch: readonly Queued[]): Outcome[] {
    const outcomes: Outcome[] = [];
    runTransaction(
      this.db,
      () => {
        for (const item of batch) {
          try {
            // Nested: better-sqlite3 runs it in a savepoint and rolls back to it if it throws.
            outcomes.push({ ok: true, value: runTransaction(this.db, item.fn) });
          } catch (error) {
            // After some errors (a full disk, an I/O error) SQLite has already ended the whole transaction: then
            // nothing of the batch holds, and every write in it fails with that error.
            if (!this.db.inTransaction) throw error;
            outcomes.push({ ok: false, error });
          }
        }
      },
      'immediate',
    );
    return outcomes;
  }
}
