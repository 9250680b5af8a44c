// Properties of the lifecycle parser and validator on arbitrary input: hostile bodies end in a value or one of the
// documented AppError codes; every configuration the validator accepts (through the S3 plane or the admin API's
// JSON) is served by GetBucketLifecycleConfiguration as a document PutBucketLifecycleConfiguration takes back
// unchanged; evaluating an accepted configuration never throws.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ErrorCode } from '../../../core/errors.js';
import {
  validateLifecycleConfiguration,
  type LifecycleConfiguration,
  type LifecycleRule,
} from '../../../core/lifecycle.js';
import { expirationAction, transitionDue, abortUploadDue } from '../../../core/lifecycle-eval.js';
import { buildLifecycleConfiguration, parseLifecycleConfiguration } from './config-lifecycle.js';
import { expectCodeIn, fragmentString, mutate, mutationArb, outcomeOf } from '../../../../test/helpers/fuzz.js';

const RUNS = 400;
const DAY = 86_400_000;
const CODES: readonly ErrorCode[] = [
  'MissingRequestBodyError',
  'MalformedXML',
  'InvalidArgument',
  'InvalidRequest',
  'InvalidStorageClass',
  'InvalidTag',
];

const NAMES = [
  'LifecycleConfiguration',
  'Rule',
  'ID',
  'Status',
  'Prefix',
  'Filter',
  'And',
  'Tag',
  'Key',
  'Value',
  'ObjectSizeGreaterThan',
  'ObjectSizeLessThan',
  'Expiration',
  'Days',
  'Date',
  'ExpiredObjectDeleteMarker',
  'Transition',
  'StorageClass',
  'NoncurrentVersionExpiration',
  'NoncurrentDays',
  'NewerNoncurrentVersions',
  'NoncurrentVersionTransition',
  'AbortIncompleteMultipartUpload',
  'DaysAfterInitiation',
];
const TEXTS = [
  '',
  ' ',
  'Enabled',
  'Disabled',
  'enabled',
  '0',
  '1',
  '30',
  '-1',
  '+5',
  '2147483647',
  '2147483648',
  '99999999999999999999',
  '1.5',
  'true',
  'false',
  'GLACIER',
  'STANDARD_IA',
  'DEEP_ARCHIVE',
  'ONEZONE_IA',
  'STANDARD',
  '2030-01-01T00:00:00Z',
  '2030-01-01T00:00:01Z',
  '2030-13-01',
  '2030-01-01',
  'logs/',
  'aws:x',
  'k',
  'é',
  '*',
  '1099511627776000',
  '1099511627776001',
];

interface Tree {
  name: string;
  children: Array<Tree | string>;
}
const treeArb: fc.Arbitrary<Tree> = fc.letrec<{ tree: Tree; node: Tree | string }>((tie) => ({
  tree: fc.record({ name: fc.constantFrom(...NAMES), children: fc.array(tie('node'), { maxLength: 4 }) }),
  node: fc.oneof({ depthSize: 'small', withCrossShrink: true }, fc.constantFrom(...TEXTS), tie('tree')),
})).tree;
const render = (t: Tree): string =>
  `<${t.name}>${t.children.map((c) => (typeof c === 'string' ? c : render(c))).join('')}</${t.name}>`;

describe('parseLifecycleConfiguration on hostile input', () => {
  it('random text, element trees and mutated documents give a configuration or a documented AppError', () => {
    const doc = fc.oneof(
      fragmentString(
        ['<', '>', '</', '/>', '&', ';', ...NAMES.map((n) => `<${n}>`), ...NAMES.map((n) => `</${n}>`), ...TEXTS],
        40,
      ),
      fc.array(treeArb, { maxLength: 5 }).map((children) => render({ name: 'LifecycleConfiguration', children })),
      fc
        .array(fc.constantFrom(...NAMES.slice(1)), { maxLength: 5 })
        .map(
          (names) =>
            `<LifecycleConfiguration><Rule><ID>r</ID><Status>Enabled</Status><Filter><Prefix>a/</Prefix></Filter><Expiration><Days>3</Days></Expiration>${names.map((n) => `<${n}>1</${n}>`).join('')}</Rule></LifecycleConfiguration>`,
        ),
    );
    fc.assert(
      fc.property(doc, fc.array(mutationArb, { maxLength: 2 }), (text, edits) => {
        expectCodeIn(
          outcomeOf(() => parseLifecycleConfiguration(mutate(Buffer.from(text), edits))),
          CODES,
        );
      }),
      { numRuns: RUNS },
    );
  });
});

// ----- configurations as the admin API's JSON may carry them: any integers, any XML-safe text -----

// Any integer the admin API's schema (Type.Integer) lets through, small ones most of the time.
const anyInt = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: -2, max: 400 }) },
  { weight: 1, arbitrary: fc.maxSafeInteger() },
  { weight: 1, arbitrary: fc.integer() },
);
const text = (max: number) => fc.string({ maxLength: max, unit: fc.constantFrom(...'ab/_-. 1', 'é', '日') });
const midnight = fc
  .integer({ min: 0, max: 40_000 })
  .map((d) => new Date(Date.parse('2000-01-01') + d * DAY).toISOString());
const storageClass = fc.constantFrom('STANDARD_IA', 'GLACIER', 'DEEP_ARCHIVE') as fc.Arbitrary<
  'STANDARD_IA' | 'GLACIER' | 'DEEP_ARCHIVE'
>;
const opt = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined, freq: 2 });
/** Absent three times in four: a rule with few actions is more often a valid one. */
const rare = <T>(arb: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 3, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: arb });

const ruleArb = (v1: boolean): fc.Arbitrary<LifecycleRule> =>
  fc
    .record(
      {
        status: fc.constantFrom('Enabled', 'Disabled') as fc.Arbitrary<'Enabled' | 'Disabled'>,
        prefix: v1 ? text(10) : fc.constant(undefined),
        filter: v1
          ? fc.constant(undefined)
          : fc.record(
              {
                prefix: opt(text(10)),
                tags: opt(
                  fc.uniqueArray(fc.record({ key: text(8).filter((k) => k !== ''), value: text(8) }), {
                    selector: (t) => t.key,
                    minLength: 1,
                    maxLength: 3,
                  }),
                ),
                objectSizeGreaterThan: opt(anyInt),
                objectSizeLessThan: opt(anyInt),
              },
              { requiredKeys: [] },
            ),
        expiration: rare(
          fc.oneof(
            fc.record({ days: anyInt }),
            fc.record({ date: midnight }),
            fc.record({ expiredObjectDeleteMarker: fc.boolean() }),
          ),
        ),
        transitions: rare(
          fc.array(fc.oneof(fc.record({ days: anyInt, storageClass }), fc.record({ date: midnight, storageClass })), {
            minLength: 1,
            maxLength: 2,
          }),
        ),
        noncurrentVersionExpiration: rare(
          fc.record(
            { noncurrentDays: anyInt, newerNoncurrentVersions: opt(anyInt) },
            { requiredKeys: ['noncurrentDays'] },
          ),
        ),
        noncurrentVersionTransitions: rare(
          fc.array(
            fc.record(
              { noncurrentDays: anyInt, storageClass, newerNoncurrentVersions: opt(anyInt) },
              { requiredKeys: ['noncurrentDays', 'storageClass'] },
            ),
            { minLength: 1, maxLength: 2 },
          ),
        ),
        abortIncompleteMultipartUpload: rare(fc.record({ daysAfterInitiation: anyInt })),
      },
      { requiredKeys: ['status'] },
    )
    .map((rule) => JSON.parse(JSON.stringify(rule)) as LifecycleRule);

const configArb: fc.Arbitrary<LifecycleConfiguration> = fc
  .boolean()
  .chain((v1) => fc.array(ruleArb(v1), { minLength: 1, maxLength: 3 }))
  .map((rules) => ({ rules: rules.map((rule, i) => ({ id: `rule-${i}`, ...rule })) }));

describe('accepted lifecycle configurations', () => {
  it('round-trip: GetBucketLifecycleConfiguration serves a document PutBucketLifecycleConfiguration takes back unchanged', () => {
    let accepted = 0;
    fc.assert(
      fc.property(configArb, (config) => {
        const validated = outcomeOf(() => validateLifecycleConfiguration(config));
        expectCodeIn(validated, CODES);
        if (!validated.ok) return;
        accepted++;
        expect(parseLifecycleConfiguration(buildLifecycleConfiguration(config))).toEqual(config);
      }),
      { numRuns: 1500 },
    );
    // The generator must reach valid configurations often enough for the property to mean something.
    expect(accepted).toBeGreaterThan(50);
  });

  it('regression: a day count beyond xs:int is refused (the admin JSON took it; S3 clients could not read it back)', () => {
    for (const rule of [
      { abortIncompleteMultipartUpload: { daysAfterInitiation: 2_147_483_648 } },
      { expiration: { days: 2_147_483_648 } },
      { transitions: [{ days: 2_147_483_648, storageClass: 'GLACIER' as const }] },
      { noncurrentVersionExpiration: { noncurrentDays: Number.MAX_SAFE_INTEGER } },
      { noncurrentVersionTransitions: [{ noncurrentDays: 2_147_483_648, storageClass: 'GLACIER' as const }] },
    ]) {
      const outcome = outcomeOf(() =>
        validateLifecycleConfiguration({ rules: [{ id: 'r', status: 'Enabled', filter: {}, ...rule }] }),
      );
      expect(outcome.ok ? 'accepted' : outcome.error.code).toBe('InvalidArgument');
    }
    const largest: LifecycleConfiguration = {
      rules: [{ id: 'r', status: 'Enabled', filter: {}, expiration: { days: 2_147_483_647 } }],
    };
    validateLifecycleConfiguration(largest);
    expect(parseLifecycleConfiguration(buildLifecycleConfiguration(largest))).toEqual(largest);
  });

  it('evaluating an accepted configuration never throws, whatever the version', () => {
    const version = fc.record(
      {
        key: text(12),
        size: fc.oneof(fc.nat(), fc.maxSafeNat()),
        tags: fc.array(fc.record({ key: text(8), value: text(8) }), { maxLength: 3 }),
        lastModified: fc.date({ noInvalidDate: true }),
        isLatest: fc.boolean(),
        isDeleteMarker: fc.boolean(),
        noncurrentSince: opt(fc.date({ noInvalidDate: true })),
        newerNoncurrentCount: fc.nat({ max: 200 }),
        isOnlyVersion: fc.boolean(),
        storageClass: opt(fc.constantFrom('STANDARD', 'STANDARD_IA', 'GLACIER', 'DEEP_ARCHIVE')),
      },
      {
        requiredKeys: [
          'key',
          'size',
          'tags',
          'lastModified',
          'isLatest',
          'isDeleteMarker',
          'newerNoncurrentCount',
          'isOnlyVersion',
        ],
      },
    );
    fc.assert(
      fc.property(configArb, version, fc.date({ noInvalidDate: true }), (config, v, now) => {
        if (!outcomeOf(() => validateLifecycleConfiguration(config)).ok) return;
        expirationAction(config.rules, v, now);
        transitionDue(config.rules, v, now);
        abortUploadDue(config.rules, { key: v.key, initiated: v.lastModified }, now);
      }),
      { numRuns: RUNS },
    );
  });
});
