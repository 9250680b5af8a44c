import { describe, expect, it } from 'vitest';
import { describeRule, emptyRule, formToRule, ruleToForm, type LifecycleRule } from './lifecycle-form';

describe('lifecycle form', () => {
  it('turns a form into the API rule and back', () => {
    const form = {
      ...emptyRule(),
      id: 'logs',
      prefix: 'logs/',
      expireDays: '30',
      transitions: [{ days: '7', storageClass: 'GLACIER' }],
      noncurrentDays: '10',
      keepNewer: '2',
      abortDays: '3',
    };
    const rule = formToRule(form, 0);
    expect(rule).toEqual({
      id: 'logs',
      status: 'Enabled',
      filter: { prefix: 'logs/' },
      expiration: { days: 30 },
      transitions: [{ days: 7, storageClass: 'GLACIER' }],
      noncurrentVersionExpiration: { noncurrentDays: 10, newerNoncurrentVersions: 2 },
      abortIncompleteMultipartUpload: { daysAfterInitiation: 3 },
    });
    expect(ruleToForm(rule)).toEqual({
      ...form,
      tags: [],
      minSize: '',
      maxSize: '',
      expireDeleteMarkers: false,
      noncurrentTransitions: [],
      enabled: true,
    });
  });

  it('reads the deprecated rule-level prefix', () => {
    expect(ruleToForm({ status: 'Disabled', prefix: 'old/', expiration: { days: 1 } }).prefix).toBe('old/');
  });

  it('refuses a rule with no action, bad numbers, or conflicting expirations, naming the rule and field', () => {
    expect(() => formToRule(emptyRule(), 1)).toThrow(/^Rule 2: choose at least one action/);
    expect(() => formToRule({ ...emptyRule(), expireDays: 'x' }, 0)).toThrow(/^Rule 1, expire after days/);
    expect(() => formToRule({ ...emptyRule(), expireDays: '0' }, 0)).toThrow(/at least 1/);
    expect(() => formToRule({ ...emptyRule(), expireDays: '3', expireDeleteMarkers: true }, 0)).toThrow(
      /cannot be combined/,
    );
    expect(() => formToRule({ ...emptyRule(), keepNewer: '2', abortDays: '1' }, 0)).toThrow(
      /needs "expire after days"/,
    );
    expect(() => formToRule({ ...emptyRule(), minSize: '10', maxSize: '5', abortDays: '1' }, 0)).toThrow(
      /maximum size/,
    );
  });

  it('describes a rule in a sentence', () => {
    const rule: LifecycleRule = { status: 'Enabled', filter: { prefix: 'tmp/' }, expiration: { days: 1 } };
    expect(describeRule(rule)).toBe('Objects under “tmp/”: expire after 1 days.');
  });
});
