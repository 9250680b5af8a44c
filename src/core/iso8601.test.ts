import { describe, expect, it } from 'vitest';
import { isMidnightUtc, parseIso8601, startOfUtcDay } from './iso8601.js';

describe('parseIso8601', () => {
  it.each([
    ['2030-01-02', '2030-01-02T00:00:00.000Z'],
    ['2030-01-02T03:04:05Z', '2030-01-02T03:04:05.000Z'],
    ['2030-01-02T03:04:05.123Z', '2030-01-02T03:04:05.123Z'],
    ['2030-01-02T03:04:05.123456789Z', '2030-01-02T03:04:05.123Z'],
    ['2030-01-02T03:04:05', '2030-01-02T03:04:05.000Z'],
    ['2030-01-02T03:04Z', '2030-01-02T03:04:00.000Z'],
    ['2030-01-02T03:04:05+02:00', '2030-01-02T01:04:05.000Z'],
    ['2030-01-02T03:04:05-0130', '2030-01-02T04:34:05.000Z'],
    ['2030-01-02T23:00:00-02', '2030-01-03T01:00:00.000Z'],
    ['2024-02-29T00:00:00z', '2024-02-29T00:00:00.000Z'],
    [' 2030-01-02T00:00:00Z\n', '2030-01-02T00:00:00.000Z'],
  ])('reads %j', (text, iso) => {
    expect(parseIso8601(text)?.toISOString()).toBe(iso);
  });

  it.each([
    'Fri, 01 Jan 2016 00:00:00 GMT',
    '2030-13-01',
    '2030-02-30',
    '2023-02-29',
    '2030-01-02T24:00:00Z',
    '2030-01-02T10:60:00Z',
    '2030-01-02T10:00:61Z',
    '2030-01-02 10:00:00Z',
    '20300102',
    '1700000000',
    '0099-01-01',
    '2030-01-02T03:04:05+25:00',
    '',
    'abc',
  ])('refuses %j', (text) => {
    expect(parseIso8601(text)).toBeUndefined();
  });
});

describe('UTC days', () => {
  it('knows midnight', () => {
    expect(isMidnightUtc(new Date('2030-01-02T00:00:00.000Z'))).toBe(true);
    expect(isMidnightUtc(new Date('2030-01-02T00:00:00.001Z'))).toBe(false);
    expect(isMidnightUtc(new Date('2030-01-01T23:59:59.999Z'))).toBe(false);
  });

  it('finds the start of the day, also before 1970', () => {
    expect(startOfUtcDay(new Date('2030-01-02T13:14:15.678Z')).toISOString()).toBe('2030-01-02T00:00:00.000Z');
    expect(startOfUtcDay(new Date('1960-05-06T07:08:09Z')).toISOString()).toBe('1960-05-06T00:00:00.000Z');
  });
});
