import { describe, expect, it } from 'vitest';
import { codeOf } from '../../test/helpers/error-code.js';
import {
  hasQuota,
  MAX_QUOTA_LIMIT,
  quotaBreach,
  quotaExceeded,
  validateBucketQuota,
  type BucketQuota,
} from './quota.js';
import { statusOf } from './errors.js';

describe('validateBucketQuota', () => {
  it('accepts either limit alone, both, zero and the largest exact integer', () => {
    for (const quota of [{ maxBytes: 0 }, { maxObjects: 5 }, { maxBytes: MAX_QUOTA_LIMIT, maxObjects: 1 }]) {
      expect(() => validateBucketQuota(quota)).not.toThrow();
    }
  });

  it('refuses negative, fractional and unsafe limits, unknown fields and a quota with no limit', () => {
    const bad: unknown[] = [
      {},
      { maxBytes: -1 },
      { maxObjects: 1.5 },
      { maxBytes: MAX_QUOTA_LIMIT + 1 },
      { maxBytes: '10' },
      { maxBytes: 1, extra: 2 },
      null,
      [],
    ];
    for (const quota of bad) expect(codeOf(() => validateBucketQuota(quota as BucketQuota))).toBe('ValidationError');
  });

  it('treats a quota without limits as none', () => {
    expect(hasQuota(undefined)).toBe(false);
    expect(hasQuota({})).toBe(false);
    expect(hasQuota({ maxObjects: 0 })).toBe(true);
  });
});

describe('quotaBreach', () => {
  const at = (bytes: number, objects: number) => ({ bytes, objects });

  it('allows a change that ends exactly at a limit and refuses one byte or object more', () => {
    const quota = { maxBytes: 100, maxObjects: 2 };
    expect(quotaBreach(quota, { before: at(40, 1), after: at(100, 2) })).toBeUndefined();
    expect(quotaBreach(quota, { before: at(40, 1), after: at(101, 2) })).toBe('bytes');
    expect(quotaBreach(quota, { before: at(40, 2), after: at(50, 3) })).toBe('objects');
  });

  it('lets a change that raises nothing pass in a bucket already over a lowered quota', () => {
    const quota = { maxBytes: 10, maxObjects: 1 };
    expect(quotaBreach(quota, { before: at(50, 5), after: at(40, 5) })).toBeUndefined();
    expect(quotaBreach(quota, { before: at(50, 5), after: at(51, 5) })).toBe('bytes');
  });

  it('checks only the limits that are set', () => {
    expect(quotaBreach({ maxObjects: 1 }, { before: at(0, 0), after: at(1e12, 1) })).toBeUndefined();
    expect(quotaBreach({ maxBytes: 1 }, { before: at(0, 0), after: at(1, 1e6) })).toBeUndefined();
  });
});

describe('quotaExceeded', () => {
  it('is a 403 QuotaExceeded naming the bucket and the limit', () => {
    const err = quotaExceeded('photos', 'bytes', { maxBytes: 5 });
    expect(err.code).toBe('QuotaExceeded');
    expect(statusOf('QuotaExceeded')).toBe(403);
    expect(err.details).toEqual({ BucketName: 'photos', QuotaLimit: 'bytes' });
    expect(err.message).toContain('5 bytes');
  });
});
