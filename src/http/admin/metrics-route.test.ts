// The metrics token check: exact match only, compared on fixed-length digests (timingSafeEqual never sees the
// client's length), and only as a Bearer credential.

import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { bearerMatches } from './metrics-route.js';

const token = 'q3XbT9vKp2LmZ8rW4sYc7nJd1hGf6aEu0oQiVxBtNk5';
const digest = createHash('sha256').update(token).digest();

describe('bearerMatches', () => {
  it.each([`Bearer ${token}`, `bearer ${token}`, `BEARER ${token}`, `Bearer  ${token}`, `Bearer ${token} `])(
    'accepts %j',
    (header) => {
      expect(bearerMatches(header, digest)).toBe(true);
    },
  );

  it.each([
    ['no header', undefined],
    ['an empty header', ''],
    ['no scheme', token],
    ['another scheme', `Basic ${token}`],
    ['an empty bearer', 'Bearer '],
    ['a prefix of the token', `Bearer ${token.slice(0, -1)}`],
    ['the token plus a character', `Bearer ${token}x`],
    ['one character changed (same length)', `Bearer ${token.slice(0, -1)}6`],
    ['a different case', `Bearer ${token.toUpperCase()}`],
    ['two tokens', `Bearer ${token} ${token}`],
    ['a much longer value', `Bearer ${token.repeat(100)}`],
  ])('refuses %s', (_label, header) => {
    expect(bearerMatches(header, digest)).toBe(false);
  });
});
