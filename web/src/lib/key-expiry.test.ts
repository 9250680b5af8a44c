import { describe, expect, it } from 'vitest';
import { describeExpiry, expiryFromChoice, isExpired } from './key-expiry';

const now = Date.parse('2030-01-01T00:00:00Z');
const at = (ms: number): string => new Date(now + ms).toISOString();
const HOUR = 3_600_000;

describe('describeExpiry', () => {
  it('says never, expired, or how long is left in the largest sensible unit', () => {
    expect(describeExpiry(null, now)).toBe('never');
    expect(describeExpiry(at(0), now)).toBe('expired');
    expect(describeExpiry(at(-1), now)).toBe('expired');
    expect(describeExpiry(at(3 * 24 * HOUR + 5), now)).toBe('expires in 3 days');
    expect(describeExpiry(at(2 * 24 * HOUR), now)).toBe('expires in 2 days');
    expect(describeExpiry(at(47 * HOUR), now)).toBe('expires in 47 hours');
    expect(describeExpiry(at(2 * HOUR), now)).toBe('expires in 2 hours');
    expect(describeExpiry(at(HOUR), now)).toBe('expires in 60 minutes');
    expect(describeExpiry(at(7 * 24 * HOUR - 2_000), now)).toBe('expires in 7 days');
    expect(describeExpiry(at(61_000), now)).toBe('expires in 2 minutes');
    expect(describeExpiry(at(5_000), now)).toBe('expires in 1 minute');
  });

  it('isExpired at and after the instant', () => {
    expect(isExpired(at(0), now)).toBe(true);
    expect(isExpired(at(1), now)).toBe(false);
    expect(isExpired(null, now)).toBe(false);
  });
});

describe('expiryFromChoice', () => {
  it('is null for never, days from now, or the end of the chosen UTC day', () => {
    expect(expiryFromChoice('never', '', now)).toBeNull();
    expect(expiryFromChoice('7', '', now)).toBe('2030-01-08T00:00:00.000Z');
    expect(expiryFromChoice('date', '2030-02-03', now)).toBe('2030-02-03T23:59:59.000Z');
  });

  it('refuses a missing or past date with a message naming the field', () => {
    expect(() => expiryFromChoice('date', '', now)).toThrow(/^Expiry: choose a date/);
    expect(() => expiryFromChoice('date', '2029-12-31', now)).toThrow(/future/);
  });
});
