// Policy evaluation (core/policy/evaluate.ts): condition operators and policy variables.
import { describe, expect, it } from 'vitest';
import type { ContextInput } from './context.js';
import { parseIdentityPolicy } from './scoped-key.js';
import {
  ANON,
  bucketPolicy,
  decide,
  identityPolicy,
  K1,
  PUBLIC_READ,
  req,
  type Json,
} from '../../../test/helpers/policy-eval.js';

describe('conditions', () => {
  const denyInsecure = bucketPolicy(PUBLIC_READ, {
    Sid: 'TLSOnly',
    Effect: 'Deny',
    Principal: '*',
    Action: 's3:*',
    Resource: ['arn:aws:s3:::b', 'arn:aws:s3:::b/*'],
    Condition: { Bool: { 'aws:SecureTransport': 'false' } },
  });

  it.each<[ContextInput, string]>([
    [{ 'aws:SecureTransport': 'false' }, 'explicit-deny'],
    [{ 'aws:SecureTransport': 'true' }, 'allow'],
    [{ 'AWS:SECURETRANSPORT': 'FALSE' }, 'explicit-deny'],
    [{}, 'allow'],
  ])('Bool aws:SecureTransport deny with context %j -> %s', (context, reason) => {
    expect(
      decide(req(ANON, 's3:GetObject', { key: 'x', context: context }), { bucketPolicy: denyInsecure }).reason,
    ).toBe(reason);
  });

  const fromOffice = bucketPolicy({
    ...PUBLIC_READ,
    Condition: {
      IpAddress: { 'aws:SourceIp': ['192.0.2.0/24', '2001:db8::/32'] },
      NotIpAddress: { 'aws:SourceIp': '192.0.2.188/32' },
    },
  });

  it.each([
    ['192.0.2.10', true],
    ['192.0.2.188', false],
    ['198.51.100.1', false],
    ['::ffff:192.0.2.10', true],
    ['::ffff:192.0.2.188', false],
    ['2001:db8:ffff::1', true],
    ['2001:db9::1', false],
    ['not-an-ip', false],
  ])('IpAddress/NotIpAddress: %s -> %s', (ip, allowed) => {
    expect(
      decide(req(ANON, 's3:GetObject', { key: 'x', context: { 'aws:SourceIp': ip } }), { bucketPolicy: fromOffice })
        .allowed,
    ).toBe(allowed);
  });

  it('IpAddress fails when aws:SourceIp is missing', () => {
    expect(decide(req(ANON, 's3:GetObject', 'x'), { bucketPolicy: fromOffice }).allowed).toBe(false);
  });

  function listWith(condition: Json): (context: ContextInput) => boolean {
    const ip = identityPolicy({
      Effect: 'Allow',
      Action: 's3:ListBucket',
      Resource: 'arn:aws:s3:::b',
      Condition: condition,
    });
    return (context) =>
      decide(req(K1, 's3:ListBucket', { key: undefined, context: context }), { identityPolicy: ip }).allowed;
  }

  it.each<[string, Json, ContextInput, boolean]>([
    ['StringLike true', { StringLike: { 's3:prefix': 'photos/*' } }, { 's3:prefix': 'photos/2024/' }, true],
    ['StringLike false', { StringLike: { 's3:prefix': 'photos/*' } }, { 's3:prefix': 'docs/' }, false],
    ['StringLike missing key', { StringLike: { 's3:prefix': 'photos/*' } }, {}, false],
    ['StringLikeIfExists missing key', { StringLikeIfExists: { 's3:prefix': 'photos/*' } }, {}, true],
    [
      'StringLikeIfExists present, false',
      { StringLikeIfExists: { 's3:prefix': 'photos/*' } },
      { 's3:prefix': 'docs/' },
      false,
    ],
    ['StringEquals any of the values', { StringEquals: { 's3:prefix': ['a/', 'b/'] } }, { 's3:prefix': 'b/' }, true],
    ['StringEquals is case-sensitive', { StringEquals: { 's3:prefix': 'A/' } }, { 's3:prefix': 'a/' }, false],
    ['StringEquals has no wildcards', { StringEquals: { 's3:prefix': 'a*' } }, { 's3:prefix': 'ab' }, false],
    ['StringEqualsIgnoreCase', { StringEqualsIgnoreCase: { 's3:prefix': 'A/' } }, { 's3:prefix': 'a/' }, true],
    [
      'StringNotEquals none of the values',
      { StringNotEquals: { 's3:prefix': ['a/', 'b/'] } },
      { 's3:prefix': 'c/' },
      true,
    ],
    [
      'StringNotEquals one of the values',
      { StringNotEquals: { 's3:prefix': ['a/', 'b/'] } },
      { 's3:prefix': 'a/' },
      false,
    ],
    ['StringNotEquals missing key holds', { StringNotEquals: { 's3:prefix': 'a/' } }, {}, true],
    ['StringNotLike missing key holds', { StringNotLike: { 's3:prefix': 'a*' } }, {}, true],
    ['StringNotEqualsIfExists missing key holds', { StringNotEqualsIfExists: { 's3:prefix': 'a/' } }, {}, true],
    ['StringNotEqualsIgnoreCase', { StringNotEqualsIgnoreCase: { 's3:prefix': 'A/' } }, { 's3:prefix': 'a/' }, false],
    ['NumericLessThanEquals true', { NumericLessThanEquals: { 's3:max-keys': '100' } }, { 's3:max-keys': '100' }, true],
    ['NumericLessThanEquals false', { NumericLessThanEquals: { 's3:max-keys': 100 } }, { 's3:max-keys': '101' }, false],
    ['NumericLessThan', { NumericLessThan: { 's3:max-keys': '10' } }, { 's3:max-keys': '9' }, true],
    ['NumericGreaterThan', { NumericGreaterThan: { 's3:max-keys': '10' } }, { 's3:max-keys': '10' }, false],
    ['NumericGreaterThanEquals', { NumericGreaterThanEquals: { 's3:max-keys': '10' } }, { 's3:max-keys': '10' }, true],
    ['NumericEquals decimal', { NumericEquals: { 's3:max-keys': '1.50' } }, { 's3:max-keys': '1.5' }, true],
    ['NumericNotEquals', { NumericNotEquals: { 's3:max-keys': '5' } }, { 's3:max-keys': '5' }, false],
    [
      'Numeric with a non-number request value',
      { NumericLessThan: { 's3:max-keys': '10' } },
      { 's3:max-keys': 'lots' },
      false,
    ],
    ['Numeric missing key', { NumericLessThan: { 's3:max-keys': '10' } }, {}, false],
    [
      'DateLessThan true',
      { DateLessThan: { 'aws:CurrentTime': '2030-01-01T00:00:00Z' } },
      { 'aws:CurrentTime': '2029-12-31T23:59:59Z' },
      true,
    ],
    [
      'DateLessThan false',
      { DateLessThan: { 'aws:CurrentTime': '2030-01-01T00:00:00Z' } },
      { 'aws:CurrentTime': '2030-01-01T00:00:00Z' },
      false,
    ],
    [
      'DateGreaterThan with an offset',
      { DateGreaterThan: { 'aws:CurrentTime': '2030-01-01T00:00:00+01:00' } },
      { 'aws:CurrentTime': '2029-12-31T23:30:00Z' },
      true,
    ],
    [
      'DateGreaterThanEquals epoch seconds',
      { DateGreaterThanEquals: { 'aws:EpochTime': '1700000000' } },
      { 'aws:EpochTime': '1700000000' },
      true,
    ],
    [
      'Date date-only value',
      { DateLessThanEquals: { 'aws:CurrentTime': '2030-01-01' } },
      { 'aws:CurrentTime': '2030-01-01T00:00:00Z' },
      true,
    ],
    ['Null true, key absent', { Null: { 's3:prefix': 'true' } }, {}, true],
    ['Null true, key present', { Null: { 's3:prefix': 'true' } }, { 's3:prefix': 'a/' }, false],
    ['Null false, key present', { Null: { 's3:prefix': 'false' } }, { 's3:prefix': 'a/' }, true],
    ['Bool is case-insensitive', { Bool: { 'aws:SecureTransport': 'TRUE' } }, { 'aws:SecureTransport': 'true' }, true],
    [
      'two operators are ANDed',
      { StringLike: { 's3:prefix': 'a*' }, NumericLessThan: { 's3:max-keys': '5' } },
      { 's3:prefix': 'ab', 's3:max-keys': '9' },
      false,
    ],
    ['two keys are ANDed', { StringEquals: { 's3:prefix': 'a', 's3:delimiter': '/' } }, { 's3:prefix': 'a' }, false],
    [
      'ForAnyValue one matches',
      { 'ForAnyValue:StringEquals': { 'aws:TagKeys': ['x', 'y'] } },
      { 'aws:TagKeys': ['q', 'y'] },
      true,
    ],
    [
      'ForAnyValue none match',
      { 'ForAnyValue:StringEquals': { 'aws:TagKeys': ['x', 'y'] } },
      { 'aws:TagKeys': ['q'] },
      false,
    ],
    ['ForAnyValue missing key', { 'ForAnyValue:StringEquals': { 'aws:TagKeys': ['x'] } }, {}, false],
    [
      'ForAllValues all match',
      { 'ForAllValues:StringLike': { 'aws:TagKeys': ['app-*', 'env'] } },
      { 'aws:TagKeys': ['app-1', 'env'] },
      true,
    ],
    [
      'ForAllValues one does not',
      { 'ForAllValues:StringLike': { 'aws:TagKeys': ['app-*'] } },
      { 'aws:TagKeys': ['app-1', 'env'] },
      false,
    ],
    ['ForAllValues missing key holds', { 'ForAllValues:StringEquals': { 'aws:TagKeys': ['x'] } }, {}, true],
    [
      'ForAllValues empty list holds',
      { 'ForAllValues:StringEquals': { 'aws:TagKeys': ['x'] } },
      { 'aws:TagKeys': [] },
      true,
    ],
    [
      'ForAnyValue:StringNotEquals',
      { 'ForAnyValue:StringNotEquals': { 'aws:TagKeys': ['x'] } },
      { 'aws:TagKeys': ['x', 'y'] },
      true,
    ],
    [
      'ForAllValues:StringNotEquals',
      { 'ForAllValues:StringNotEquals': { 'aws:TagKeys': ['x'] } },
      { 'aws:TagKeys': ['x', 'y'] },
      false,
    ],
    ['operator names are case-insensitive', { stringlike: { 's3:prefix': 'a*' } }, { 's3:prefix': 'ab' }, true],
    [
      'a tag key keeps its case',
      { StringEquals: { 's3:ExistingObjectTag/Class': 'public' } },
      { 's3:existingobjecttag/Class': 'public' },
      true,
    ],
    [
      'a tag key of another case is another key',
      { StringEquals: { 's3:ExistingObjectTag/Class': 'public' } },
      { 's3:ExistingObjectTag/class': 'public' },
      false,
    ],
    [
      'aws:UserAgent StringLike',
      { StringLike: { 'aws:UserAgent': '*aws-cli*' } },
      { 'aws:UserAgent': 'aws-cli/2.15 Python' },
      true,
    ],
    [
      'aws:Referer StringNotLike',
      { StringNotLike: { 'aws:Referer': 'https://example.com/*' } },
      { 'aws:Referer': 'https://evil.test/' },
      true,
    ],
    // eslint-disable-next-line max-params -- it.each passes one argument per table column
  ])('%s', (_name, condition, context, expected) => {
    expect(listWith(condition)(context)).toBe(expected);
  });

  it('a Deny with a negated operator applies when the key is missing', () => {
    const bp = bucketPolicy(PUBLIC_READ, {
      Effect: 'Deny',
      Principal: '*',
      Action: 's3:GetObject',
      Resource: 'arn:aws:s3:::b/*',
      Condition: { StringNotLike: { 'aws:Referer': 'https://example.com/*' } },
    });
    expect(decide(req(ANON, 's3:GetObject', 'x'), { bucketPolicy: bp }).reason).toBe('explicit-deny');
    expect(
      decide(req(ANON, 's3:GetObject', { key: 'x', context: { 'aws:Referer': 'https://example.com/page' } }), {
        bucketPolicy: bp,
      }).allowed,
    ).toBe(true);
  });
});

describe('policy variables', () => {
  const home = (version: string) =>
    parseIdentityPolicy(
      JSON.stringify({
        Version: version,
        Statement: [{ Effect: 'Allow', Action: 's3:GetObject', Resource: 'arn:aws:s3:::b/home/${aws:username}/*' }],
      }),
    );

  it('substitute context values in 2012-10-17 resources', () => {
    const ip = home('2012-10-17');
    expect(
      decide(req(K1, 's3:GetObject', { key: 'home/alice/x', context: { 'aws:username': 'alice' } }), {
        identityPolicy: ip,
      }).allowed,
    ).toBe(true);
    expect(
      decide(req(K1, 's3:GetObject', { key: 'home/bob/x', context: { 'aws:username': 'alice' } }), {
        identityPolicy: ip,
      }).allowed,
    ).toBe(false);
  });

  it('match nothing when the variable has no value', () => {
    expect(
      decide(req(K1, 's3:GetObject', 'home/${aws:username}/x'), { identityPolicy: home('2012-10-17') }).allowed,
    ).toBe(false);
  });

  it('keep a substituted value literal (a * in the value is not a wildcard)', () => {
    const ip = home('2012-10-17');
    expect(
      decide(req(K1, 's3:GetObject', { key: 'home/a*/x', context: { 'aws:username': 'a*' } }), { identityPolicy: ip })
        .allowed,
    ).toBe(true);
    expect(
      decide(req(K1, 's3:GetObject', { key: 'home/abc/x', context: { 'aws:username': 'a*' } }), { identityPolicy: ip })
        .allowed,
    ).toBe(false);
  });

  it('are plain text in 2008-10-17 policies', () => {
    const ip = home('2008-10-17');
    expect(
      decide(req(K1, 's3:GetObject', { key: 'home/alice/x', context: { 'aws:username': 'alice' } }), {
        identityPolicy: ip,
      }).allowed,
    ).toBe(false);
    expect(decide(req(K1, 's3:GetObject', 'home/${aws:username}/x'), { identityPolicy: ip }).allowed).toBe(true);
  });

  it('work in condition values, with a default and with ${*} escapes', () => {
    const ip = identityPolicy({
      Effect: 'Allow',
      Action: 's3:ListBucket',
      Resource: 'arn:aws:s3:::b',
      Condition: { StringLike: { 's3:prefix': ["${aws:username, 'guest'}/${*}*"] } },
    });
    const allowed = (context: ContextInput) =>
      decide(req(K1, 's3:ListBucket', { key: undefined, context: context }), { identityPolicy: ip }).allowed;
    expect(allowed({ 'aws:username': 'alice', 's3:prefix': 'alice/*x' })).toBe(true);
    expect(allowed({ 'aws:username': 'alice', 's3:prefix': 'alice/x' })).toBe(false);
    expect(allowed({ 's3:prefix': 'guest/*' })).toBe(true);
  });
});
