// The data directory itself: created on first boot, locked for the process lifetime (one instance per
// directory), and the SSE master key (STORE_SSE_KEY, or a generated DATA_DIR/sse.key).

import { createHmac, randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import type { MetadataStore } from './db/metadata-store.js';
import { DataDirError } from './data-dir-error.js';
import { privateDatabaseFile, privateDirectory } from './private-files.js';

export { DataDirError };

/** Holds an exclusive OS lock on DATA_DIR/store.lock until released; the OS drops it if the process dies. */
export interface DataDirLock {
  release(): void;
}

/**
 * Takes the instance lock. SQLite's exclusive locking mode keeps a POSIX lock on the file for as long as the
 * connection stays open, and the kernel releases it when the process exits, even on kill -9: no stale lock files.
 * Throws DataDirError when another process holds it.
 */
export function lockDataDir(dataDir: string): DataDirLock {
  try {
    privateDirectory(dataDir);
  } catch (err) {
    throw new DataDirError(`cannot make ${dataDir} a private directory (mode 0700): ${(err as Error).message}`, {
      cause: err,
    });
  }
  const lockFile = join(dataDir, 'store.lock');
  privateDatabaseFile(lockFile);
  const lock = new BetterSqlite3(lockFile, { timeout: 0 });
  try {
    lock.pragma('locking_mode = EXCLUSIVE');
    lock.exec('BEGIN EXCLUSIVE');
  } catch (err) {
    lock.close();
    throw new DataDirError(
      `another Store process is using ${dataDir} (its store.lock is held); only one instance may use a data directory`,
      { cause: err },
    );
  }
  return {
    release() {
      if (lock.open) lock.close();
    },
  };
}

/** Reads DATA_DIR/sse.key, creating it (32 random bytes, base64, mode 0600, fsynced) when absent. */
export function loadOrCreateSseKey(dataDir: string, fromEnv: Buffer | undefined): Buffer {
  if (fromEnv) return fromEnv;
  const file = join(dataDir, 'sse.key');
  try {
    const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
    if (key.length !== 32) throw new DataDirError(`${file} is not the base64 of 32 bytes; refusing to start`);
    return key;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const key = randomBytes(32);
  const fd = openSync(file, 'wx', 0o600);
  try {
    writeSync(fd, `${key.toString('base64')}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  fsyncDir(dataDir);
  return key;
}

function fsyncDir(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Refuses a master key other than the one the data directory was first written with: a changed STORE_SSE_KEY
 * would make every stored object unreadable. The check value is an HMAC, which reveals nothing about the key.
 */
export function checkSseKeyMatches(meta: MetadataStore, key: Buffer): void {
  const check = createHmac('sha256', key).update('store sse key check v1').digest('hex');
  const stored = meta.db
    .prepare<[], { value: string }>("SELECT value FROM instance WHERE name = 'sse_key_check'")
    .get();
  if (!stored) {
    meta.db.prepare("INSERT INTO instance (name, value) VALUES ('sse_key_check', ?)").run(check);
    return;
  }
  if (stored.value !== check) {
    throw new DataDirError(
      'the SSE master key (STORE_SSE_KEY or DATA_DIR/sse.key) is not the key this data directory was written with; refusing to start',
    );
  }
}
