// The error code a call throws: the S3/admin code of an AppError, or a marker that cannot equal any code.

import { AppError } from '../../src/core/errors.js';

/** Runs fn and returns the code of the AppError it throws, undefined if it returns, or a non-code marker otherwise. */
export function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    return err instanceof AppError ? err.code : `not-an-AppError: ${String(err)}`;
  }
  return undefined;
}
