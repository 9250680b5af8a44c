import { describe, expect, it } from 'vitest';
import { AppError } from './errors.js';
import { isStorageFull, toClientError } from './system-errors.js';

const withCode = (code: string, message = code): Error => Object.assign(new Error(message), { code });

describe('toClientError', () => {
  it('answers a full volume (ENOSPC, EDQUOT, SQLITE_FULL) with InsufficientStorage 507, keeping the cause', () => {
    for (const code of ['ENOSPC', 'EDQUOT', 'SQLITE_FULL']) {
      const cause = withCode(code);
      const err = toClientError(cause);
      expect(err.code).toBe('InsufficientStorage');
      expect(err.statusCode).toBe(507);
      expect(err.cause).toBe(cause);
    }
  });

  it('finds the full volume in the cause chain', () => {
    expect(isStorageFull(new Error('commit failed', { cause: withCode('SQLITE_FULL') }))).toBe(true);
  });

  it('answers every other failure with InternalError 500', () => {
    for (const err of [
      new TypeError('bug'),
      withCode('EIO'),
      withCode('SQLITE_CORRUPT'),
      withCode('ENOSPCX'),
      'a string',
      undefined,
    ]) {
      expect(toClientError(err).code).toBe('InternalError');
    }
  });

  it('passes an AppError through unchanged', () => {
    const err = new AppError('NoSuchKey');
    expect(toClientError(err)).toBe(err);
    expect(isStorageFull(err)).toBe(false);
  });

  it('does not loop on a cyclic cause chain', () => {
    const a = new Error('a');
    const b = new Error('b', { cause: a });
    (a as { cause?: unknown }).cause = b;
    expect(isStorageFull(a)).toBe(false);
  });
});
