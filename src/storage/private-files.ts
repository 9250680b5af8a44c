// Store's files are its own: every file it creates in DATA_DIR is 0600 and every directory 0700, whatever the umask
// and whatever mode an operator gave the data directory. Files Store opens itself pass the mode to open(); SQLite
// creates its database with 0644 less the umask, and its -wal and -shm files with the database's mode, so a database
// file is made 0600 before SQLite first opens it.

import { chmodSync, closeSync, mkdirSync, openSync } from 'node:fs';

export const PRIVATE_FILE_MODE = 0o600;
export const PRIVATE_DIR_MODE = 0o700;

/**
 * Makes `file` exist as a private file before a library (SQLite) opens it, and makes an existing one private, with
 * the -wal and -shm files SQLite keeps beside a database (left by an earlier release, they may be 0644).
 */
export function privateDatabaseFile(file: string): void {
  closeSync(openSync(file, 'a', PRIVATE_FILE_MODE));
  for (const path of [file, `${file}-wal`, `${file}-shm`]) chmodIfPresent(path, PRIVATE_FILE_MODE);
}

/**
 * Creates `dir` (and its parents) as a private directory, and makes it private if it exists with a wider mode (an
 * operator's `mkdir`, a volume's default). Throws when the mode cannot be set (the directory is someone else's).
 */
export function privateDirectory(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  chmodSync(dir, PRIVATE_DIR_MODE);
}

function chmodIfPresent(path: string, mode: number): void {
  try {
    chmodSync(path, mode);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}
