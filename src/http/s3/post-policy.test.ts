import { describe, expect, it } from 'vitest';
import { isAppError } from '../../core/errors.js';
import { checkPostPolicy, decodePostPolicy } from './post-policy.js';

const encode = (doc: unknown): string =>
  Buffer.from(typeof doc === 'string' ? doc : JSON.stringify(doc)).toString('base64');
const NOW = new Date('2030-01-01T00:00:00Z');
const policyOf = (conditions: unknown[], expiration = '2030-01-02T00:00:00.000Z') =>
  decodePostPolicy(encode({ expiration, conditions }));
const form = (entries: Record<string, string>): Map<string, string> =>
  new Map(Object.entries({ bucket: 'b', key: 'k', ...entries }));

function errorOf(fn: () => unknown): { code: string; message: string } {
  try {
    fn();
  } catch (err) {
    if (isAppError(err)) return { code: err.code, message: err.message };
    throw err;
  }
  throw new Error('expected an error');
}

describe('decodePostPolicy', () => {
  it.each([
    ['text that is not base64', '%%%'],
    ['base64 of something that is not JSON', encode('not json')],
    ['a JSON array', encode([])],
    ['a document without expiration', encode({ conditions: [] })],
    ['an expiration that is not ISO 8601 UTC', encode({ expiration: '2030-01-01', conditions: [] })],
    ['a document without conditions', encode({ expiration: '2030-01-01T00:00:00Z' })],
    ['conditions that are not a list', encode({ expiration: '2030-01-01T00:00:00Z', conditions: {} })],
    [
      'a simple condition with two properties',
      encode({ expiration: '2030-01-01T00:00:00Z', conditions: [{ key: 'a', acl: 'b' }] }),
    ],
  ])('refuses %s with InvalidPolicyDocument', (_name, text) => {
    expect(errorOf(() => decodePostPolicy(text)).code).toBe('InvalidPolicyDocument');
  });

  it('accepts expirations with and without milliseconds', () => {
    expect(decodePostPolicy(encode({ expiration: '2030-01-01T00:00:00Z', conditions: [] })).expiration).toBe(
      Date.parse('2030-01-01T00:00:00Z'),
    );
    expect(decodePostPolicy(encode({ expiration: '2030-01-01T00:00:00.500Z', conditions: [] })).expiration).toBe(
      Date.parse('2030-01-01T00:00:00.500Z'),
    );
  });
});

describe('checkPostPolicy', () => {
  const base = [{ bucket: 'b' }, { key: 'k' }];

  it('passes a form whose every field is covered and every condition holds', () => {
    const policy = policyOf([...base, ['starts-with', '$Content-Type', 'image/'], ['eq', '$x-amz-meta-a', '1']]);
    expect(checkPostPolicy(policy, form({ 'content-type': 'image/png', 'x-amz-meta-a': '1' }), NOW)).toEqual({
      min: 0,
      max: Infinity,
    });
  });

  it('refuses an expired policy, but not one expiring this very millisecond', () => {
    expect(errorOf(() => checkPostPolicy(policyOf(base, '2029-12-31T23:59:59.999Z'), form({}), NOW))).toEqual({
      code: 'AccessDenied',
      message: 'Invalid according to Policy: Policy expired.',
    });
    expect(() => checkPostPolicy(policyOf(base, '2030-01-01T00:00:00.000Z'), form({}), NOW)).not.toThrow();
  });

  it('names the failed condition as S3 prints it', () => {
    const policy = policyOf([{ bucket: 'b' }, ['eq', '$key', 'other']]);
    expect(errorOf(() => checkPostPolicy(policy, form({}), NOW)).message).toBe(
      'Invalid according to Policy: Policy Condition failed: ["eq", "$key", "other"]',
    );
    const simple = policyOf([{ bucket: 'other' }, { key: 'k' }]);
    expect(errorOf(() => checkPostPolicy(simple, form({}), NOW)).message).toBe(
      'Invalid according to Policy: Policy Condition failed: ["eq", "$bucket", "other"]',
    );
  });

  it('refuses a field no condition names, except policy, the signature fields, file and x-ignore-*', () => {
    const policy = policyOf(base);
    expect(errorOf(() => checkPostPolicy(policy, form({ acl: 'private' }), NOW)).message).toBe(
      'Invalid according to Policy: Extra input fields: acl',
    );
    expect(() =>
      checkPostPolicy(
        policy,
        form({
          policy: 'p',
          'x-amz-signature': 's',
          signature: 's',
          awsaccesskeyid: 'a',
          file: 'f',
          'x-ignore-me': '1',
        }),
        NOW,
      ),
    ).not.toThrow();
  });

  it('matches field names without regard to case', () => {
    expect(() => checkPostPolicy(policyOf([{ Bucket: 'b' }, ['eq', '$KEY', 'k']]), form({}), NOW)).not.toThrow();
  });

  it('treats an empty starts-with as "anything, even absent"', () => {
    expect(() =>
      checkPostPolicy(policyOf([...base, ['starts-with', '$Content-Type', '']]), form({}), NOW),
    ).not.toThrow();
    expect(() => checkPostPolicy(policyOf([...base, ['starts-with', '$Content-Type', 'a']]), form({}), NOW)).toThrow();
  });

  it('requires every type of a Content-Type list to have the prefix', () => {
    const policy = policyOf([...base, ['starts-with', '$Content-Type', 'image/']]);
    expect(() => checkPostPolicy(policy, form({ 'content-type': 'image/png, image/jpeg' }), NOW)).not.toThrow();
    expect(() => checkPostPolicy(policy, form({ 'content-type': 'image/png, text/html' }), NOW)).toThrow();
  });

  it('fails starts-with on exact-only fields (bucket, success_action_status, x-amz-* other than metadata)', () => {
    for (const field of ['bucket', 'success_action_status', 'x-amz-credential']) {
      const policy = policyOf([...base, ['starts-with', `$${field}`, '']]);
      expect(errorOf(() => checkPostPolicy(policy, form({ [field]: 'v' }), NOW)).code).toBe('AccessDenied');
    }
    expect(() =>
      checkPostPolicy(policyOf([...base, ['starts-with', '$x-amz-meta-a', '']]), form({ 'x-amz-meta-a': 'v' }), NOW),
    ).not.toThrow();
  });

  it('fails conditions it cannot interpret: unknown operator, wrong arity, missing $, non-string values', () => {
    for (const bad of [
      ['ends-with', '$key', 'k'],
      ['eq', '$key'],
      ['eq', 'key', 'k'],
      ['eq', '$key', 1],
      'text',
      { key: 5 },
    ]) {
      expect(errorOf(() => checkPostPolicy(policyOf([...base, bad]), form({}), NOW)).message).toMatch(
        /^Invalid according to Policy: Policy Condition failed/,
      );
    }
  });

  it('intersects content-length-range conditions and accepts numbers as strings', () => {
    const policy = policyOf([...base, ['content-length-range', 10, 1000], ['content-length-range', '100', '5000']]);
    expect(checkPostPolicy(policy, form({}), NOW)).toEqual({ min: 100, max: 1000 });
    expect(
      errorOf(() => checkPostPolicy(policyOf([...base, ['content-length-range', -1, 10]]), form({}), NOW)).code,
    ).toBe('AccessDenied');
  });
});
