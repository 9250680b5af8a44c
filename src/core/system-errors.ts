// What a client is told about a failure that is not an AppError: a full volume (the data directory's filesystem, or
// SQLite unable to grow its files on it) is InsufficientStorage, anything else InternalError. Both surfaces render
// through this, so a full disk is never a bare 500 (docs/decisions.md, "A full disk").

import { AppError, isAppError } from './errors.js';

/** ENOSPC and EDQUOT from the file system; SQLITE_FULL when SQLite cannot grow the database, WAL or shm file. */
const FULL_CODES: ReadonlySet<string> = new Set(['ENOSPC', 'EDQUOT', 'SQLITE_FULL']);

/** True when `err`, or an error in its `cause` chain, says the volume is full. */
export function isStorageFull(err: unknown): boolean {
  for (let e = err, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && FULL_CODES.has(code)) return true;
  }
  return false;
}

/**
 * The AppError to answer with: an AppError as it is; a full volume as InsufficientStorage (507: retrying does not help
 * until space is freed, so no client should retry it at once as it would a 503); anything else as InternalError
 * (500). The original error is kept as the cause, for the log.
 */
export function toClientError(err: unknown): AppError {
  if (isAppError(err)) return err;
  if (isStorageFull(err)) {
    return new AppError('InsufficientStorage', {
      message: 'The data volume is full: the change was not stored. Free space, then retry.',
      cause: err,
    });
  }
  return new AppError('InternalError', { cause: err });
}
