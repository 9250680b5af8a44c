import { describe, expect, it } from 'vitest';
import type { LifecycleRule } from '../core/lifecycle.js';
import { prefixRanges } from './lifecycle-service.js';

const withPrefixes = (...prefixes: (string | undefined)[]): LifecycleRule[] =>
  prefixes.map((p, i) =>
    p === undefined
      ? { id: `r${i}`, status: 'Enabled', filter: {}, expiration: { days: 1 } }
      : { id: `r${i}`, status: 'Enabled', filter: { prefix: p }, expiration: { days: 1 } },
  );

describe('prefixRanges', () => {
  it('is the whole bucket when any rule has no prefix', () => {
    expect(prefixRanges(withPrefixes('a/', undefined, 'b/'))).toEqual(['']);
  });

  it('drops prefixes covered by a shorter one and duplicates, so no key is visited twice', () => {
    expect(prefixRanges(withPrefixes('logs/2024/', 'logs/', 'tmp/', 'logs/', 'tmpx'))).toEqual([
      'logs/',
      'tmp/',
      'tmpx',
    ]);
  });

  it('orders ranges by UTF-8 bytes, the order SQLite and S3 list keys in', () => {
    // JavaScript's default sort (UTF-16 units) puts U+1F600 (surrogate 0xD83D) before U+FF5E; UTF-8 bytes put it after.
    expect(prefixRanges(withPrefixes('😀', '～', 'a'))).toEqual(['a', '～', '😀']);
  });

  it('reads the deprecated rule-level Prefix as well', () => {
    expect(prefixRanges([{ id: 'v1', status: 'Enabled', prefix: 'old/', expiration: { days: 1 } }])).toEqual(['old/']);
  });
});
