// Group commit at the SQLite level: writes queued during one turn of the event loop run in one transaction, each
// in its own savepoint. A commit's fixed cost (BEGIN and COMMIT, and above all writing every page it touched to the
// WAL) is then paid once per batch: concurrent small PUTs touch many of the same table and index pages, which a
// batch writes once instead of once per write (docs/decisions.md, "Shared transactions").
//
// What a caller sees does not change: its function runs alone in a savepoint, so one that throws rolls back alone and
// fails alone; the promise settles after the batch's COMMIT, and durability is still `MetadataStore.durable()`.

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
    const outcomes: Outcome[] = [];
    try {
      runTransaction(this.db, () => {
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
      }, 'immediate');
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
}
