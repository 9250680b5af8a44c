import { describe, expect, it } from 'vitest';
import { OBJECT_SAFETY_HEADERS } from './content-safety.js';

describe('OBJECT_SAFETY_HEADERS', () => {
  it('always sandboxes and forbids sniffing: no Content-Type (malformed, passive-looking or missing) is trusted', () => {
    expect(OBJECT_SAFETY_HEADERS).toEqual({
      'X-Content-Type-Options': 'nosniff',
      'Content-Security-Policy': 'sandbox',
    });
    expect(Object.isFrozen(OBJECT_SAFETY_HEADERS)).toBe(true);
  });
});
