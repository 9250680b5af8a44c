// The simulator against the same evaluate() the S3 plane uses: key scopes and inline policies, bucket-policy Deny,
// and which statement decided.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { codeOf } from '../../../test/helpers/error-code.js';
import { MetadataStore } from '../../storage/db/metadata-store.js';
import { simulate } from './access-key-permissions.js';
import { AccessKeyService } from './access-key-service.js';
import { BucketService } from '../bucket-service.js';

let dir: string;
let meta: MetadataStore;
let buckets: BucketService;
let keys: AccessKeyService;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'access-key-sim-'));
  meta = MetadataStore.open(join(dir, 'meta.db'));
  buckets = new BucketService({ meta, region: 'us-east-1' });
  keys = new AccessKeyService({
    meta,
    buckets,
    encryptionSecret: 'simulation-test-secret-0123456789abcdef',
    rootAccessKeyId: 'ROOTROOTROOTROOT',
  });
  buckets.create('media');
});

afterEach(async () => {
  await meta.close();
  rmSync(dir, { recursive: true, force: true });
});

const scoped = (): string =>
  keys.create({ name: 's', permissions: { scope: { bucket: 'media', prefix: 'photos/' } } }, 'admin').key.accessKeyId;

describe('simulate with a prefix scope', () => {
  it('allows the scope and names the compiled statement that allowed it', () => {
    const id = scoped();
    expect(keys.simulate(id, { action: 's3:GetObject', bucket: 'media', key: 'photos/a.jpg' })).toEqual({
      decision: 'allow',
      reason: 'allowed',
      statement: { source: 'key', sid: 'ScopeObjects', index: 1 },
    });
    // The s3: prefix is optional and action names are case-insensitive.
    expect(keys.simulate(id, { action: 'putobject', bucket: 'media', key: 'photos/b.jpg' }).decision).toBe('allow');
  });

  it('denies implicitly outside the scope', () => {
    const id = scoped();
    const deny = { decision: 'deny', reason: 'implicit-deny' };
    expect(keys.simulate(id, { action: 's3:GetObject', bucket: 'media', key: 'docs/a.txt' })).toEqual(deny);
    expect(keys.simulate(id, { action: 's3:GetObject', bucket: 'other-bucket', key: 'photos/a.jpg' })).toEqual(deny);
    expect(keys.simulate(id, { action: 's3:ListAllMyBuckets', bucket: '' })).toEqual(deny);
    expect(keys.simulate(id, { action: 's3:PutBucketPolicy', bucket: 'media' })).toEqual(deny);
  });

  it('reads the key of a list action as the listing prefix (s3:prefix)', () => {
    const id = scoped();
    expect(keys.simulate(id, { action: 's3:ListBucket', bucket: 'media', key: 'photos/2024/' })).toEqual({
      decision: 'allow',
      reason: 'allowed',
      statement: { source: 'key', sid: 'ScopeList', index: 2 },
    });
    expect(keys.simulate(id, { action: 's3:ListBucket', bucket: 'media', key: 'docs/' }).decision).toBe('deny');
    expect(keys.simulate(id, { action: 's3:ListBucket', bucket: 'media' }).decision).toBe('deny');
  });

  it('lets a bucket-policy Deny win over the key, and reports the bucket statement', () => {
    const id = scoped();
    buckets.putConfig(
      'media',
      'policy',
      JSON.stringify({
        Version: '2012-10-17',
        Statement: [
          {
            Sid: 'Public',
            Effect: 'Allow',
            Principal: '*',
            Action: 's3:GetObject',
            Resource: 'arn:aws:s3:::media/public/*',
          },
          {
            Sid: 'NoRaw',
            Effect: 'Deny',
            Principal: { AWS: id },
            Action: 's3:GetObject',
            Resource: 'arn:aws:s3:::media/photos/raw/*',
          },
        ],
      }),
    );
    expect(keys.simulate(id, { action: 's3:GetObject', bucket: 'media', key: 'photos/raw/x.dng' })).toEqual({
      decision: 'deny',
      reason: 'explicit-deny',
      statement: { source: 'bucket', sid: 'NoRaw', index: 1 },
    });
    expect(keys.simulate(id, { action: 's3:GetObject', bucket: 'media', key: 'photos/a.jpg' }).decision).toBe('allow');
    // A bucket-policy Allow alone grants a scoped key nothing: key policy AND bucket policy.
    expect(keys.simulate(id, { action: 's3:GetObject', bucket: 'media', key: 'public/a.jpg' })).toEqual({
      decision: 'deny',
      reason: 'implicit-deny',
    });
  });
});

describe('simulate with an inline policy', () => {
  it('reports the key statement of an explicit Deny, which beats its Allow', () => {
    const id = keys.create(
      {
        name: 'p',
        permissions: {
          policy: {
            Version: '2012-10-17',
            Statement: [
              { Sid: 'All', Effect: 'Allow', Action: 's3:*', Resource: ['arn:aws:s3:::media', 'arn:aws:s3:::media/*'] },
              { Effect: 'Deny', Action: 's3:Delete*', Resource: 'arn:aws:s3:::media/*' },
            ],
          },
        },
      },
      'admin',
    ).key.accessKeyId;
    expect(keys.simulate(id, { action: 's3:DeleteObject', bucket: 'media', key: 'a' })).toEqual({
      decision: 'deny',
      reason: 'explicit-deny',
      statement: { source: 'key', index: 1 },
    });
    expect(keys.simulate(id, { action: 's3:GetBucketVersioning', bucket: 'media' })).toEqual({
      decision: 'allow',
      reason: 'allowed',
      statement: { source: 'key', sid: 'All', index: 0 },
    });
  });

  it('evaluates conditions against the context given', () => {
    const id = keys.create(
      {
        name: 'c',
        permissions: {
          policy: {
            Statement: [
              {
                Effect: 'Allow',
                Action: 's3:GetObject',
                Resource: '*',
                Condition: { IpAddress: { 'aws:SourceIp': '10.0.0.0/8' } },
              },
            ],
          },
        },
      },
      'admin',
    ).key.accessKeyId;
    const request = { action: 's3:GetObject', bucket: 'media', key: 'a' };
    expect(keys.simulate(id, request).decision).toBe('deny');
    expect(keys.simulate(id, { ...request, context: { 'aws:SourceIp': '10.1.2.3' } }).decision).toBe('allow');
  });

  it('denies everything to a key without permissions', () => {
    const id = keys.create({ name: 'n' }, 'admin').key.accessKeyId;
    expect(keys.simulate(id, { action: 's3:GetObject', bucket: 'media', key: 'a' })).toEqual({
      decision: 'deny',
      reason: 'implicit-deny',
    });
  });
});

describe('simulate input checks', () => {
  it('names the field that is wrong', () => {
    const id = scoped();
    const message = (request: Parameters<AccessKeyService['simulate']>[1]): string => {
      try {
        keys.simulate(id, request);
      } catch (err) {
        return `${(err as { code: string }).code} ${(err as Error).message}`;
      }
      return 'no error';
    };
    expect(message({ action: 's3:Frobnicate', bucket: 'media' })).toMatch(/^ValidationError action:/);
    expect(message({ action: 's3:Get*', bucket: 'media', key: 'a' })).toMatch(/^ValidationError action:/);
    expect(message({ action: 's3:GetObject', bucket: 'Not_A_Bucket', key: 'a' })).toMatch(/^ValidationError bucket:/);
    expect(message({ action: 's3:GetObject', bucket: 'media' })).toMatch(/^ValidationError key:/);
  });

  it('fails closed on a bucket policy that no longer parses, as the S3 plane does', () => {
    expect(
      simulate({
        accessKeyId: 'K',
        identityPolicy: undefined,
        bucketPolicy: 'unreadable',
        action: 's3:GetObject',
        bucket: 'media',
        key: 'a',
        now: new Date(),
      }),
    ).toEqual({ decision: 'deny', reason: 'implicit-deny' });
    expect(
      codeOf(() => keys.simulate(scoped(), { action: 's3:GetObject', bucket: 'nosuchbucket', key: 'photos/a' })),
    ).toBeUndefined();
  });
});
