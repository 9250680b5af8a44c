// Properties of the POST Object policy on arbitrary input: any base64 text, any JSON document and any form fields end
// in a policy and size bounds, InvalidPolicyDocument or AccessDenied, never a TypeError; an accepted form's bounds
// are sane (min <= max unless the policy itself contradicts, which refuses every file size).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkPostPolicy, decodePostPolicy } from './post-policy.js';
import { expectCodeIn, fragmentString, outcomeOf } from '../../../test/helpers/fuzz.js';

const RUNS = 400;
const NOW = new Date('2030-06-01T00:00:00Z');
const b64 = (value: unknown): string => Buffer.from(JSON.stringify(value) ?? '').toString('base64');
const junk = fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constantFrom(null, {}, [], { toString: 1 }, { valueOf: 'x' }));
const conditionArb = fc.oneof(
  fc.tuple(
    fc.constantFrom('eq', 'starts-with', 'EQ', 'content-length-range', 'nope'),
    fc.oneof(
      fc.constantFrom('$key', '$bucket', '$Content-Type', '$x-amz-meta-a', '$success_action_status'),
      fc.nat(),
      junk,
    ),
    fc.oneof(fc.string({ maxLength: 6 }), fc.nat(), junk),
  ),
  fc.dictionary(fc.constantFrom('bucket', 'key', 'acl', 'x-amz-date'), fc.oneof(fc.string({ maxLength: 6 }), junk), {
    minKeys: 0,
    maxKeys: 2,
  }),
  junk,
);
const documentArb = fc.record(
  {
    expiration: fc.oneof(
      fc.constantFrom(
        '2031-01-01T00:00:00Z',
        '2031-01-01T00:00:00.123Z',
        '2020-01-01T00:00:00Z',
        '2031-13-01T00:00:00Z',
      ),
      junk,
    ),
    conditions: fc.oneof(fc.array(conditionArb, { maxLength: 5 }), junk),
  },
  { requiredKeys: [] },
);
const fieldsArb = fc
  .dictionary(
    fc.constantFrom(
      'key',
      'bucket',
      'content-type',
      'x-amz-meta-a',
      'success_action_status',
      'policy',
      'x-ignore-me',
      'acl',
    ),
    fc.string({ maxLength: 8 }),
    { maxKeys: 5 },
  )
  .map((f) => new Map(Object.entries(f)));

describe('POST Object policy on arbitrary input', () => {
  it('decoding gives a policy or InvalidPolicyDocument, checking gives bounds or AccessDenied', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          documentArb.map(b64),
          junk.map(b64),
          fragmentString(['A', '=', '==', ' ', '\n', '+', '/', 'eyJ', 'e30=']),
        ),
        fieldsArb,
        (text, fields) => {
          const decoded = outcomeOf(() => decodePostPolicy(text));
          expectCodeIn(decoded, ['InvalidPolicyDocument']);
          if (!decoded.ok) return;
          const checked = outcomeOf(() => checkPostPolicy(decoded.value, fields, NOW));
          expectCodeIn(checked, ['AccessDenied']);
          if (checked.ok) expect(checked.value.min).toBeGreaterThanOrEqual(0);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('regression: an expiration that is an object JSON cannot print as a string is InvalidPolicyDocument, not a TypeError', () => {
    const outcome = outcomeOf(() => decodePostPolicy(b64({ expiration: { toString: 1 }, conditions: [] })));
    expect(outcome.ok ? 'accepted' : outcome.error.code).toBe('InvalidPolicyDocument');
  });
});
