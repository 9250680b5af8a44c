// Opaque continuation cursors of the admin listings: where the next page starts, as base64url JSON. Clients pass
// them back untouched; anything this API did not issue is a ValidationError naming `cursor`.

import { AppError } from '../../../core/errors.js';

/**
 * Where a listing continues: after key `k` (a key or a common prefix), or, in a version listing, after version `v` of
 * it.
 */
export interface ListCursor {
  k: string;
  v?: string | undefined;
}

export function encodeCursor(cursor: ListCursor): string {
  return Buffer.from(
    JSON.stringify(cursor.v === undefined ? { k: cursor.k } : { k: cursor.k, v: cursor.v }),
    'utf8',
  ).toString('base64url');
}

/** Reads a cursor back. Throws AppError ValidationError ("cursor: ...") for anything encodeCursor did not make. */
export function decodeCursor(text: string): ListCursor {
  let parsed: unknown;
  try {
    if (!/^[A-Za-z0-9_-]+$/.test(text)) throw new Error('not base64url');
    parsed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    parsed = undefined;
  }
  const candidate = parsed as Partial<Record<string, unknown>> | undefined;
  const valid =
    typeof candidate === 'object' &&
    candidate !== null &&
    typeof candidate['k'] === 'string' &&
    (candidate['v'] === undefined || typeof candidate['v'] === 'string') &&
    Object.keys(candidate).every((name) => name === 'k' || name === 'v');
  if (!valid)
    throw new AppError('ValidationError', {
      message: 'cursor: not a cursor this API issued; pass nextCursor back unchanged',
    });
  return { k: candidate['k'] as string, v: candidate['v'] as string | undefined };
}
