import { describe, expect, it } from 'vitest';
import {
  formatBytes,
  formatCount,
  formatDuration,
  formatPercent,
  formatRate,
  formatRelative,
  formatTime,
  parseSize,
} from './format';
import { joinSize, splitSize } from './format';

describe('formatBytes', () => {
  it('uses binary units with three significant digits', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(1023)).toBe('1023 B');
    expect(formatBytes(1024)).toBe('1 KiB');
    expect(formatBytes(1536)).toBe('1.5 KiB');
    expect(formatBytes(21 * 1024 * 1024 + 5)).toBe('21 MiB');
    expect(formatBytes(123.4 * 1024 ** 3)).toBe('123 GiB');
    expect(formatBytes(-2048)).toBe('-2 KiB');
    expect(formatBytes(Number.NaN)).toBe('–');
  });
});

describe('numbers', () => {
  it('formats counts, rates and percentages', () => {
    expect(formatCount(1234567)).toBe('1,234,567');
    expect(formatRate(0)).toBe('0');
    expect(formatRate(0.0512)).toBe('0.05');
    expect(formatRate(1234.5)).toBe('1,235');
    expect(formatPercent(0.1234)).toBe('12.3%');
    expect(formatPercent(0.00123)).toBe('0.12%');
    expect(formatPercent(1)).toBe('100%');
  });
});

describe('times', () => {
  it('writes instants in UTC and durations in two units at most', () => {
    expect(formatTime('2030-06-01T10:00:05.123Z')).toBe('2030-06-01 10:00:05 UTC');
    expect(formatTime(null)).toBe('–');
    expect(formatTime('garbage')).toBe('garbage');
    expect(formatDuration(45)).toBe('45 s');
    expect(formatDuration(185)).toBe('3 min 5 s');
    expect(formatDuration(7200)).toBe('2 h');
    expect(formatDuration(4 * 86_400 + 3 * 3600 + 59)).toBe('4 d 3 h');
    expect(formatDuration(-1)).toBe('–');
  });

  it('writes relative times both ways', () => {
    const now = Date.parse('2030-06-01T10:00:00Z');
    expect(formatRelative('2030-06-01T09:55:00Z', now)).toBe('5 min ago');
    expect(formatRelative('2030-06-01T12:00:00Z', now)).toBe('in 2 h');
    expect(formatRelative('2030-06-01T10:00:02Z', now)).toBe('just now');
  });
});

describe('parseSize', () => {
  it('reads sizes with or without units and refuses the rest', () => {
    expect(parseSize('300')).toBe(300);
    expect(parseSize('1.5 KiB')).toBe(1536);
    expect(parseSize('12M')).toBe(12 * 1024 * 1024);
    expect(parseSize('2 GB')).toBe(2 * 1024 ** 3);
    expect(parseSize('lots')).toBeUndefined();
    expect(parseSize('-1')).toBeUndefined();
  });
});

describe('size fields', () => {
  it('splits bytes into an amount and a unit, and joins them back', () => {
    expect(splitSize(10 * 1024 * 1024)).toEqual({ amount: '10', unit: 'MiB' });
    expect(splitSize(1536)).toEqual({ amount: '1.5', unit: 'KiB' });
    expect(splitSize(1000)).toEqual({ amount: '1000', unit: 'B' });
    expect(splitSize(0)).toEqual({ amount: '0', unit: 'B' });
    expect(joinSize('10', 'MiB')).toBe(10 * 1024 * 1024);
    expect(joinSize('1.5', 'GiB')).toBe(1.5 * 1024 ** 3);
    expect(joinSize('-1', 'B')).toBeUndefined();
    expect(joinSize('ten', 'B')).toBeUndefined();
  });
});
