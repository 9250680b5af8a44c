// Bucket policy (and its status), versioning, ACL compatibility, ownership controls, notifications and ListBuckets
// paging, through @aws-sdk/client-s3 and minio-js against the real server.

import {
  CreateBucketCommand,
  DeleteBucketPolicyCommand,
  GetBucketAclCommand,
  GetBucketNotificationConfigurationCommand,
  GetBucketOwnershipControlsCommand,
  GetBucketPolicyCommand,
  GetBucketPolicyStatusCommand,
  GetBucketVersioningCommand,
  ListBucketsCommand,
  PutBucketAclCommand,
  PutBucketPolicyCommand,
  PutBucketVersioningCommand,
} from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { uniqueBucket } from '../helpers/clients.js';
import { rawRequest } from '../helpers/signed-http.js';
import { useStore } from '../helpers/store.js';
import { expectS3Error } from './s3-assert.js';

const store = useStore({ tmpfs: true });

const newBucket = (prefix = 'acc'): Promise<string> => store.bucket(prefix);

const MISSING = 'no-such-bucket-acc-0';

function publicRead(bucket: string, extra: object = {}): string {
  return JSON.stringify({
    Version: '2012-10-17',
    Statement: [
      {
        Sid: 'PublicRead',
        Effect: 'Allow',
        Principal: '*',
        Action: ['s3:GetObject'],
        Resource: [`arn:aws:s3:::${bucket}/*`],
        ...extra,
      },
    ],
  });
}

describe('bucket policy', () => {
  it('round-trips the policy JSON exactly as sent and deletes it', async () => {
    const bucket = await newBucket();
    await expectS3Error(store.s3.send(new GetBucketPolicyCommand({ Bucket: bucket })), 'NoSuchBucketPolicy', 404);
    const policy = JSON.stringify(
      {
        Version: '2012-10-17',
        Statement: [
          {
            Sid: 'Read',
            Effect: 'Allow',
            Principal: { AWS: '*' },
            Action: 's3:Get*',
            Resource: `arn:aws:s3:::${bucket}/public/*`,
          },
          {
            Sid: 'NoPlainHttp',
            Effect: 'Deny',
            Principal: '*',
            Action: 's3:*',
            Resource: [`arn:aws:s3:::${bucket}`, `arn:aws:s3:::${bucket}/*`],
            Condition: { Bool: { 'aws:SecureTransport': 'false' }, IpAddress: { 'aws:SourceIp': '203.0.113.0/24' } },
          },
        ],
      },
      null,
      2,
    );
    const put = await store.s3.send(new PutBucketPolicyCommand({ Bucket: bucket, Policy: policy }));
    expect(put.$metadata.httpStatusCode).toBe(204);
    expect((await store.s3.send(new GetBucketPolicyCommand({ Bucket: bucket }))).Policy).toBe(policy);
    expect((await store.s3.send(new DeleteBucketPolicyCommand({ Bucket: bucket }))).$metadata.httpStatusCode).toBe(204);
    await expectS3Error(store.s3.send(new GetBucketPolicyCommand({ Bucket: bucket })), 'NoSuchBucketPolicy', 404);
  });

  it.each<[string, (bucket: string) => string]>([
    ['text that is not JSON', () => '{"Version": '],
    ['a JSON array', () => '[]'],
    [
      'an unknown Version',
      (b) => JSON.stringify({ Version: '2020-01-01', Statement: [JSON.parse(publicRead(b)).Statement[0]] }),
    ],
    ['no Statement', () => JSON.stringify({ Version: '2012-10-17' })],
    [
      'a statement without Effect',
      (b) =>
        JSON.stringify({ Statement: [{ Principal: '*', Action: 's3:GetObject', Resource: `arn:aws:s3:::${b}/*` }] }),
    ],
    ['an Effect other than Allow or Deny', (b) => publicRead(b, { Effect: 'Maybe' })],
    ['an action S3 does not have', (b) => publicRead(b, { Action: 's3:GetObjekt' })],
    ['a resource in another bucket', (b) => publicRead(b, { Resource: 'arn:aws:s3:::someone-elses-bucket/*' })],
    [
      'a misspelled field (Conditions)',
      (b) => publicRead(b, { Conditions: { Bool: { 'aws:SecureTransport': 'true' } } }),
    ],
    ['an unknown condition operator', (b) => publicRead(b, { Condition: { StringSortOf: { 's3:prefix': 'a' } } })],
    [
      'two statements with one Sid',
      (b) =>
        JSON.stringify({ Statement: [JSON.parse(publicRead(b)).Statement[0], JSON.parse(publicRead(b)).Statement[0]] }),
    ],
  ])('refuses %s with MalformedPolicy and keeps the previous policy', async (_why, make) => {
    const bucket = await newBucket();
    await store.s3.send(new PutBucketPolicyCommand({ Bucket: bucket, Policy: publicRead(bucket) }));
    await expectS3Error(
      store.s3.send(new PutBucketPolicyCommand({ Bucket: bucket, Policy: make(bucket) })),
      'MalformedPolicy',
      400,
    );
    expect((await store.s3.send(new GetBucketPolicyCommand({ Bucket: bucket }))).Policy).toBe(publicRead(bucket));
  });

  it('answers NoSuchBucket for a missing bucket, even with an invalid policy', async () => {
    await expectS3Error(
      store.s3.send(new PutBucketPolicyCommand({ Bucket: MISSING, Policy: publicRead(MISSING) })),
      'NoSuchBucket',
      404,
    );
    await expectS3Error(
      store.s3.send(new PutBucketPolicyCommand({ Bucket: MISSING, Policy: '{not json' })),
      'NoSuchBucket',
      404,
    );
    await expectS3Error(store.s3.send(new GetBucketPolicyCommand({ Bucket: MISSING })), 'NoSuchBucket', 404);
    await expectS3Error(store.s3.send(new DeleteBucketPolicyCommand({ Bucket: MISSING })), 'NoSuchBucket', 404);
  });

  it('reports whether the policy makes the bucket public (GetBucketPolicyStatus)', async () => {
    const bucket = await newBucket();
    await expectS3Error(store.s3.send(new GetBucketPolicyStatusCommand({ Bucket: bucket })), 'NoSuchBucketPolicy', 404);
    await store.s3.send(new PutBucketPolicyCommand({ Bucket: bucket, Policy: publicRead(bucket) }));
    expect((await store.s3.send(new GetBucketPolicyStatusCommand({ Bucket: bucket }))).PolicyStatus).toEqual({
      IsPublic: true,
    });
    const limited = publicRead(bucket, { Condition: { IpAddress: { 'aws:SourceIp': '10.0.0.0/8' } } });
    await store.s3.send(new PutBucketPolicyCommand({ Bucket: bucket, Policy: limited }));
    expect((await store.s3.send(new GetBucketPolicyStatusCommand({ Bucket: bucket }))).PolicyStatus).toEqual({
      IsPublic: false,
    });
  });

  it('works with minio-js (an empty policy deletes it)', async () => {
    const bucket = await newBucket();
    await store.minio.setBucketPolicy(bucket, publicRead(bucket));
    expect(await store.minio.getBucketPolicy(bucket)).toBe(publicRead(bucket));
    await store.minio.setBucketPolicy(bucket, '');
    await expectS3Error(store.s3.send(new GetBucketPolicyCommand({ Bucket: bucket })), 'NoSuchBucketPolicy', 404);
  });
});

describe('bucket versioning', () => {
  it('answers an empty configuration for a never-versioned bucket, then Enabled and Suspended', async () => {
    const bucket = await newBucket();
    const never = await store.s3.send(new GetBucketVersioningCommand({ Bucket: bucket }));
    expect(never.Status).toBeUndefined();
    expect(never.MFADelete).toBeUndefined();
    for (const Status of ['Enabled', 'Suspended', 'Enabled'] as const) {
      const put = await store.s3.send(
        new PutBucketVersioningCommand({ Bucket: bucket, VersioningConfiguration: { Status } }),
      );
      expect(put.$metadata.httpStatusCode).toBe(200);
      expect((await store.s3.send(new GetBucketVersioningCommand({ Bucket: bucket }))).Status).toBe(Status);
    }
  });

  it('refuses an unknown status (MalformedXML), MFA delete (NotImplemented) and a missing bucket', async () => {
    const bucket = await newBucket();
    await expectS3Error(
      store.s3.send(
        new PutBucketVersioningCommand({ Bucket: bucket, VersioningConfiguration: { Status: 'On' as 'Enabled' } }),
      ),
      'MalformedXML',
      400,
    );
    await expectS3Error(
      store.s3.send(
        new PutBucketVersioningCommand({
          Bucket: bucket,
          VersioningConfiguration: { Status: 'Enabled', MFADelete: 'Enabled' },
          MFA: '123 456',
        }),
      ),
      'NotImplemented',
      501,
    );
    expect((await store.s3.send(new GetBucketVersioningCommand({ Bucket: bucket }))).Status).toBeUndefined();
    await expectS3Error(store.s3.send(new GetBucketVersioningCommand({ Bucket: MISSING })), 'NoSuchBucket', 404);
  });

  it('works with minio-js', async () => {
    const bucket = await newBucket();
    await store.minio.setBucketVersioning(bucket, { Status: 'Enabled' });
    expect(await store.minio.getBucketVersioning(bucket)).toMatchObject({ Status: 'Enabled' });
    await store.minio.setBucketVersioning(bucket, { Status: 'Suspended' });
    expect((await store.s3.send(new GetBucketVersioningCommand({ Bucket: bucket }))).Status).toBe('Suspended');
  });
});

describe('bucket ACL compatibility', () => {
  it("answers the owner's FULL_CONTROL and nothing else", async () => {
    const bucket = await newBucket();
    const acl = await store.s3.send(new GetBucketAclCommand({ Bucket: bucket }));
    expect(acl.Owner?.ID).toMatch(/^[0-9a-f]{64}$/);
    expect(acl.Grants).toEqual([
      {
        Grantee: { Type: 'CanonicalUser', ID: acl.Owner?.ID, DisplayName: acl.Owner?.DisplayName },
        Permission: 'FULL_CONTROL',
      },
    ]);
  });

  it('accepts the canned ACLs that mean owner-only, and the owner FULL_CONTROL document it answers', async () => {
    const bucket = await newBucket();
    expect(
      (await store.s3.send(new PutBucketAclCommand({ Bucket: bucket, ACL: 'private' }))).$metadata.httpStatusCode,
    ).toBe(200);
    const acl = await store.s3.send(new GetBucketAclCommand({ Bucket: bucket }));
    const put = await store.s3.send(
      new PutBucketAclCommand({ Bucket: bucket, AccessControlPolicy: { Owner: acl.Owner, Grants: acl.Grants } }),
    );
    expect(put.$metadata.httpStatusCode).toBe(200);
  });

  it.each([['public-read'], ['public-read-write'], ['authenticated-read']] as const)(
    'refuses the canned ACL %s with AccessControlListNotSupported',
    async (ACL) => {
      const bucket = await newBucket();
      await expectS3Error(
        store.s3.send(new PutBucketAclCommand({ Bucket: bucket, ACL })),
        'AccessControlListNotSupported',
        400,
      );
    },
  );

  it('refuses a grant to another user, in a document or a grant header, and a request with neither', async () => {
    const bucket = await newBucket();
    const acl = await store.s3.send(new GetBucketAclCommand({ Bucket: bucket }));
    const other = 'f'.repeat(64);
    await expectS3Error(
      store.s3.send(
        new PutBucketAclCommand({
          Bucket: bucket,
          AccessControlPolicy: {
            Owner: acl.Owner,
            Grants: [...(acl.Grants ?? []), { Grantee: { Type: 'CanonicalUser', ID: other }, Permission: 'READ' }],
          },
        }),
      ),
      'AccessControlListNotSupported',
      400,
    );
    await expectS3Error(
      store.s3.send(
        new PutBucketAclCommand({
          Bucket: bucket,
          AccessControlPolicy: {
            Owner: acl.Owner,
            Grants: [
              {
                Grantee: { Type: 'Group', URI: 'http://acs.amazonaws.com/groups/global/AllUsers' },
                Permission: 'READ',
              },
            ],
          },
        }),
      ),
      'AccessControlListNotSupported',
      400,
    );
    await expectS3Error(
      store.s3.send(new PutBucketAclCommand({ Bucket: bucket, GrantRead: `id=${other}` })),
      'AccessControlListNotSupported',
      400,
    );
    const bare = await rawRequest(store.server, { method: 'PUT', path: `/${bucket}?acl`, sign: true });
    expect({ status: bare.status, code: bare.code }).toEqual({ status: 400, code: 'MissingSecurityHeader' });
    await expectS3Error(store.s3.send(new GetBucketAclCommand({ Bucket: MISSING })), 'NoSuchBucket', 404);
  });
});

describe('fixed answers', () => {
  it('GetBucketOwnershipControls: BucketOwnerEnforced', async () => {
    const bucket = await newBucket();
    const got = await store.s3.send(new GetBucketOwnershipControlsCommand({ Bucket: bucket }));
    expect(got.OwnershipControls?.Rules).toEqual([{ ObjectOwnership: 'BucketOwnerEnforced' }]);
    await expectS3Error(store.s3.send(new GetBucketOwnershipControlsCommand({ Bucket: MISSING })), 'NoSuchBucket', 404);
  });

  it('GetBucketNotificationConfiguration: an empty configuration (minio-js too)', async () => {
    const bucket = await newBucket();
    const got = await store.s3.send(new GetBucketNotificationConfigurationCommand({ Bucket: bucket }));
    expect(got.$metadata.httpStatusCode).toBe(200);
    expect([
      got.TopicConfigurations,
      got.QueueConfigurations,
      got.LambdaFunctionConfigurations,
      got.EventBridgeConfiguration,
    ]).toEqual([undefined, undefined, undefined, undefined]);
    const viaMinio = await store.minio.getBucketNotification(bucket);
    expect(viaMinio).toMatchObject({ TopicConfiguration: [], QueueConfiguration: [], CloudFunctionConfiguration: [] });
    await expectS3Error(
      store.s3.send(new GetBucketNotificationConfigurationCommand({ Bucket: MISSING })),
      'NoSuchBucket',
      404,
    );
  });
});

describe('ListBuckets paging', () => {
  it('filters by Prefix and pages with MaxBuckets and ContinuationToken in name order', async () => {
    const tag = uniqueBucket('lbp');
    const names = ['a', 'b', 'c', 'd', 'e'].map((s) => `${tag}-${s}`);
    for (const name of [...names].reverse()) await store.s3.send(new CreateBucketCommand({ Bucket: name }));
    await store.s3.send(new CreateBucketCommand({ Bucket: `${tag}x-other` }));
    const seen: string[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const page = await store.s3.send(
        new ListBucketsCommand({ Prefix: `${tag}-`, MaxBuckets: 2, ContinuationToken: token }),
      );
      expect(page.Prefix).toBe(`${tag}-`);
      expect(page.Buckets?.length).toBeLessThanOrEqual(2);
      seen.push(...(page.Buckets ?? []).map((b) => b.Name ?? ''));
      token = page.ContinuationToken;
      pages++;
    } while (token !== undefined && pages < 10);
    expect(seen).toEqual(names);
    expect(pages).toBe(3);
  });

  it('lists everything without a prefix and refuses a bad MaxBuckets', async () => {
    const bucket = await newBucket();
    const all = await store.s3.send(new ListBucketsCommand({}));
    expect(all.Buckets?.map((b) => b.Name)).toContain(bucket);
    expect(all.ContinuationToken).toBeUndefined();
    await expectS3Error(store.s3.send(new ListBucketsCommand({ MaxBuckets: 0 })), 'InvalidArgument', 400);
  });
});
