import { describe, expect, it } from 'vitest';
import { codeOf } from '../../../../test/helpers/error-code.js';
import { decodeCursor, encodeCursor } from './cursor.js';

describe('listing cursors', () => {
  it('round-trip keys of any characters, with and without a version', () => {
    for (const k of ['', 'a/b/', 'ünï cödé/😀?&=#%2F', '\u{10FFFF}']) {
      expect(decodeCursor(encodeCursor({ k }))).toEqual({ k, v: undefined });
      expect(decodeCursor(encodeCursor({ k, v: 'null' }))).toEqual({ k, v: 'null' });
    }
    expect(encodeCursor({ k: 'x' })).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  it('refuse anything they did not issue with ValidationError', () => {
    const b64 = (s: string) => Buffer.from(s).toString('base64url');
    for (const bad of [
      '',
      'not a cursor',
      '%%%',
      b64('{"k":1}'),
      b64('[]'),
      b64('null'),
      b64('{"k":"a","x":1}'),
      b64('{"k":"a","v":2}'),
      b64('{'),
    ]) {
      expect(
        codeOf(() => decodeCursor(bad)),
        bad,
      ).toBe('ValidationError');
    }
  });
});
