// The SQLite connection: one connection, WAL, full fsync on commit, and forward-only migrations.
// Every write is a synchronous transaction: never await inside one (ARCHITECTURE "Layers").

import BetterSqlite3 from 'better-sqlite3';
import { MIGRATIONS } from './migrations.js';

export type Db = BetterSqlite3.Database;

/**
 * Opens (creating if needed) the metadata database and brings its schema up to date.
 * synchronous=NORMAL: a commit is written to the WAL but not fsynced; WalSync fsyncs it (batched, off the event
 * loop) before any request that committed is answered, so "a 200 means durable" holds on power loss.
 * Checkpoints still fsync the WAL before copying it and the database after (SQLite's NORMAL rules).
 */
export function openDatabase(file: string): Db {
  const db = new BetterSqlite3(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  // Checkpoints run in the background of normal commits; a bounded WAL keeps cold starts fast.
  db.pragma('wal_autocheckpoint = 4000');
  migrate(db);
  return db;
}

/** Applies every migration newer than PRAGMA user_version, each in its own transaction. */
export function migrate(db: Db): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > MIGRATIONS.length) {
    throw new Error(
      `the data directory's schema (version ${current}) is newer than this build understands (${MIGRATIONS.length}); ` +
        'run the newer release or restore a backup',
    );
  }
  for (let version = current + 1; version <= MIGRATIONS.length; version++) {
    const sql = MIGRATIONS[version - 1] as string;
    db.transaction(() => {
      db.exec(sql);
      db.pragma(`user_version = ${version}`);
    })();
  }
}
