// Lifecycle evaluation (core/lifecycle-eval.ts): due dates, rule matching, current expiry, incomplete uploads and
// transitions. What a rule does to each version is lifecycle-expiration.test.ts.
import { describe, expect, it } from 'vitest';
import type { LifecycleRule } from './lifecycle.js';
import {
  type LifecycleVersion,
  MIN_TRANSITION_SIZE,
  abortUploadDue,
  currentExpiry,
  lifecycleDueDate,
  ruleMatches,
  transitionDue,
  uploadAbortDate,
} from './lifecycle-eval.js';
import { d, rule, version } from '../../test/helpers/lifecycle-versions.js';

describe('lifecycleDueDate rounds up to the next midnight UTC', () => {
  it.each([
    ['AWS example: 10:30 on 1/15 plus 3 days', '2014-01-15T10:30:00Z', 3, '2014-01-19T00:00:00.000Z'],
    ['AWS troubleshooting example: 00:05 on 1/2 plus 1 day', '2014-01-02T00:05:00Z', 1, '2014-01-04T00:00:00.000Z'],
    ['AWS noncurrent example: 11:30 on 1/2 plus 5 days', '2014-01-02T11:30:00Z', 5, '2014-01-08T00:00:00.000Z'],
    ['a time exactly at midnight moves to the next one', '2014-01-15T00:00:00Z', 3, '2014-01-19T00:00:00.000Z'],
    ['one millisecond before midnight', '2014-01-15T23:59:59.999Z', 0, '2014-01-16T00:00:00.000Z'],
    ['across a year end', '2013-12-31T18:00:00Z', 1, '2014-01-02T00:00:00.000Z'],
    ['across February in a leap year', '2024-02-28T12:00:00Z', 1, '2024-03-01T00:00:00.000Z'],
    // eslint-disable-next-line max-params -- it.each passes one argument per table column
  ])('%s', (_name, start, days, due) => {
    expect(lifecycleDueDate(d(start), days).toISOString()).toBe(due);
  });
});

describe('ruleMatches', () => {
  const tagged = {
    key: 'logs/a',
    size: 500,
    tags: [
      { key: 'env', value: 'prod' },
      { key: 'team', value: 'x' },
      { key: 'extra', value: '1' },
    ],
  };
  it.each<[string, LifecycleRule, boolean]>([
    ['an empty filter matches everything', rule({}), true],
    ['a matching prefix', rule({ filter: { prefix: 'logs/' } }), true],
    ['another prefix', rule({ filter: { prefix: 'img/' } }), false],
    ['a legacy rule-level prefix', rule({ filter: undefined, prefix: 'logs' }), true],
    ['a disabled rule never matches', rule({ status: 'Disabled' }), false],
    [
      'all tags of an And present (extra tags allowed)',
      rule({
        filter: {
          tags: [
            { key: 'env', value: 'prod' },
            { key: 'team', value: 'x' },
          ],
        },
      }),
      true,
    ],
    [
      'one tag of an And missing',
      rule({
        filter: {
          tags: [
            { key: 'env', value: 'prod' },
            { key: 'team', value: 'y' },
          ],
        },
      }),
      false,
    ],
    ['a tag value differs', rule({ filter: { tags: [{ key: 'env', value: 'dev' }] } }), false],
    ['a key-only tag filter needs an empty value', rule({ filter: { tags: [{ key: 'env', value: '' }] } }), false],
    ['size greater than is exclusive (500 > 499)', rule({ filter: { objectSizeGreaterThan: 499 } }), true],
    ['size greater than is exclusive (500 > 500)', rule({ filter: { objectSizeGreaterThan: 500 } }), false],
    ['size less than is exclusive (500 < 501)', rule({ filter: { objectSizeLessThan: 501 } }), true],
    ['size less than is exclusive (500 < 500)', rule({ filter: { objectSizeLessThan: 500 } }), false],
    [
      'prefix, tag and size range together',
      rule({
        filter: {
          prefix: 'logs/',
          tags: [{ key: 'team', value: 'x' }],
          objectSizeGreaterThan: 100,
          objectSizeLessThan: 1000,
        },
      }),
      true,
    ],
    [
      'prefix, tag and size, size out',
      rule({
        filter: {
          prefix: 'logs/',
          tags: [{ key: 'team', value: 'x' }],
          objectSizeGreaterThan: 100,
          objectSizeLessThan: 400,
        },
      }),
      false,
    ],
  ])('%s', (_name, r, expected) => {
    expect(ruleMatches(r, tagged)).toBe(expected);
  });
});

describe('currentExpiry', () => {
  it('names the earliest due rule', () => {
    const rules = [
      rule({ id: 'long', expiration: { days: 30 } }),
      rule({ id: 'short', expiration: { days: 7 } }),
      rule({ id: 'other', filter: { prefix: 'x/' }, expiration: { days: 1 } }),
    ];
    expect(currentExpiry(rules, version())).toEqual({ date: d('2014-01-23T00:00:00Z'), ruleId: 'short' });
  });

  it('is undefined without an expiration for the object', () => {
    expect(currentExpiry([rule({ expiration: { expiredObjectDeleteMarker: true } })], version())).toBeUndefined();
    expect(currentExpiry([rule({ status: 'Disabled', expiration: { days: 1 } })], version())).toBeUndefined();
  });
});

describe('incomplete multipart uploads', () => {
  const rules = [
    rule({ id: 'slow', filter: { prefix: 'logs/' }, abortIncompleteMultipartUpload: { daysAfterInitiation: 7 } }),
    rule({ id: 'fast', filter: { prefix: 'logs/tmp/' }, abortIncompleteMultipartUpload: { daysAfterInitiation: 1 } }),
    rule({ id: 'off', status: 'Disabled', filter: {}, abortIncompleteMultipartUpload: { daysAfterInitiation: 1 } }),
  ];
  const initiated = d('2024-03-10T15:00:00Z');

  it('schedules by the earliest matching rule, rounded to midnight', () => {
    expect(uploadAbortDate(rules, { key: 'logs/tmp/x', initiated })).toEqual({
      date: d('2024-03-12T00:00:00Z'),
      ruleId: 'fast',
    });
    expect(uploadAbortDate(rules, { key: 'logs/x', initiated })).toEqual({
      date: d('2024-03-18T00:00:00Z'),
      ruleId: 'slow',
    });
    expect(uploadAbortDate(rules, { key: 'img/x', initiated })).toBeUndefined();
  });

  it('is due from that midnight on', () => {
    expect(abortUploadDue(rules, { key: 'logs/x', initiated }, d('2024-03-17T23:59:59Z'))).toBe(false);
    expect(abortUploadDue(rules, { key: 'logs/x', initiated }, d('2024-03-18T00:00:00Z'))).toBe(true);
    expect(abortUploadDue(rules, { key: 'img/x', initiated }, d('2030-01-01T00:00:00Z'))).toBe(false);
  });
});

describe('transitionDue', () => {
  const tiers = rule({
    transitions: [
      { days: 30, storageClass: 'STANDARD_IA' },
      { days: 60, storageClass: 'GLACIER' },
    ],
    noncurrentVersionTransitions: [{ noncurrentDays: 10, storageClass: 'DEEP_ARCHIVE', newerNoncurrentVersions: 1 }],
  });
  type Row = [string, LifecycleRule[], Partial<LifecycleVersion>, string, string | undefined];
  const rows: Row[] = [
    ['nothing due yet', [tiers], {}, '2014-02-14T00:00:00Z', undefined],
    ['STANDARD_IA due', [tiers], {}, '2014-02-15T00:00:00Z', 'STANDARD_IA'],
    ['both due: the coldest wins', [tiers], {}, '2014-03-17T00:00:00Z', 'GLACIER'],
    [
      'already in STANDARD_IA, GLACIER not yet due',
      [tiers],
      { storageClass: 'STANDARD_IA' },
      '2014-03-01T00:00:00Z',
      undefined,
    ],
    ['already in GLACIER', [tiers], { storageClass: 'GLACIER' }, '2015-01-01T00:00:00Z', undefined],
    ['a delete marker never moves', [tiers], { isDeleteMarker: true, size: 0 }, '2015-01-01T00:00:00Z', undefined],
    [
      'an object under 128 KiB stays without a size filter',
      [tiers],
      { size: MIN_TRANSITION_SIZE - 1 },
      '2015-01-01T00:00:00Z',
      undefined,
    ],
    [
      'a small object moves when the rule filters by size',
      [rule({ filter: { objectSizeGreaterThan: 0 }, transitions: [{ days: 0, storageClass: 'GLACIER' }] })],
      { size: 10 },
      '2014-01-16T00:00:00Z',
      'GLACIER',
    ],
    ['a disabled rule is ignored', [{ ...tiers, status: 'Disabled' }], {}, '2015-01-01T00:00:00Z', undefined],
    [
      'a date transition',
      [rule({ transitions: [{ date: '2014-06-01T00:00:00.000Z', storageClass: 'DEEP_ARCHIVE' }] })],
      {},
      '2014-06-01T00:00:00Z',
      'DEEP_ARCHIVE',
    ],
    [
      'noncurrent: enough newer versions and days',
      [tiers],
      { isLatest: false, noncurrentSince: d('2014-01-20T08:00:00Z'), newerNoncurrentCount: 1 },
      '2014-01-31T00:00:00Z',
      'DEEP_ARCHIVE',
    ],
    [
      'noncurrent: too few newer versions',
      [tiers],
      { isLatest: false, noncurrentSince: d('2014-01-20T08:00:00Z'), newerNoncurrentCount: 0 },
      '2015-01-01T00:00:00Z',
      undefined,
    ],
    [
      'noncurrent versions ignore current-version transitions',
      [rule({ transitions: [{ days: 0, storageClass: 'GLACIER' }] })],
      { isLatest: false, noncurrentSince: d('2014-01-20T08:00:00Z') },
      '2015-01-01T00:00:00Z',
      undefined,
    ],
  ];
  // eslint-disable-next-line max-params -- it.each passes one argument per table column
  it.each(rows)('%s', (_name, rules, over, now, expected) => {
    expect(transitionDue(rules, version(over), d(now))).toBe(expected);
  });
});
