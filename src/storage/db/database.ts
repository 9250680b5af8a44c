// The SQLite connection: one connection, WAL, full fsync on commit, and forward-only migrations.
// Every write is a synchronous transaction: never await inside one (ARCHITECTURE "Layers").

import BetterSqlite3 from 'better-sqlite3';
import { DataDirError } from '../data-dir-error.js';
import { privateDatabaseFile } from '../private-files.js';
import { MIGRATIONS } from './migrations.js';

export type Db = BetterSqlite3.Database;

type Runner = BetterSqlite3.Transaction<(fn: () => unknown) => unknown>;
const runners = new WeakMap<Db, Runner>();

/**
 * Runs `fn` in a transaction: BEGIN (IMMEDIATE when asked: the writer lock is taken up front) ... COMMIT, rolled back
 * if fn throws; inside another transaction, in a savepoint of its own. Never pass async code. better-sqlite3's
 * `db.transaction(fn)` builds four wrapper functions and defines their properties on every call, about 10 µs, more than
 * a small write costs (docs/performance.md, "the write path's SQLite work"); this builds one set per connection and
 * reuses it.
 */
export function runTransaction<T>(db: Db, fn: () => T, mode: 'deferred' | 'immediate' = 'deferred'): T {
  let runner = runners.get(db);
  if (runner === undefined) {
    runner = db.transaction((body: () => unknown) => body());
    runners.set(db, runner);
  }
  return (mode === 'immediate' ? runner.immediate(fn) : runner.deferred(fn)) as T;
}

/** The schema version a database had when opened and the one it has now (equal when nothing was migrated). */
export interface SchemaVersions {
  from: number;
  to: number;
}

/**
 * Opens (creating if needed) the metadata database and brings its schema up to date.
 * synchronous=NORMAL: a commit is written to the WAL but not fsynced; WalSync fsyncs it (batched, off the event
 * loop) before any request that committed is answered, so "a 200 means durable" holds on power loss.
 * Checkpoints still fsync the WAL before copying it and the database after (SQLite's NORMAL rules).
 */
export function openDatabase(file: string): { db: Db; schema: SchemaVersions } {
  privateDatabaseFile(file);
  const db = new BetterSqlite3(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  // Checkpoints run in the background of normal commits; a bounded WAL keeps cold starts fast.
  db.pragma('wal_autocheckpoint = 4000');
  try {
    return { db, schema: migrate(db, file) };
  } catch (err) {
    db.close();
    throw err;
  }
}

/**
 * Applies every migration newer than PRAGMA user_version, each in its own transaction. Forward only: a database from
 * a newer release (user_version above the last migration here) is refused with DataDirError and left untouched,
 * because this build would misread tables it does not know.
 */
export function migrate(db: Db, file = 'the metadata database'): SchemaVersions {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > MIGRATIONS.length) {
    throw new DataDirError(
      `${file} has schema version ${current}, newer than this build's ${MIGRATIONS.length}: a newer release of Store wrote it. ` +
        'Migrations only go forward; run that release (or a later one), or restore a backup taken with this one',
    );
  }
  for (let version = current + 1; version <= MIGRATIONS.length; version++) {
    const sql = MIGRATIONS[version - 1] as string;
    runTransaction(db, () => {
      db.exec(sql);
      db.pragma(`user_version = ${version}`);
    });
  }
  return { from: current, to: MIGRATIONS.length };
}
