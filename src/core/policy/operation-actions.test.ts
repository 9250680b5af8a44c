import { describe, expect, it } from 'vitest';
import { authorizationChecks, S3_ACTION_FOR_OPERATION } from './operation-actions.js';
import { actionLevel, actionResourceArn, canonicalAction, S3_ACTIONS } from './s3-actions.js';

describe('S3_ACTION_FOR_OPERATION', () => {
  it.each(Object.entries(S3_ACTION_FOR_OPERATION))('%s names known actions of its level', (_op, entry) => {
    expect(S3_ACTIONS.get(entry.action)).toBe(entry.level);
    for (const action of [
      entry.versionedAction,
      ...(entry.alsoRequires ?? []).flatMap((a) => [a.action, a.versionedAction]),
    ]) {
      if (action !== undefined) expect(S3_ACTIONS.get(action)).toBe(entry.level);
    }
    if (entry.source !== undefined) {
      expect(S3_ACTIONS.get(entry.source.action)).toBe('object');
      expect(S3_ACTIONS.get(entry.source.versionedAction)).toBe('object');
    }
  });

  it.each([
    ['HeadBucket', 's3:ListBucket'],
    ['ListObjectsV2', 's3:ListBucket'],
    ['ListObjectVersions', 's3:ListBucketVersions'],
    ['ListMultipartUploads', 's3:ListBucketMultipartUploads'],
    ['ListParts', 's3:ListMultipartUploadParts'],
    ['HeadObject', 's3:GetObject'],
    ['UploadPart', 's3:PutObject'],
    ['CompleteMultipartUpload', 's3:PutObject'],
    ['DeleteBucketCors', 's3:PutBucketCORS'],
    ['DeleteBucketEncryption', 's3:PutEncryptionConfiguration'],
    ['DeleteBucketTagging', 's3:PutBucketTagging'],
    ['DeleteBucketLifecycle', 's3:PutLifecycleConfiguration'],
    ['GetObjectLockConfiguration', 's3:GetBucketObjectLockConfiguration'],
    ['ListBuckets', 's3:ListAllMyBuckets'],
  ])('%s is authorized by %s', (op, action) => {
    expect(S3_ACTION_FOR_OPERATION[op]?.action).toBe(action);
  });
});

describe('authorizationChecks', () => {
  it('uses the version-specific action when a versionId is named', () => {
    expect(authorizationChecks('GetObject')).toEqual([{ action: 's3:GetObject', on: 'target' }]);
    expect(authorizationChecks('GetObject', { versionId: true })).toEqual([
      { action: 's3:GetObjectVersion', on: 'target' },
    ]);
    expect(authorizationChecks('DeleteObjects', { versionId: true })).toEqual([
      { action: 's3:DeleteObjectVersion', on: 'target' },
    ]);
    expect(authorizationChecks('PutObject', { versionId: true })).toEqual([{ action: 's3:PutObject', on: 'target' }]);
  });

  it('checks the copy source separately', () => {
    expect(authorizationChecks('CopyObject', { sourceVersionId: true })).toEqual([
      { action: 's3:PutObject', on: 'target' },
      { action: 's3:GetObjectVersion', on: 'copy-source' },
    ]);
    expect(authorizationChecks('UploadPartCopy')).toEqual([
      { action: 's3:PutObject', on: 'target' },
      { action: 's3:GetObject', on: 'copy-source' },
    ]);
  });

  it('adds the actions S3 requires for tagging, lock headers and governance bypass', () => {
    expect(
      authorizationChecks('PutObject', { tagging: true, retention: true, legalHold: true })?.map((c) => c.action),
    ).toEqual(['s3:PutObject', 's3:PutObjectTagging', 's3:PutObjectRetention', 's3:PutObjectLegalHold']);
    expect(authorizationChecks('UploadPart', { tagging: true })?.map((c) => c.action)).toEqual(['s3:PutObject']);
    expect(authorizationChecks('DeleteObject', { bypassGovernance: true })?.map((c) => c.action)).toEqual([
      's3:DeleteObject',
      's3:BypassGovernanceRetention',
    ]);
  });

  it('needs both actions for GetObjectAttributes', () => {
    expect(authorizationChecks('GetObjectAttributes', { versionId: true })?.map((c) => c.action)).toEqual([
      's3:GetObjectVersionAttributes',
      's3:GetObjectVersion',
    ]);
  });

  it('returns undefined for an unknown operation, including inherited property names', () => {
    expect(authorizationChecks('Frobnicate')).toBeUndefined();
    expect(authorizationChecks('toString')).toBeUndefined();
    expect(authorizationChecks('__proto__')).toBeUndefined();
  });
});

describe('actions and resources', () => {
  it('knows actions case-insensitively', () => {
    expect(canonicalAction('S3:GETOBJECT')).toBe('s3:GetObject');
    expect(canonicalAction('s3:Frobnicate')).toBeUndefined();
  });

  it('builds the resource ARN for each level', () => {
    expect(actionResourceArn('s3:GetObject', 'b', 'dir/k')).toBe('arn:aws:s3:::b/dir/k');
    expect(actionResourceArn('s3:ListBucket', 'b')).toBe('arn:aws:s3:::b');
    expect(actionResourceArn('s3:ListBucket', 'b', 'ignored')).toBe('arn:aws:s3:::b');
    expect(actionResourceArn('s3:ListAllMyBuckets', '')).toBe('*');
    expect(actionLevel('s3:NotAThing', true)).toBe('object');
    expect(actionLevel('s3:NotAThing', false)).toBe('bucket');
  });
});
