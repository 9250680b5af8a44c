// The opaque cursor of object search: a position in (bucket, key) order, tied to the filters it was made for, with a
// check value so that a garbled, truncated or edited cursor is a 400 rather than a silently different page.

import { createHash, timingSafeEqual } from 'node:crypto';
import { AppError } from '../../core/errors.js';

export interface CursorPosition {
  bucket: string;
  key: string;
}

const VERSION = 1;
const CHECK_BYTES = 12;
/** A bucket name and a 1024-byte key, encoded: anything longer was not made by us. */
export const MAX_CURSOR_LENGTH = 8192;

/**
 * A short fingerprint of the normalised filters: a cursor is only valid for the search that made it.
 * `filters` must be plain JSON with keys in a fixed order.
 */
export function filterFingerprint(filters: unknown): string {
  return createHash('sha256').update(JSON.stringify(filters)).digest('base64url').slice(0, 11);
}

/** `<base64url(JSON [version, fingerprint, bucket, key])>.<base64url(check)>`. */
export function encodeCursor(position: CursorPosition, fingerprint: string): string {
  const body = Buffer.from(JSON.stringify([VERSION, fingerprint, position.bucket, position.key])).toString('base64url');
  return `${body}.${check(body)}`;
}

/**
 * The position a cursor names. Throws ValidationError (naming `cursor`) for anything this module did not make,
 * for a cursor whose check value does not match, and for one made for other filters. Never throws anything else.
 * The check value is a checksum, not a signature: positions are not secret, and a forged one is only a start key.
 */
export function decodeCursor(text: string, fingerprint: string): CursorPosition {
  const invalid = (why: string) => new AppError('ValidationError', { message: `cursor: ${why}` });
  const parts = text.length <= MAX_CURSOR_LENGTH ? text.split('.') : [];
  const [body, sum] = parts;
  if (parts.length !== 2 || !body || !sum || !/^[A-Za-z0-9_-]+$/.test(body) || !/^[A-Za-z0-9_-]+$/.test(sum)) {
    throw invalid('is not a cursor returned by this search');
  }
  // Compared as text: base64url decoding ignores stray trailing characters, the text does not.
  const given = Buffer.from(sum);
  const expected = Buffer.from(check(body));
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    throw invalid('is damaged (check value mismatch)');
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  } catch {
    throw invalid('is not a cursor returned by this search');
  }
  if (!Array.isArray(decoded) || decoded.length !== 4 || decoded[0] !== VERSION)
    throw invalid('has an unknown version');
  const [, madeFor, bucket, key] = decoded as unknown[];
  if (typeof bucket !== 'string' || typeof key !== 'string') throw invalid('is not a cursor returned by this search');
  if (madeFor !== fingerprint) throw invalid('was made for a search with other filters');
  return { bucket, key };
}

function check(body: string): string {
  return createHash('sha256')
    .update(`store/object-search-cursor\n${body}`)
    .digest()
    .subarray(0, CHECK_BYTES)
    .toString('base64url');
}
