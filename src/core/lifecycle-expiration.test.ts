// Lifecycle evaluation (core/lifecycle-eval.ts): expirationAction, what a rule does to each version.
import { describe, expect, it } from 'vitest';
import type { LifecycleRule } from './lifecycle.js';
import { type LifecycleVersion, expirationAction } from './lifecycle-eval.js';
import { d, rule, version } from '../../test/helpers/lifecycle-versions.js';

describe('expirationAction', () => {
  const byDays = rule({ expiration: { days: 3 } });
  type Row = [string, LifecycleRule[], Partial<LifecycleVersion>, string, string | undefined];
  const rows: Row[] = [
    ['current version, the last moment before the due midnight', [byDays], {}, '2014-01-18T23:59:59.999Z', undefined],
    ['current version, at the due midnight', [byDays], {}, '2014-01-19T00:00:00Z', 'expire-current'],
    [
      'a disabled rule is ignored',
      [rule({ status: 'Disabled', expiration: { days: 3 } })],
      {},
      '2020-01-01T00:00:00Z',
      undefined,
    ],
    [
      'a rule for another prefix is ignored',
      [rule({ filter: { prefix: 'img/' }, expiration: { days: 1 } })],
      {},
      '2020-01-01T00:00:00Z',
      undefined,
    ],
    [
      'a later rule applies when an earlier one is not due',
      [rule({ id: 'a', expiration: { days: 100 } }), rule({ id: 'b', expiration: { days: 1 } })],
      {},
      '2014-01-17T00:00:00Z',
      'expire-current',
    ],
    [
      'a date before the object was written still expires it',
      [rule({ expiration: { date: '2010-01-01T00:00:00.000Z' } })],
      {},
      '2014-01-15T10:31:00Z',
      'expire-current',
    ],
    [
      'a date not reached yet',
      [rule({ expiration: { date: '2030-01-01T00:00:00.000Z' } })],
      {},
      '2029-12-31T23:59:59Z',
      undefined,
    ],
    [
      'a date reached',
      [rule({ expiration: { date: '2030-01-01T00:00:00.000Z' } })],
      {},
      '2030-01-01T00:00:00Z',
      'expire-current',
    ],
    [
      'a tag rule for an object with the tag',
      [rule({ filter: { tags: [{ key: 'tmp', value: '1' }] }, expiration: { days: 1 } })],
      { tags: [{ key: 'tmp', value: '1' }] },
      '2014-02-01T00:00:00Z',
      'expire-current',
    ],
    [
      'a tag rule for an object without it',
      [rule({ filter: { tags: [{ key: 'tmp', value: '1' }] }, expiration: { days: 1 } })],
      {},
      '2014-02-01T00:00:00Z',
      undefined,
    ],
    [
      'a size rule for a small object',
      [rule({ filter: { objectSizeLessThan: 10 }, expiration: { days: 1 } })],
      { size: 9 },
      '2014-02-01T00:00:00Z',
      'expire-current',
    ],
    [
      'a size rule for a large object',
      [rule({ filter: { objectSizeLessThan: 10 }, expiration: { days: 1 } })],
      { size: 10 },
      '2014-02-01T00:00:00Z',
      undefined,
    ],
    [
      'Expiration does not touch noncurrent versions',
      [byDays],
      { isLatest: false, noncurrentSince: d('2014-01-16T00:00:00Z') },
      '2020-01-01T00:00:00Z',
      undefined,
    ],
    [
      'noncurrent: days not yet passed',
      [rule({ noncurrentVersionExpiration: { noncurrentDays: 5 } })],
      { isLatest: false, noncurrentSince: d('2014-01-02T11:30:00Z') },
      '2014-01-07T23:59:59Z',
      undefined,
    ],
    [
      'noncurrent: days passed',
      [rule({ noncurrentVersionExpiration: { noncurrentDays: 5 } })],
      { isLatest: false, noncurrentSince: d('2014-01-02T11:30:00Z') },
      '2014-01-08T00:00:00Z',
      'delete-noncurrent',
    ],
    [
      'noncurrent: days count from becoming noncurrent, not from creation',
      [rule({ noncurrentVersionExpiration: { noncurrentDays: 5 } })],
      { isLatest: false, lastModified: d('2013-01-01T00:00:00Z'), noncurrentSince: d('2014-01-02T11:30:00Z') },
      '2014-01-05T00:00:00Z',
      undefined,
    ],
    [
      'noncurrent: without a noncurrent time nothing is due',
      [rule({ noncurrentVersionExpiration: { noncurrentDays: 1 } })],
      { isLatest: false },
      '2020-01-01T00:00:00Z',
      undefined,
    ],
    [
      'NewerNoncurrentVersions 2 with 1 newer: kept',
      [rule({ noncurrentVersionExpiration: { noncurrentDays: 1, newerNoncurrentVersions: 2 } })],
      { isLatest: false, noncurrentSince: d('2014-01-02T00:00:00Z'), newerNoncurrentCount: 1 },
      '2015-01-01T00:00:00Z',
      undefined,
    ],
    [
      'NewerNoncurrentVersions 2 with 2 newer: deleted',
      [rule({ noncurrentVersionExpiration: { noncurrentDays: 1, newerNoncurrentVersions: 2 } })],
      { isLatest: false, noncurrentSince: d('2014-01-02T00:00:00Z'), newerNoncurrentCount: 2 },
      '2015-01-01T00:00:00Z',
      'delete-noncurrent',
    ],
    [
      'NewerNoncurrentVersions met but days not yet',
      [rule({ noncurrentVersionExpiration: { noncurrentDays: 10, newerNoncurrentVersions: 1 } })],
      { isLatest: false, noncurrentSince: d('2014-01-02T00:00:00Z'), newerNoncurrentCount: 5 },
      '2014-01-05T00:00:00Z',
      undefined,
    ],
    [
      'a noncurrent delete marker goes like a noncurrent version',
      [rule({ noncurrentVersionExpiration: { noncurrentDays: 1 } })],
      { isLatest: false, isDeleteMarker: true, size: 0, noncurrentSince: d('2014-01-02T00:00:00Z') },
      '2014-01-04T00:00:00Z',
      'delete-noncurrent',
    ],
    [
      'expired delete marker, the only version left',
      [rule({ expiration: { expiredObjectDeleteMarker: true } })],
      { isDeleteMarker: true, size: 0, isOnlyVersion: true },
      '2014-01-15T10:31:00Z',
      'remove-expired-delete-marker',
    ],
    [
      'expired delete marker with versions under it',
      [rule({ expiration: { expiredObjectDeleteMarker: true } })],
      { isDeleteMarker: true, size: 0, isOnlyVersion: false },
      '2020-01-01T00:00:00Z',
      undefined,
    ],
    [
      'ExpiredObjectDeleteMarker false does nothing',
      [rule({ expiration: { expiredObjectDeleteMarker: false } })],
      { isDeleteMarker: true, size: 0, isOnlyVersion: true },
      '2020-01-01T00:00:00Z',
      undefined,
    ],
    [
      'a lone delete marker old enough for Expiration Days',
      [byDays],
      { isDeleteMarker: true, size: 0, isOnlyVersion: true },
      '2014-01-19T00:00:00Z',
      'remove-expired-delete-marker',
    ],
    [
      'a lone delete marker not yet old enough',
      [byDays],
      { isDeleteMarker: true, size: 0, isOnlyVersion: true },
      '2014-01-18T00:00:00Z',
      undefined,
    ],
    [
      'a current delete marker is never expired by a Date',
      [rule({ expiration: { date: '2010-01-01T00:00:00.000Z' } })],
      { isDeleteMarker: true, size: 0, isOnlyVersion: true },
      '2020-01-01T00:00:00Z',
      undefined,
    ],
    [
      'a delete marker has no tags for a tag rule',
      [rule({ filter: { tags: [{ key: 'a', value: 'b' }] }, expiration: { days: 1 } })],
      { isDeleteMarker: true, size: 0, isOnlyVersion: true },
      '2020-01-01T00:00:00Z',
      undefined,
    ],
  ];
  // eslint-disable-next-line max-params -- it.each passes one argument per table column
  it.each(rows)('%s', (_name, rules, over, now, expected) => {
    expect(expirationAction(rules, version(over), d(now))).toBe(expected);
  });
});
