/* eslint-disable max-lines -- one server fixture for the bucket configuration documents and their limits */
// Bucket configuration documents through @aws-sdk/client-s3 and minio-js against the real server: tagging,
// default encryption, lifecycle and CORS (round trips, S3's limits and error codes, the "never set" errors).
// Policy, versioning, ACLs and the fixed answers are in s3-bucket-config-access.test.ts.

import {
  DeleteBucketCorsCommand,
  DeleteBucketEncryptionCommand,
  DeleteBucketLifecycleCommand,
  DeleteBucketTaggingCommand,
  GetBucketCorsCommand,
  GetBucketEncryptionCommand,
  GetBucketLifecycleConfigurationCommand,
  GetBucketTaggingCommand,
  PutBucketCorsCommand,
  PutBucketEncryptionCommand,
  PutBucketLifecycleConfigurationCommand,
  PutBucketTaggingCommand,
  type CORSRule,
  type LifecycleRule,
  type Tag,
} from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { rawRequest } from '../helpers/signed-http.js';
import { useStore } from '../helpers/store.js';
import { expectS3Error, failure } from './s3-assert.js';

const store = useStore({ tmpfs: true });

const newBucket = (): Promise<string> => store.bucket('cfg');

const MISSING = 'no-such-bucket-cfg-0';

describe('bucket tagging', () => {
  const putTags = (Bucket: string, TagSet: Tag[]) =>
    store.s3.send(new PutBucketTaggingCommand({ Bucket, Tagging: { TagSet } }));

  it('round-trips a tag set in the order given, replaces it on the next put, and deletes it', async () => {
    const bucket = await newBucket();
    await expectS3Error(store.s3.send(new GetBucketTaggingCommand({ Bucket: bucket })), 'NoSuchTagSet', 404);
    const tags = [
      { Key: 'team', Value: 'storage' },
      { Key: 'cost center', Value: 'A-1 :/=+-@_.' },
      { Key: 'empty', Value: '' },
    ];
    const put = await putTags(bucket, tags);
    expect(put.$metadata.httpStatusCode).toBe(200); // minio-js accepts only 200 here (docs/decisions.md)
    expect((await store.s3.send(new GetBucketTaggingCommand({ Bucket: bucket }))).TagSet).toEqual(tags);
    await putTags(bucket, [{ Key: 'only', Value: 'one' }]);
    expect((await store.s3.send(new GetBucketTaggingCommand({ Bucket: bucket }))).TagSet).toEqual([
      { Key: 'only', Value: 'one' },
    ]);
    const deleted = await store.s3.send(new DeleteBucketTaggingCommand({ Bucket: bucket }));
    expect(deleted.$metadata.httpStatusCode).toBe(204);
    await expectS3Error(store.s3.send(new GetBucketTaggingCommand({ Bucket: bucket })), 'NoSuchTagSet', 404);
  });

  it('accepts 50 tags and refuses 51 with InvalidTag, keeping the previous set', async () => {
    const bucket = await newBucket();
    const many = (n: number) => Array.from({ length: n }, (_, i) => ({ Key: `k${i}`, Value: `v${i}` }));
    await putTags(bucket, many(50));
    await expectS3Error(putTags(bucket, many(51)), 'InvalidTag', 400);
    expect((await store.s3.send(new GetBucketTaggingCommand({ Bucket: bucket }))).TagSet).toHaveLength(50);
  });

  it.each([
    ['a key with a character outside the allowed set', [{ Key: 'a*b', Value: 'v' }]],
    ['a value with a character outside the allowed set', [{ Key: 'k', Value: 'v<' }]],
    ['the reserved aws: prefix', [{ Key: 'aws:cloudformation', Value: 'v' }]],
    ['the reserved prefix in another case', [{ Key: 'AWS:x', Value: 'v' }]],
    ['a key over 128 characters', [{ Key: 'k'.repeat(129), Value: 'v' }]],
    ['a value over 256 characters', [{ Key: 'k', Value: 'v'.repeat(257) }]],
    ['an empty key', [{ Key: '', Value: 'v' }]],
    [
      'the same key twice',
      [
        { Key: 'k', Value: '1' },
        { Key: 'k', Value: '2' },
      ],
    ],
  ])('refuses %s with InvalidTag', async (_why, tags) => {
    const bucket = await newBucket();
    await expectS3Error(putTags(bucket, tags), 'InvalidTag', 400);
    await expectS3Error(store.s3.send(new GetBucketTaggingCommand({ Bucket: bucket })), 'NoSuchTagSet', 404);
  });

  it('answers MalformedXML for a Tagging document without a TagSet, NoSuchBucket for a missing bucket', async () => {
    const bucket = await newBucket();
    const res = await rawRequest(store.server, {
      method: 'PUT',
      path: `/${bucket}?tagging`,
      body: '<Tagging><Tag/></Tagging>',
      sign: true,
    });
    expect({ status: res.status, code: res.code }).toEqual({ status: 400, code: 'MalformedXML' });
    await expectS3Error(putTags(MISSING, [{ Key: 'k', Value: 'v' }]), 'NoSuchBucket', 404);
    await expectS3Error(store.s3.send(new GetBucketTaggingCommand({ Bucket: MISSING })), 'NoSuchBucket', 404);
    await expectS3Error(store.s3.send(new DeleteBucketTaggingCommand({ Bucket: MISSING })), 'NoSuchBucket', 404);
  });

  it('works with minio-js', async () => {
    const bucket = await newBucket();
    await store.minio.setBucketTagging(bucket, { env: 'prod', owner: 'me' });
    const tags = await store.minio.getBucketTagging(bucket);
    expect(tags).toEqual([
      { Key: 'env', Value: 'prod' },
      { Key: 'owner', Value: 'me' },
    ]);
    await store.minio.removeBucketTagging(bucket);
    await expectS3Error(store.s3.send(new GetBucketTaggingCommand({ Bucket: bucket })), 'NoSuchTagSet', 404);
  });
});

describe('bucket default encryption', () => {
  const putSse = (
    Bucket: string,
    SSEAlgorithm: string,
    extra: { BucketKeyEnabled?: boolean; KMSMasterKeyID?: string } = {},
  ) =>
    store.s3.send(
      new PutBucketEncryptionCommand({
        Bucket,
        ServerSideEncryptionConfiguration: {
          Rules: [
            {
              ApplyServerSideEncryptionByDefault: {
                SSEAlgorithm: SSEAlgorithm as 'AES256',
                ...(extra.KMSMasterKeyID ? { KMSMasterKeyID: extra.KMSMasterKeyID } : {}),
              },
              ...(extra.BucketKeyEnabled !== undefined ? { BucketKeyEnabled: extra.BucketKeyEnabled } : {}),
            },
          ],
        },
      }),
    );

  it('round-trips AES256 (with BucketKeyEnabled) and removes it', async () => {
    const bucket = await newBucket();
    await expectS3Error(
      store.s3.send(new GetBucketEncryptionCommand({ Bucket: bucket })),
      'ServerSideEncryptionConfigurationNotFoundError',
      404,
    );
    expect((await putSse(bucket, 'AES256', { BucketKeyEnabled: true })).$metadata.httpStatusCode).toBe(200);
    const got = await store.s3.send(new GetBucketEncryptionCommand({ Bucket: bucket }));
    expect(got.ServerSideEncryptionConfiguration?.Rules).toEqual([
      { ApplyServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' }, BucketKeyEnabled: true },
    ]);
    expect((await store.s3.send(new DeleteBucketEncryptionCommand({ Bucket: bucket }))).$metadata.httpStatusCode).toBe(
      204,
    );
    await expectS3Error(
      store.s3.send(new GetBucketEncryptionCommand({ Bucket: bucket })),
      'ServerSideEncryptionConfigurationNotFoundError',
      404,
    );
  });

  it('refuses aws:kms and aws:kms:dsse with a clear NotImplemented instead of ignoring them', async () => {
    const bucket = await newBucket();
    for (const algorithm of ['aws:kms', 'aws:kms:dsse']) {
      const err = await expectS3Error(putSse(bucket, algorithm), 'NotImplemented', 501);
      expect((err as { message?: string }).message).toMatch(/AES256/);
    }
    await expectS3Error(
      store.s3.send(new GetBucketEncryptionCommand({ Bucket: bucket })),
      'ServerSideEncryptionConfigurationNotFoundError',
      404,
    );
  });

  it('refuses a KMS key id with AES256 (InvalidArgument) and an unknown algorithm (MalformedXML)', async () => {
    const bucket = await newBucket();
    await expectS3Error(
      putSse(bucket, 'AES256', { KMSMasterKeyID: 'arn:aws:kms:us-east-1:1:key/x' }),
      'InvalidArgument',
      400,
    );
    await expectS3Error(putSse(bucket, 'ROT13'), 'MalformedXML', 400);
    await expectS3Error(putSse(MISSING, 'AES256'), 'NoSuchBucket', 404);
  });

  it('works with minio-js', async () => {
    const bucket = await newBucket();
    await store.minio.setBucketEncryption(bucket, {
      Rule: [{ ApplyServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
    });
    const got = (await store.minio.getBucketEncryption(bucket)) as { Rule: unknown[] };
    expect(JSON.stringify(got)).toContain('AES256');
    await store.minio.removeBucketEncryption(bucket);
    await expectS3Error(
      store.s3.send(new GetBucketEncryptionCommand({ Bucket: bucket })),
      'ServerSideEncryptionConfigurationNotFoundError',
      404,
    );
  });
});

describe('bucket lifecycle configuration', () => {
  const putRules = (Bucket: string, Rules: LifecycleRule[]) =>
    store.s3.send(new PutBucketLifecycleConfigurationCommand({ Bucket, LifecycleConfiguration: { Rules } }));
  const getRules = async (Bucket: string) =>
    (await store.s3.send(new GetBucketLifecycleConfigurationCommand({ Bucket }))).Rules;

  const FULL: LifecycleRule[] = [
    {
      ID: 'logs',
      Status: 'Enabled',
      Filter: { Prefix: 'logs/' },
      Expiration: { Days: 365 },
      Transitions: [
        { Days: 30, StorageClass: 'STANDARD_IA' },
        { Days: 90, StorageClass: 'GLACIER' },
        { Days: 180, StorageClass: 'DEEP_ARCHIVE' },
      ],
      NoncurrentVersionTransitions: [{ NoncurrentDays: 30, StorageClass: 'STANDARD_IA', NewerNoncurrentVersions: 2 }],
      NoncurrentVersionExpiration: { NoncurrentDays: 60, NewerNoncurrentVersions: 3 },
      AbortIncompleteMultipartUpload: { DaysAfterInitiation: 7 },
    },
    {
      ID: 'tagged-and-sized',
      Status: 'Disabled',
      Filter: {
        And: {
          Prefix: 'data/',
          Tags: [
            { Key: 'class', Value: 'temp' },
            { Key: 'owner', Value: 'ci' },
          ],
          ObjectSizeGreaterThan: 1024,
          ObjectSizeLessThan: 1048576,
        },
      },
      Expiration: { Date: new Date('2030-01-01T00:00:00.000Z') },
    },
    { ID: 'one-tag', Status: 'Enabled', Filter: { Tag: { Key: 'expire', Value: 'soon' } }, Expiration: { Days: 1 } },
    {
      ID: 'size-only',
      Status: 'Enabled',
      Filter: { ObjectSizeGreaterThan: 0 },
      NoncurrentVersionExpiration: { NoncurrentDays: 1 },
    },
    { ID: 'markers', Status: 'Enabled', Filter: {}, Expiration: { ExpiredObjectDeleteMarker: true } },
  ];

  it('round-trips the full rule model and deletes it', async () => {
    const bucket = await newBucket();
    await expectS3Error(getRules(bucket), 'NoSuchLifecycleConfiguration', 404);
    const put = await putRules(bucket, FULL);
    expect(put.$metadata.httpStatusCode).toBe(200);
    const rules = await getRules(bucket);
    // The SDK omits empty optionals; an empty Filter comes back as {} or absent Prefix.
    expect(rules).toEqual(FULL.map((r) => (r.ID === 'markers' ? { ...r, Filter: expect.anything() } : r)));
    expect((await store.s3.send(new DeleteBucketLifecycleCommand({ Bucket: bucket }))).$metadata.httpStatusCode).toBe(
      204,
    );
    await expectS3Error(getRules(bucket), 'NoSuchLifecycleConfiguration', 404);
  });

  it('gives a rule without an ID a generated one, and accepts the deprecated rule-level Prefix', async () => {
    const bucket = await newBucket();
    await putRules(bucket, [{ Status: 'Enabled', Prefix: 'tmp/', Expiration: { Days: 3 } }]);
    const [rule] = (await getRules(bucket)) ?? [];
    expect(rule?.ID).toMatch(/^\S{1,255}$/);
    expect(rule).toMatchObject({ Status: 'Enabled', Prefix: 'tmp/', Expiration: { Days: 3 } });
  });

  it.each<[string, LifecycleRule[], string]>([
    ['Days 0', [{ ID: 'a', Status: 'Enabled', Filter: {}, Expiration: { Days: 0 } }], 'InvalidArgument'],
    [
      'a Date not at midnight UTC',
      [{ ID: 'a', Status: 'Enabled', Filter: {}, Expiration: { Date: new Date('2030-01-01T12:00:00Z') } }],
      'InvalidArgument',
    ],
    ['a rule without an action', [{ ID: 'a', Status: 'Enabled', Filter: { Prefix: 'x' } }], 'InvalidRequest'],
    [
      'two rules with one ID',
      [
        { ID: 'same', Status: 'Enabled', Filter: { Prefix: 'a' }, Expiration: { Days: 1 } },
        { ID: 'same', Status: 'Enabled', Filter: { Prefix: 'b' }, Expiration: { Days: 1 } },
      ],
      'InvalidArgument',
    ],
    [
      'an ID over 255 characters',
      [{ ID: 'i'.repeat(256), Status: 'Enabled', Filter: {}, Expiration: { Days: 1 } }],
      'InvalidArgument',
    ],
    [
      'ExpiredObjectDeleteMarker with Days',
      [{ ID: 'a', Status: 'Enabled', Filter: {}, Expiration: { Days: 1, ExpiredObjectDeleteMarker: true } }],
      'MalformedXML',
    ],
    [
      'an unknown Status',
      [{ ID: 'a', Status: 'On' as 'Enabled', Filter: {}, Expiration: { Days: 1 } }],
      'MalformedXML',
    ],
    [
      'AbortIncompleteMultipartUpload with a tag filter',
      [
        {
          ID: 'a',
          Status: 'Enabled',
          Filter: { Tag: { Key: 'k', Value: 'v' } },
          AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 },
        },
      ],
      'InvalidRequest',
    ],
    [
      'STANDARD_IA before 30 days',
      [{ ID: 'a', Status: 'Enabled', Filter: {}, Transitions: [{ Days: 10, StorageClass: 'STANDARD_IA' }] }],
      'InvalidArgument',
    ],
    [
      'a transition class Store does not offer',
      [{ ID: 'a', Status: 'Enabled', Filter: {}, Transitions: [{ Days: 10, StorageClass: 'ONEZONE_IA' }] }],
      'InvalidStorageClass',
    ],
    [
      'an unknown transition class',
      [{ ID: 'a', Status: 'Enabled', Filter: {}, Transitions: [{ Days: 10, StorageClass: 'COLD' as 'GLACIER' }] }],
      'MalformedXML',
    ],
    [
      'Expiration Days not after Transition Days',
      [
        {
          ID: 'a',
          Status: 'Enabled',
          Filter: {},
          Expiration: { Days: 30 },
          Transitions: [{ Days: 30, StorageClass: 'GLACIER' }],
        },
      ],
      'InvalidArgument',
    ],
    [
      'NewerNoncurrentVersions over 100',
      [
        {
          ID: 'a',
          Status: 'Enabled',
          Filter: {},
          NoncurrentVersionExpiration: { NoncurrentDays: 1, NewerNoncurrentVersions: 101 },
        },
      ],
      'InvalidArgument',
    ],
    [
      'ObjectSizeLessThan not above ObjectSizeGreaterThan',
      [
        {
          ID: 'a',
          Status: 'Enabled',
          Filter: { And: { ObjectSizeGreaterThan: 10, ObjectSizeLessThan: 10 } },
          Expiration: { Days: 1 },
        },
      ],
      'InvalidRequest',
    ],
    [
      'a filter tag with the aws: prefix',
      [{ ID: 'a', Status: 'Enabled', Filter: { Tag: { Key: 'aws:x', Value: 'v' } }, Expiration: { Days: 1 } }],
      'InvalidTag',
    ],
    ['no rules at all', [], 'InvalidRequest'],
  ])('refuses %s (%#) and keeps the previous configuration', async (_why, rules, code) => {
    const bucket = await newBucket();
    await putRules(bucket, [{ ID: 'before', Status: 'Enabled', Filter: {}, Expiration: { Days: 9 } }]);
    await expectS3Error(putRules(bucket, rules), code, 400);
    expect((await getRules(bucket))?.map((r) => r.ID)).toEqual(['before']);
  });

  it('refuses more than 1,000 rules with InvalidRequest', async () => {
    const bucket = await newBucket();
    const rules = Array.from({ length: 1001 }, (_, i): LifecycleRule => ({
      ID: `r${i}`,
      Status: 'Enabled',
      Filter: { Prefix: `p${i}/` },
      Expiration: { Days: 1 },
    }));
    await expectS3Error(putRules(bucket, rules), 'InvalidRequest', 400);
  });

  it('answers MalformedXML for documents the schema refuses and MissingRequestBodyError for an empty body', async () => {
    const bucket = await newBucket();
    const put = (body: string) =>
      rawRequest(store.server, { method: 'PUT', path: `/${bucket}?lifecycle`, body, sign: true });
    const twoPredicates =
      '<LifecycleConfiguration><Rule><ID>a</ID><Status>Enabled</Status><Filter><Prefix>a</Prefix>' +
      '<ObjectSizeGreaterThan>1</ObjectSizeGreaterThan></Filter><Expiration><Days>1</Days></Expiration></Rule></LifecycleConfiguration>';
    for (const body of [
      '<LifecycleConfiguration><Rule>',
      '<Other/>',
      twoPredicates,
      '<LifecycleConfiguration><Rule><Status>Enabled</Status><Filter/><Expiration><Days>x</Days></Expiration></Rule></LifecycleConfiguration>',
    ]) {
      const res = await put(body);
      expect({ body, status: res.status, code: res.code }).toEqual({ body, status: 400, code: 'MalformedXML' });
    }
    const empty = await put('');
    expect({ status: empty.status, code: empty.code }).toEqual({ status: 400, code: 'MissingRequestBodyError' });
    await expectS3Error(getRules(MISSING), 'NoSuchBucket', 404);
  });

  it('answers NoSuchBucket for a missing bucket before looking at the document', async () => {
    await expectS3Error(
      putRules(MISSING, [{ ID: 'a', Status: 'Enabled', Filter: {}, Expiration: { Days: 0 } }]),
      'NoSuchBucket',
      404,
    );
    const res = await rawRequest(store.server, {
      method: 'PUT',
      path: `/${MISSING}?lifecycle`,
      body: '<garbage',
      sign: true,
    });
    expect({ status: res.status, code: res.code }).toEqual({ status: 404, code: 'NoSuchBucket' });
    await expectS3Error(store.s3.send(new DeleteBucketLifecycleCommand({ Bucket: MISSING })), 'NoSuchBucket', 404);
  });

  it('states the 128 KiB transition minimum it applies, and refuses varies_by_storage_class', async () => {
    const bucket = await newBucket();
    const rules: LifecycleRule[] = [
      { ID: 'a', Status: 'Enabled', Filter: {}, Transitions: [{ Days: 1, StorageClass: 'GLACIER' }] },
    ];
    const put = await store.s3.send(
      new PutBucketLifecycleConfigurationCommand({
        Bucket: bucket,
        LifecycleConfiguration: { Rules: rules },
        TransitionDefaultMinimumObjectSize: 'all_storage_classes_128K',
      }),
    );
    expect(put.TransitionDefaultMinimumObjectSize).toBe('all_storage_classes_128K');
    const got = await store.s3.send(new GetBucketLifecycleConfigurationCommand({ Bucket: bucket }));
    expect(got.TransitionDefaultMinimumObjectSize).toBe('all_storage_classes_128K');
    await expectS3Error(
      store.s3.send(
        new PutBucketLifecycleConfigurationCommand({
          Bucket: bucket,
          LifecycleConfiguration: { Rules: rules },
          TransitionDefaultMinimumObjectSize: 'varies_by_storage_class',
        }),
      ),
      'NotImplemented',
      501,
    );
  });

  it('refuses a body whose Content-MD5 does not match (BadDigest)', async () => {
    const bucket = await newBucket();
    const res = await rawRequest(store.server, {
      method: 'PUT',
      path: `/${bucket}?lifecycle`,
      sign: true,
      headers: { 'content-md5': '1B2M2Y8AsgTpgAmY7PhCfg==' },
      body: '<LifecycleConfiguration><Rule><ID>a</ID><Status>Enabled</Status><Filter/><Expiration><Days>1</Days></Expiration></Rule></LifecycleConfiguration>',
    });
    expect({ status: res.status, code: res.code }).toEqual({ status: 400, code: 'BadDigest' });
    await expectS3Error(getRules(bucket), 'NoSuchLifecycleConfiguration', 404);
  });

  it('works with minio-js', async () => {
    const bucket = await newBucket();
    await store.minio.setBucketLifecycle(bucket, {
      Rule: [{ ID: 'minio-rule', Status: 'Enabled', Filter: { Prefix: 'm/' }, Expiration: { Days: 5 } }],
    });
    const got = await store.minio.getBucketLifecycle(bucket);
    expect(JSON.stringify(got)).toContain('minio-rule');
    expect((await getRules(bucket))?.[0]).toMatchObject({
      ID: 'minio-rule',
      Filter: { Prefix: 'm/' },
      Expiration: { Days: 5 },
    });
    await store.minio.removeBucketLifecycle(bucket);
    await expectS3Error(getRules(bucket), 'NoSuchLifecycleConfiguration', 404);
  });
});

describe('bucket CORS', () => {
  const RULES: CORSRule[] = [
    {
      ID: 'web',
      AllowedOrigins: ['https://app.example.com', 'https://*.example.org'],
      AllowedMethods: ['GET', 'PUT', 'POST'],
      AllowedHeaders: ['content-type', 'x-amz-*'],
      ExposeHeaders: ['ETag', 'x-amz-version-id'],
      MaxAgeSeconds: 3000,
    },
    { AllowedOrigins: ['*'], AllowedMethods: ['HEAD', 'GET', 'DELETE'] },
  ];

  it('round-trips rules and deletes them', async () => {
    const bucket = await newBucket();
    await expectS3Error(store.s3.send(new GetBucketCorsCommand({ Bucket: bucket })), 'NoSuchCORSConfiguration', 404);
    await store.s3.send(new PutBucketCorsCommand({ Bucket: bucket, CORSConfiguration: { CORSRules: RULES } }));
    expect((await store.s3.send(new GetBucketCorsCommand({ Bucket: bucket }))).CORSRules).toEqual(RULES);
    expect((await store.s3.send(new DeleteBucketCorsCommand({ Bucket: bucket }))).$metadata.httpStatusCode).toBe(204);
    await expectS3Error(store.s3.send(new GetBucketCorsCommand({ Bucket: bucket })), 'NoSuchCORSConfiguration', 404);
  });

  it.each<[string, CORSRule[], string]>([
    ['an unsupported method', [{ AllowedOrigins: ['*'], AllowedMethods: ['PATCH'] }], 'InvalidRequest'],
    [
      'an origin with two wildcards',
      [{ AllowedOrigins: ['https://*.*.example.com'], AllowedMethods: ['GET'] }],
      'InvalidRequest',
    ],
    [
      'a header with two wildcards',
      [{ AllowedOrigins: ['*'], AllowedMethods: ['GET'], AllowedHeaders: ['x-*-*'] }],
      'InvalidRequest',
    ],
    ['no rules', [], 'MalformedXML'],
    ['a rule without an origin', [{ AllowedOrigins: [], AllowedMethods: ['GET'] }], 'MalformedXML'],
  ])('refuses %s', async (_why, rules, code) => {
    const bucket = await newBucket();
    await expectS3Error(
      store.s3.send(new PutBucketCorsCommand({ Bucket: bucket, CORSConfiguration: { CORSRules: rules } })),
      code,
      400,
    );
    await expectS3Error(store.s3.send(new GetBucketCorsCommand({ Bucket: bucket })), 'NoSuchCORSConfiguration', 404);
  });

  it('refuses an empty body and answers NoSuchBucket for a missing bucket', async () => {
    const bucket = await newBucket();
    const res = await rawRequest(store.server, { method: 'PUT', path: `/${bucket}?cors`, body: '', sign: true });
    expect({ status: res.status, code: res.code }).toEqual({ status: 400, code: 'MissingRequestBodyError' });
    const err = await failure(store.s3.send(new GetBucketCorsCommand({ Bucket: MISSING })));
    expect(err.name).toBe('NoSuchBucket');
  });
});
