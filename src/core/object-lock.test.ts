import { describe, expect, it } from 'vitest';
import { AppError } from './errors.js';
import {
  LOCKED_MESSAGE,
  type LegalHoldStatus,
  type ObjectLockConfiguration,
  type ObjectRetention,
  canChangeRetention,
  canDeleteVersion,
  checkObjectLockEnabled,
  defaultRetentionFor,
  isRetentionActive,
  parseObjectLockHeaders,
  validateLegalHold,
  validateObjectLockBucketState,
  validateObjectLockConfiguration,
  validateRetention,
} from './object-lock.js';

function thrown(fn: () => unknown): AppError | undefined {
  try {
    fn();
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  return undefined;
}
const codeOf = (fn: () => unknown): string | undefined => thrown(fn)?.code;

const NOW = new Date('2030-06-15T12:00:00.000Z');
const FUTURE = '2030-07-01T00:00:00.000Z';
const LATER = '2030-08-01T00:00:00.000Z';
const PAST = '2030-06-01T00:00:00.000Z';
const gov = (until: string): ObjectRetention => ({ mode: 'GOVERNANCE', retainUntilDate: until });
const comp = (until: string): ObjectRetention => ({ mode: 'COMPLIANCE', retainUntilDate: until });

describe('validateObjectLockConfiguration', () => {
  it.each([
    ['lock alone', { enabled: true }],
    ['a default of days', { enabled: true, defaultRetention: { mode: 'GOVERNANCE', days: 1 } }],
    ['a default of years', { enabled: true, defaultRetention: { mode: 'COMPLIANCE', years: 100 } }],
    ['the longest default in days', { enabled: true, defaultRetention: { mode: 'COMPLIANCE', days: 36500 } }],
  ])('accepts %s', (_name, config) => {
    expect(codeOf(() => validateObjectLockConfiguration(config as ObjectLockConfiguration))).toBeUndefined();
  });

  it.each([
    ['lock not enabled', { enabled: false }, 'MalformedXML'],
    ['an unknown mode', { enabled: true, defaultRetention: { mode: 'governance', days: 1 } }, 'MalformedXML'],
    ['days and years', { enabled: true, defaultRetention: { mode: 'GOVERNANCE', days: 1, years: 1 } }, 'MalformedXML'],
    ['neither days nor years', { enabled: true, defaultRetention: { mode: 'GOVERNANCE' } }, 'MalformedXML'],
    ['zero days', { enabled: true, defaultRetention: { mode: 'GOVERNANCE', days: 0 } }, 'InvalidArgument'],
    ['negative years', { enabled: true, defaultRetention: { mode: 'GOVERNANCE', years: -1 } }, 'InvalidArgument'],
    ['fractional days', { enabled: true, defaultRetention: { mode: 'GOVERNANCE', days: 1.5 } }, 'InvalidArgument'],
    ['too many days', { enabled: true, defaultRetention: { mode: 'GOVERNANCE', days: 36501 } }, 'InvalidArgument'],
    ['too many years', { enabled: true, defaultRetention: { mode: 'COMPLIANCE', years: 101 } }, 'InvalidArgument'],
  ])('refuses %s', (_name, config, code) => {
    expect(codeOf(() => validateObjectLockConfiguration(config as unknown as ObjectLockConfiguration))).toBe(code);
  });

  it('names the argument for a bad period', () => {
    const err = thrown(() =>
      validateObjectLockConfiguration({ enabled: true, defaultRetention: { mode: 'GOVERNANCE', years: 0 } }),
    );
    expect(err?.details).toEqual({ ArgumentName: 'Years' });
  });

  it('needs versioning Enabled on the bucket (InvalidBucketState)', () => {
    expect(codeOf(() => validateObjectLockBucketState('Enabled'))).toBeUndefined();
    expect(codeOf(() => validateObjectLockBucketState('Suspended'))).toBe('InvalidBucketState');
    expect(codeOf(() => validateObjectLockBucketState('Unversioned'))).toBe('InvalidBucketState');
  });
});

describe('validateRetention and validateLegalHold', () => {
  it('accepts a future date in either mode', () => {
    expect(codeOf(() => validateRetention(gov(FUTURE), NOW))).toBeUndefined();
    expect(codeOf(() => validateRetention(comp(FUTURE), NOW))).toBeUndefined();
  });

  it('refuses a date not after now with InvalidArgument, as S3 answers', () => {
    expect(codeOf(() => validateRetention(gov(PAST), NOW))).toBe('InvalidArgument');
    expect(codeOf(() => validateRetention(gov(NOW.toISOString()), NOW))).toBe('InvalidArgument');
    expect(() => validateRetention(gov(PAST), NOW)).toThrow('The retain until date must be in the future!');
  });

  it('refuses a bad mode or date with MalformedXML', () => {
    expect(
      codeOf(() =>
        validateRetention({ mode: 'governance', retainUntilDate: FUTURE } as unknown as ObjectRetention, NOW),
      ),
    ).toBe('MalformedXML');
    expect(codeOf(() => validateRetention(gov('next week'), NOW))).toBe('MalformedXML');
  });

  it('accepts ON and OFF only', () => {
    expect(codeOf(() => validateLegalHold('ON'))).toBeUndefined();
    expect(codeOf(() => validateLegalHold('OFF'))).toBeUndefined();
    expect(codeOf(() => validateLegalHold('on' as LegalHoldStatus))).toBe('MalformedXML');
  });
});

describe('defaultRetentionFor', () => {
  it('adds days to now', () => {
    const config: ObjectLockConfiguration = { enabled: true, defaultRetention: { mode: 'GOVERNANCE', days: 3 } };
    expect(defaultRetentionFor(config, NOW)).toEqual({
      mode: 'GOVERNANCE',
      retainUntilDate: '2030-06-18T12:00:00.000Z',
    });
  });

  it('counts a year as 365 days', () => {
    const config: ObjectLockConfiguration = { enabled: true, defaultRetention: { mode: 'COMPLIANCE', years: 2 } };
    expect(defaultRetentionFor(config, NOW)?.retainUntilDate).toBe('2032-06-14T12:00:00.000Z');
  });

  it('gives nothing without a default rule or a configuration', () => {
    expect(defaultRetentionFor({ enabled: true }, NOW)).toBeUndefined();
    expect(defaultRetentionFor(undefined, NOW)).toBeUndefined();
  });
});

describe('canDeleteVersion', () => {
  type Row = [string, ObjectRetention | undefined, LegalHoldStatus | undefined, boolean, boolean];
  const rows: Row[] = [
    ['no lock at all', undefined, undefined, false, true],
    ['legal hold OFF', undefined, 'OFF', false, true],
    ['legal hold ON', undefined, 'ON', false, false],
    ['legal hold ON, bypass does not help', undefined, 'ON', true, false],
    ['expired COMPLIANCE', comp(PAST), undefined, false, true],
    ['expired GOVERNANCE under legal hold', gov(PAST), 'ON', true, false],
    ['active GOVERNANCE', gov(FUTURE), undefined, false, false],
    ['active GOVERNANCE with bypass', gov(FUTURE), undefined, true, true],
    ['active COMPLIANCE', comp(FUTURE), undefined, false, false],
    ['active COMPLIANCE with bypass', comp(FUTURE), 'OFF', true, false],
    ['retention ending exactly now', comp(NOW.toISOString()), undefined, false, true],
  ];
  // eslint-disable-next-line max-params -- it.each passes one argument per table column
  it.each(rows)('%s', (_name, retention, legalHold, bypassGovernance, allowed) => {
    const decision = canDeleteVersion({ retention, legalHold, bypassGovernance, now: NOW });
    expect(decision.allowed).toBe(allowed);
    if (!decision.allowed) {
      expect(decision.error.code).toBe('AccessDenied');
      expect(decision.error.message).toBe(LOCKED_MESSAGE);
    }
  });
});

describe('canChangeRetention', () => {
  type Row = [string, ObjectRetention | undefined, ObjectRetention | undefined, boolean, boolean];
  const rows: Row[] = [
    ['set where none', undefined, gov(FUTURE), false, true],
    ['replace an expired COMPLIANCE with anything', comp(PAST), gov(FUTURE), false, true],
    ['extend GOVERNANCE', gov(FUTURE), gov(LATER), false, true],
    ['keep GOVERNANCE as is', gov(FUTURE), gov(FUTURE), false, true],
    ['shorten GOVERNANCE', gov(LATER), gov(FUTURE), false, false],
    ['shorten GOVERNANCE with bypass', gov(LATER), gov(FUTURE), true, true],
    ['remove GOVERNANCE', gov(FUTURE), undefined, false, false],
    ['remove GOVERNANCE with bypass', gov(FUTURE), undefined, true, true],
    ['GOVERNANCE to COMPLIANCE', gov(FUTURE), comp(LATER), false, false],
    ['GOVERNANCE to COMPLIANCE with bypass', gov(FUTURE), comp(LATER), true, true],
    ['extend COMPLIANCE', comp(FUTURE), comp(LATER), false, true],
    ['shorten COMPLIANCE', comp(LATER), comp(FUTURE), false, false],
    ['shorten COMPLIANCE with bypass', comp(LATER), comp(FUTURE), true, false],
    ['COMPLIANCE to GOVERNANCE with a later date and bypass', comp(FUTURE), gov(LATER), true, false],
    ['remove COMPLIANCE with bypass', comp(FUTURE), undefined, true, false],
  ];
  // eslint-disable-next-line max-params -- it.each passes one argument per table column
  it.each(rows)('%s', (_name, current, next, bypassGovernance, allowed) => {
    const decision = canChangeRetention({ current, next, bypassGovernance, now: NOW });
    expect(decision.allowed).toBe(allowed);
    if (!decision.allowed) expect(decision.error.code).toBe('AccessDenied');
  });

  it('treats a retention as active strictly before its date', () => {
    expect(isRetentionActive(gov(FUTURE), NOW)).toBe(true);
    expect(isRetentionActive(gov(NOW.toISOString()), NOW)).toBe(false);
    expect(isRetentionActive(undefined, NOW)).toBe(false);
  });
});

describe('parseObjectLockHeaders', () => {
  it('reads mode, date and legal hold', () => {
    expect(
      parseObjectLockHeaders({ mode: 'COMPLIANCE', retainUntilDate: '2030-07-01T00:00:00Z', legalHold: 'ON' }, NOW),
    ).toEqual({
      retention: comp(FUTURE),
      legalHold: 'ON',
    });
    expect(parseObjectLockHeaders({ legalHold: 'OFF' }, NOW)).toEqual({ legalHold: 'OFF' });
    expect(parseObjectLockHeaders({}, NOW)).toEqual({});
    expect(parseObjectLockHeaders({ mode: 'GOVERNANCE', retainUntilDate: '2030-07-01' }, NOW).retention).toEqual(
      gov(FUTURE),
    );
  });

  it.each([
    ['a mode without a date', { mode: 'GOVERNANCE' }, 'x-amz-object-lock-retain-until-date', 'must both be supplied'],
    ['a date without a mode', { retainUntilDate: FUTURE }, 'x-amz-object-lock-mode', 'must both be supplied'],
    [
      'an unknown mode',
      { mode: 'Governance', retainUntilDate: FUTURE },
      'x-amz-object-lock-mode',
      'Unknown wormMode directive.',
    ],
    [
      'a date that is not ISO 8601',
      { mode: 'GOVERNANCE', retainUntilDate: 'Tue, 01 Jul 2030 00:00:00 GMT' },
      'x-amz-object-lock-retain-until-date',
      'ISO 8601',
    ],
    [
      'a past date',
      { mode: 'COMPLIANCE', retainUntilDate: PAST },
      'x-amz-object-lock-retain-until-date',
      'must be in the future!',
    ],
    [
      'a bad legal hold',
      { legalHold: 'on' },
      'x-amz-object-lock-legal-hold',
      "Legal Hold must be either of 'ON' or 'OFF'",
    ],
    // eslint-disable-next-line max-params -- it.each passes one argument per table column
  ])('refuses %s with InvalidArgument', (_name, headers, argumentName, message) => {
    const err = thrown(() => parseObjectLockHeaders(headers, NOW));
    expect(err?.code).toBe('InvalidArgument');
    expect(err?.details['ArgumentName']).toBe(argumentName);
    expect(err?.message).toContain(message);
  });

  it('refuses lock requests on a bucket without object lock with InvalidRequest', () => {
    expect(codeOf(() => checkObjectLockEnabled(false))).toBe('InvalidRequest');
    expect(codeOf(() => checkObjectLockEnabled(true))).toBeUndefined();
  });
});
