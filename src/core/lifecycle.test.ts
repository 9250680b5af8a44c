import { describe, expect, it } from 'vitest';
import {
  type LifecycleConfiguration,
  type LifecycleRule,
  parseLifecycleStorageClass,
  rulePrefix,
  validateLifecycleConfiguration,
  withRuleIds,
} from './lifecycle.js';
import { codeOf } from '../../test/helpers/error-code.js';

const base: LifecycleRule = { id: 'r', status: 'Enabled', filter: { prefix: 'logs/' }, expiration: { days: 30 } };
/** A rule: the base with some fields replaced; `undefined` values remove a field. */
function rule(over: Record<string, unknown>): LifecycleRule {
  const out: Record<string, unknown> = { ...base, ...over };
  for (const [k, v] of Object.entries(out)) if (v === undefined) delete out[k];
  return out as unknown as LifecycleRule;
}
const check = (...rules: LifecycleRule[]): string | undefined =>
  codeOf(() => validateLifecycleConfiguration({ rules }));

describe('validateLifecycleConfiguration accepts', () => {
  it.each<[string, LifecycleRule[]]>([
    ['a prefix expiration', [base]],
    ['a legacy rule-level prefix', [rule({ filter: undefined, prefix: 'old/' })]],
    ['an empty filter', [rule({ filter: {} })]],
    ['a disabled rule', [rule({ status: 'Disabled' })]],
    ['a date expiration at midnight', [rule({ expiration: { date: '2030-01-01T00:00:00.000Z' } })]],
    [
      'an expired delete marker rule',
      [rule({ filter: { prefix: '' }, expiration: { expiredObjectDeleteMarker: true } })],
    ],
    [
      'tags and sizes together',
      [
        rule({
          filter: {
            prefix: 'a',
            tags: [
              { key: 'k', value: 'v' },
              { key: 'k2', value: '' },
            ],
            objectSizeGreaterThan: 0,
            objectSizeLessThan: 10,
          },
        }),
      ],
    ],
    [
      'noncurrent expiration keeping versions',
      [
        rule({
          expiration: undefined,
          noncurrentVersionExpiration: { noncurrentDays: 1, newerNoncurrentVersions: 100 },
        }),
      ],
    ],
    [
      'abort incomplete uploads',
      [rule({ expiration: undefined, abortIncompleteMultipartUpload: { daysAfterInitiation: 7 } })],
    ],
    [
      'transitions in order',
      [
        rule({
          expiration: { days: 400 },
          transitions: [
            { days: 30, storageClass: 'STANDARD_IA' },
            { days: 60, storageClass: 'GLACIER' },
            { days: 180, storageClass: 'DEEP_ARCHIVE' },
          ],
        }),
      ],
    ],
    [
      'a transition at day 0 to GLACIER',
      [rule({ expiration: undefined, transitions: [{ days: 0, storageClass: 'GLACIER' }] })],
    ],
    [
      'date transitions',
      [
        rule({
          expiration: { date: '2031-01-01T00:00:00Z' },
          transitions: [{ date: '2030-01-01T00:00:00Z', storageClass: 'STANDARD_IA' }],
        }),
      ],
    ],
    [
      'noncurrent transitions',
      [
        rule({
          expiration: undefined,
          noncurrentVersionTransitions: [
            { noncurrentDays: 30, storageClass: 'STANDARD_IA' },
            { noncurrentDays: 0, storageClass: 'GLACIER', newerNoncurrentVersions: 2 },
          ],
          noncurrentVersionExpiration: { noncurrentDays: 90 },
        }),
      ],
    ],
    ['rules without IDs', [rule({ id: undefined }), rule({ id: undefined })]],
    ['1000 rules', Array.from({ length: 1000 }, (_, i) => rule({ id: `r${i}` }))],
    ['a 255-character ID', [rule({ id: 'x'.repeat(255) })]],
  ])('%s', (_name, rules) => {
    expect(check(...rules)).toBeUndefined();
  });
});

describe('validateLifecycleConfiguration refuses', () => {
  it.each<[string, LifecycleRule[], string]>([
    ['no rules', [], 'InvalidRequest'],
    ['1001 rules', Array.from({ length: 1001 }, (_, i) => rule({ id: `r${i}` })), 'InvalidRequest'],
    ['a 256-character ID', [rule({ id: 'x'.repeat(256) })], 'InvalidArgument'],
    ['an empty ID', [rule({ id: '' })], 'InvalidArgument'],
    ['a repeated ID', [rule({}), rule({})], 'InvalidArgument'],
    ['a lower-case status', [rule({ status: 'enabled' })], 'MalformedXML'],
    ['neither filter nor prefix', [rule({ filter: undefined })], 'MalformedXML'],
    ['both filter and prefix', [rule({ prefix: 'x' })], 'MalformedXML'],
    ['V1 then V2 rules', [rule({ id: 'a', filter: undefined, prefix: 'a' }), rule({ id: 'b' })], 'InvalidRequest'],
    ['V2 then V1 rules', [rule({ id: 'a' }), rule({ id: 'b', filter: undefined, prefix: 'a' })], 'InvalidRequest'],
    ['a rule without actions', [rule({ expiration: undefined })], 'InvalidRequest'],
    ['an empty expiration', [rule({ expiration: {} })], 'MalformedXML'],
    ['expiration days and date', [rule({ expiration: { days: 1, date: '2030-01-01T00:00:00Z' } })], 'MalformedXML'],
    [
      'expired delete marker with days',
      [rule({ expiration: { days: 1, expiredObjectDeleteMarker: true } })],
      'MalformedXML',
    ],
    ['zero expiration days', [rule({ expiration: { days: 0 } })], 'InvalidArgument'],
    ['fractional expiration days', [rule({ expiration: { days: 1.5 } })], 'InvalidArgument'],
    ['an expiration date not at midnight', [rule({ expiration: { date: '2030-01-01T00:00:01Z' } })], 'InvalidArgument'],
    ['an expiration date that is not a date', [rule({ expiration: { date: 'tomorrow' } })], 'MalformedXML'],
    [
      'expired delete marker with a tag filter',
      [rule({ filter: { tags: [{ key: 'a', value: 'b' }] }, expiration: { expiredObjectDeleteMarker: true } })],
      'InvalidRequest',
    ],
    [
      'expired delete marker (false) with a size filter',
      [rule({ filter: { objectSizeLessThan: 5 }, expiration: { expiredObjectDeleteMarker: false } })],
      'InvalidRequest',
    ],
    [
      'abort with a tag filter',
      [
        rule({
          filter: { tags: [{ key: 'a', value: 'b' }] },
          abortIncompleteMultipartUpload: { daysAfterInitiation: 1 },
        }),
      ],
      'InvalidRequest',
    ],
    [
      'abort with a size filter',
      [rule({ filter: { objectSizeGreaterThan: 5 }, abortIncompleteMultipartUpload: { daysAfterInitiation: 1 } })],
      'InvalidRequest',
    ],
    [
      'abort after zero days',
      [rule({ expiration: undefined, abortIncompleteMultipartUpload: { daysAfterInitiation: 0 } })],
      'InvalidArgument',
    ],
    [
      'duplicate filter tag keys',
      [
        rule({
          filter: {
            tags: [
              { key: 'a', value: '1' },
              { key: 'a', value: '2' },
            ],
          },
        }),
      ],
      'InvalidRequest',
    ],
    ['an invalid filter tag', [rule({ filter: { tags: [{ key: '', value: '1' }] } })], 'InvalidTag'],
    ['ObjectSizeLessThan 0', [rule({ filter: { objectSizeLessThan: 0 } })], 'InvalidRequest'],
    ['a negative ObjectSizeGreaterThan', [rule({ filter: { objectSizeGreaterThan: -1 } })], 'InvalidRequest'],
    ['sizes past the bound', [rule({ filter: { objectSizeGreaterThan: 1_099_511_627_776_001 } })], 'InvalidRequest'],
    ['equal size bounds', [rule({ filter: { objectSizeGreaterThan: 10, objectSizeLessThan: 10 } })], 'InvalidRequest'],
    [
      'zero noncurrent days',
      [rule({ expiration: undefined, noncurrentVersionExpiration: { noncurrentDays: 0 } })],
      'InvalidArgument',
    ],
    [
      'zero newer noncurrent versions',
      [rule({ expiration: undefined, noncurrentVersionExpiration: { noncurrentDays: 1, newerNoncurrentVersions: 0 } })],
      'InvalidArgument',
    ],
    [
      '101 newer noncurrent versions',
      [
        rule({
          expiration: undefined,
          noncurrentVersionExpiration: { noncurrentDays: 1, newerNoncurrentVersions: 101 },
        }),
      ],
      'InvalidArgument',
    ],
    [
      'newer noncurrent versions in a V1 rule',
      [
        rule({
          filter: undefined,
          prefix: '',
          noncurrentVersionExpiration: { noncurrentDays: 1, newerNoncurrentVersions: 1 },
        }),
      ],
      'InvalidRequest',
    ],
    [
      'a transition with days and date',
      [rule({ transitions: [{ days: 40, date: '2030-01-01T00:00:00Z', storageClass: 'GLACIER' }] })],
      'MalformedXML',
    ],
    ['a transition with neither', [rule({ transitions: [{ storageClass: 'GLACIER' }] })], 'MalformedXML'],
    [
      'STANDARD_IA before 30 days',
      [rule({ expiration: undefined, transitions: [{ days: 29, storageClass: 'STANDARD_IA' }] })],
      'InvalidArgument',
    ],
    [
      'a negative transition day',
      [rule({ expiration: undefined, transitions: [{ days: -1, storageClass: 'GLACIER' }] })],
      'InvalidArgument',
    ],
    [
      'an unsupported AWS storage class',
      [rule({ transitions: [{ days: 1, storageClass: 'GLACIER_IR' }] })],
      'InvalidStorageClass',
    ],
    ['an unknown storage class', [rule({ transitions: [{ days: 1, storageClass: 'COLD' }] })], 'MalformedXML'],
    [
      'STANDARD as a transition target',
      [rule({ transitions: [{ days: 1, storageClass: 'STANDARD' }] })],
      'MalformedXML',
    ],
    [
      'two transitions to one class',
      [
        rule({
          expiration: undefined,
          transitions: [
            { days: 1, storageClass: 'GLACIER' },
            { days: 9, storageClass: 'GLACIER' },
          ],
        }),
      ],
      'InvalidArgument',
    ],
    [
      'mixed Days and Date',
      [rule({ expiration: { days: 400 }, transitions: [{ date: '2030-01-01T00:00:00Z', storageClass: 'GLACIER' }] })],
      'InvalidRequest',
    ],
    [
      'expiration not after the transition',
      [rule({ expiration: { days: 30 }, transitions: [{ days: 30, storageClass: 'GLACIER' }] })],
      'InvalidArgument',
    ],
    [
      'an expiration date not after the transition date',
      [
        rule({
          expiration: { date: '2030-01-01T00:00:00Z' },
          transitions: [{ date: '2030-01-01T00:00:00Z', storageClass: 'GLACIER' }],
        }),
      ],
      'InvalidArgument',
    ],
    [
      'GLACIER less than 30 days after STANDARD_IA',
      [
        rule({
          expiration: undefined,
          transitions: [
            { days: 30, storageClass: 'STANDARD_IA' },
            { days: 59, storageClass: 'GLACIER' },
          ],
        }),
      ],
      'InvalidArgument',
    ],
    [
      'a transition date not at midnight',
      [rule({ expiration: undefined, transitions: [{ date: '2030-01-01T12:00:00Z', storageClass: 'GLACIER' }] })],
      'InvalidArgument',
    ],
    [
      'noncurrent STANDARD_IA before 30 days',
      [
        rule({
          expiration: undefined,
          noncurrentVersionTransitions: [{ noncurrentDays: 10, storageClass: 'STANDARD_IA' }],
        }),
      ],
      'InvalidArgument',
    ],
    [
      'two noncurrent transitions to one class',
      [
        rule({
          expiration: undefined,
          noncurrentVersionTransitions: [
            { noncurrentDays: 1, storageClass: 'GLACIER' },
            { noncurrentDays: 2, storageClass: 'GLACIER' },
          ],
        }),
      ],
      'InvalidArgument',
    ],
    [
      'noncurrent expiration not after the noncurrent transition',
      [
        rule({
          expiration: undefined,
          noncurrentVersionExpiration: { noncurrentDays: 5 },
          noncurrentVersionTransitions: [{ noncurrentDays: 5, storageClass: 'GLACIER' }],
        }),
      ],
      'InvalidArgument',
    ],
  ])('%s', (_name, rules, code) => {
    expect(check(...rules)).toBe(code);
  });

  it('uses S3 messages', () => {
    expect(() =>
      validateLifecycleConfiguration({ rules: [rule({ expiration: { date: '2030-01-01T00:00:01Z' } })] }),
    ).toThrow("'Date' must be at midnight GMT");
    expect(() => validateLifecycleConfiguration({ rules: [rule({ expiration: undefined })] })).toThrow(
      'At least one action needs to be specified in a rule',
    );
  });
});

describe('helpers', () => {
  it('reads storage classes', () => {
    expect(parseLifecycleStorageClass('DEEP_ARCHIVE')).toBe('DEEP_ARCHIVE');
    expect(codeOf(() => parseLifecycleStorageClass('ONEZONE_IA'))).toBe('InvalidStorageClass');
    expect(codeOf(() => parseLifecycleStorageClass('glacier'))).toBe('MalformedXML');
  });

  it('fills in missing IDs only, in S3 form by default', () => {
    const config: LifecycleConfiguration = { rules: [rule({ id: undefined }), rule({ id: 'keep' })] };
    let n = 0;
    expect(withRuleIds(config, () => `gen${++n}`).rules.map((r) => r.id)).toEqual(['gen1', 'keep']);
    const generated = withRuleIds(config).rules[0]?.id ?? '';
    expect(generated).toMatch(/^[A-Za-z0-9+/]{48}$/);
    expect(config.rules[0]?.id).toBeUndefined(); // not mutated
  });

  it('finds the prefix of both rule forms', () => {
    expect(rulePrefix(rule({}))).toBe('logs/');
    expect(rulePrefix(rule({ filter: undefined, prefix: 'old/' }))).toBe('old/');
    expect(rulePrefix(rule({ filter: {} }))).toBe('');
  });

  it('is plain JSON', () => {
    const config: LifecycleConfiguration = { rules: [rule({ transitions: [{ days: 0, storageClass: 'GLACIER' }] })] };
    expect(JSON.parse(JSON.stringify(config))).toEqual(config);
  });
});
