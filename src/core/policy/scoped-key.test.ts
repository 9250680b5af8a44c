import { describe, expect, it } from 'vitest';
import { evaluate, type AuthzRequest } from './evaluate.js';
import { parseBucketPolicy } from './policy-document.js';
import { compileScope, parseIdentityPolicy, scopePolicyJson, type KeyScope } from './scoped-key.js';
import type { ContextInput } from './context.js';
import { codeOf } from '../../../test/helpers/error-code.js';

const KEY = { type: 'key', accessKeyId: 'AKSCOPED' } as const;

function allowedFor(scope: KeyScope) {
  const identityPolicy = compileScope(scope);
  return (action: string, opts: { bucket?: string; key?: string; context?: ContextInput } = {}): boolean => {
    const request: AuthzRequest = {
      action,
      bucket: opts.bucket ?? 'media',
      principal: KEY,
      context: opts.context ?? {},
      ...(opts.key === undefined ? {} : { key: opts.key }),
    };
    return evaluate(request, { identityPolicy, isRoot: false }).allowed;
  };
}

describe('compileScope', () => {
  const photos = allowedFor({ bucket: 'media', prefix: 'photos/' });

  it.each([
    ['s3:GetObject', 'photos/a.jpg', true],
    ['s3:PutObject', 'photos/2024/b.jpg', true],
    ['s3:DeleteObject', 'photos/a.jpg', true],
    ['s3:AbortMultipartUpload', 'photos/big.mov', true],
    ['s3:ListMultipartUploadParts', 'photos/big.mov', true],
    ['s3:GetObject', 'docs/a.txt', false],
    ['s3:GetObject', 'photos', false],
    ['s3:GetObject', 'Photos/a.jpg', false],
    ['s3:PutObject', 'other/x', false],
    ['s3:GetObjectTagging', 'photos/a.jpg', false],
    ['s3:DeleteObjectVersion', 'photos/a.jpg', false],
  ])('%s on %s -> %s', (action, key, expected) => {
    expect(photos(action, { key })).toBe(expected);
  });

  it('grants nothing in another bucket', () => {
    expect(photos('s3:GetObject', { bucket: 'other', key: 'photos/a.jpg' })).toBe(false);
    expect(photos('s3:ListBucket', { bucket: 'other', context: { 's3:prefix': 'photos/' } })).toBe(false);
  });

  it.each<[string, ContextInput, boolean]>([
    ['the scope prefix', { 's3:prefix': 'photos/' }, true],
    ['a narrower prefix', { 's3:prefix': 'photos/2024/' }, true],
    ['the bucket root', { 's3:prefix': '' }, false],
    ['no prefix at all', {}, false],
    ['the prefix without its slash', { 's3:prefix': 'photos' }, false],
    ['another prefix', { 's3:prefix': 'docs/' }, false],
  ])('ListBucket with %s -> %s', (_name, context, expected) => {
    expect(photos('s3:ListBucket', { context })).toBe(expected);
  });

  it('allows GetBucketLocation, which clients call first', () => {
    expect(photos('s3:GetBucketLocation')).toBe(true);
    expect(photos('s3:GetBucketVersioning')).toBe(false);
  });

  it('a scope without a prefix covers the whole bucket and unconditioned listing', () => {
    const whole = allowedFor({ bucket: 'media' });
    expect(whole('s3:GetObject', { key: 'anything/at/all' })).toBe(true);
    expect(whole('s3:ListBucket')).toBe(true);
    expect(whole('s3:ListBucket', { context: { 's3:prefix': 'x/' } })).toBe(true);
  });

  it('grants only the listed actions', () => {
    const readOnly = allowedFor({ bucket: 'media', prefix: 'photos/', actions: ['GetObject'] });
    expect(readOnly('s3:GetObject', { key: 'photos/a' })).toBe(true);
    expect(readOnly('s3:PutObject', { key: 'photos/a' })).toBe(false);
    expect(readOnly('s3:DeleteObject', { key: 'photos/a' })).toBe(false);
    expect(readOnly('s3:AbortMultipartUpload', { key: 'photos/a' })).toBe(false);
    expect(readOnly('s3:ListBucket', { context: { 's3:prefix': 'photos/' } })).toBe(false);
    const listOnly = allowedFor({ bucket: 'media', prefix: 'photos/', actions: ['ListBucket'] });
    expect(listOnly('s3:ListBucket', { context: { 's3:prefix': 'photos/' } })).toBe(true);
    expect(listOnly('s3:GetObject', { key: 'photos/a' })).toBe(false);
  });

  it('matches wildcard characters in the prefix literally', () => {
    const odd = allowedFor({ bucket: 'media', prefix: 'a*b?/${x}/' });
    expect(odd('s3:GetObject', { key: 'a*b?/${x}/file' })).toBe(true);
    expect(odd('s3:GetObject', { key: 'aXXbY/${x}/file' })).toBe(false);
    expect(odd('s3:ListBucket', { context: { 's3:prefix': 'a*b?/${x}/' } })).toBe(true);
    expect(odd('s3:ListBucket', { context: { 's3:prefix': 'aZbZ/${x}/' } })).toBe(false);
  });

  it('is still overridden by a bucket-policy Deny', () => {
    const identityPolicy = compileScope({ bucket: 'media', prefix: 'photos/' });
    const bucketPolicy = parseBucketPolicy(
      JSON.stringify({
        Statement: [{ Effect: 'Deny', Principal: '*', Action: 's3:DeleteObject', Resource: 'arn:aws:s3:::media/*' }],
      }),
      'media',
    );
    const request: AuthzRequest = {
      action: 's3:DeleteObject',
      bucket: 'media',
      key: 'photos/a',
      principal: KEY,
      context: {},
    };
    expect(evaluate(request, { identityPolicy, bucketPolicy, isRoot: false }).reason).toBe('explicit-deny');
  });

  it('produces the documented JSON', () => {
    expect(scopePolicyJson({ bucket: 'media', prefix: 'photos/', actions: ['GetObject', 'ListBucket'] })).toEqual({
      Version: '2012-10-17',
      Statement: [
        { Sid: 'ScopeBucketLocation', Effect: 'Allow', Action: 's3:GetBucketLocation', Resource: 'arn:aws:s3:::media' },
        { Sid: 'ScopeObjects', Effect: 'Allow', Action: ['s3:GetObject'], Resource: 'arn:aws:s3:::media/photos/*' },
        {
          Sid: 'ScopeList',
          Effect: 'Allow',
          Action: 's3:ListBucket',
          Resource: 'arn:aws:s3:::media',
          Condition: { StringLike: { 's3:prefix': 'photos/*' } },
        },
      ],
    });
  });

  it.each<[string, KeyScope, string]>([
    ['an invalid bucket name', { bucket: 'Not_A_Bucket' }, 'InvalidBucketName'],
    ['an empty action list', { bucket: 'media', actions: [] }, 'InvalidArgument'],
    ['an unknown action', { bucket: 'media', actions: ['GetObject', 'Frobnicate' as 'GetObject'] }, 'InvalidArgument'],
  ])('refuses %s', (_name, scope, code) => {
    expect(codeOf(() => compileScope(scope))).toBe(code);
  });
});

describe('parseIdentityPolicy', () => {
  const doc = (statement: Record<string, unknown>) => JSON.stringify({ Version: '2012-10-17', Statement: [statement] });

  it('accepts resources in any bucket, "*" and arn:aws:s3:::*', () => {
    const parsed = parseIdentityPolicy(
      doc({
        Effect: 'Allow',
        Action: 's3:*',
        Resource: ['arn:aws:s3:::one/*', 'arn:aws:s3:::two', 'arn:aws:s3:::*', '*'],
      }),
    );
    expect(parsed.kind).toBe('identity');
    expect(parsed.statements[0]?.principal).toBeUndefined();
  });

  it('accepts an object action on a bucket ARN (IAM only warns)', () => {
    expect(
      codeOf(() => parseIdentityPolicy(doc({ Effect: 'Allow', Action: 's3:PutObject', Resource: 'arn:aws:s3:::one' }))),
    ).toBeUndefined();
  });

  it.each<[string, Record<string, unknown>]>([
    ['a Principal', { Effect: 'Allow', Principal: '*', Action: 's3:*', Resource: '*' }],
    ['a NotPrincipal', { Effect: 'Deny', NotPrincipal: { AWS: 'x' }, Action: 's3:*', Resource: '*' }],
    ['an unknown action', { Effect: 'Allow', Action: 's3:Frobnicate', Resource: '*' }],
    ['a non-S3 resource', { Effect: 'Allow', Action: 's3:*', Resource: 'arn:aws:iam::123456789012:user/x' }],
    ['a missing Resource', { Effect: 'Allow', Action: 's3:*' }],
    [
      'a bad condition',
      { Effect: 'Allow', Action: 's3:*', Resource: '*', Condition: { IpAddress: { 'aws:SourceIp': 'nope' } } },
    ],
  ])('refuses %s with MalformedPolicy', (_name, statement) => {
    expect(codeOf(() => parseIdentityPolicy(doc(statement)))).toBe('MalformedPolicy');
  });

  it('refuses text that is not JSON', () => {
    expect(codeOf(() => parseIdentityPolicy('allow all'))).toBe('MalformedPolicy');
  });
});
