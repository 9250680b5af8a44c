// Block Public Access per bucket (issue 28): Put/Get/DeletePublicAccessBlock, each of the four flags enforced, and
// GetBucketPolicyStatus agreeing with what an anonymous caller can actually do.

import {
  DeletePublicAccessBlockCommand,
  GetBucketPolicyStatusCommand,
  GetObjectCommand,
  GetPublicAccessBlockCommand,
  PutBucketAclCommand,
  PutBucketPolicyCommand,
  PutObjectAclCommand,
  PutObjectCommand,
  PutPublicAccessBlockCommand,
  type PublicAccessBlockConfiguration,
} from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { sdkClient } from '../helpers/clients.js';
import { useStore } from '../helpers/store.js';
import { bodyBytes, expectS3Error } from './s3-assert.js';

const store = useStore();

const NONE: PublicAccessBlockConfiguration = {
  BlockPublicAcls: false,
  IgnorePublicAcls: false,
  BlockPublicPolicy: false,
  RestrictPublicBuckets: false,
};
const aclBucket = (): Promise<string> => store.bucket('pab', { ObjectOwnership: 'ObjectWriter' });
const block = (bucket: string, flags: PublicAccessBlockConfiguration) =>
  store.s3.send(
    new PutPublicAccessBlockCommand({ Bucket: bucket, PublicAccessBlockConfiguration: { ...NONE, ...flags } }),
  );
const put = (bucket: string, key: string, extra: Record<string, unknown> = {}) =>
  store.s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: `body of ${key}`, ...extra }));
const anonymousGet = async (bucket: string, key: string): Promise<number> =>
  (await fetch(`${store.server.url}/${bucket}/${key}`)).status;
const publicPolicy = (bucket: string): string =>
  JSON.stringify({
    Version: '2012-10-17',
    Statement: [{ Effect: 'Allow', Principal: '*', Action: 's3:GetObject', Resource: `arn:aws:s3:::${bucket}/*` }],
  });
const isPublic = async (bucket: string): Promise<boolean | undefined> =>
  (await store.s3.send(new GetBucketPolicyStatusCommand({ Bucket: bucket }))).PolicyStatus?.IsPublic;

describe('Put/Get/DeletePublicAccessBlock', () => {
  it('stores the four flags, answers NoSuchPublicAccessBlockConfiguration when none, and deletes', async () => {
    const bucket = await aclBucket();
    await expectS3Error(
      store.s3.send(new GetPublicAccessBlockCommand({ Bucket: bucket })),
      'NoSuchPublicAccessBlockConfiguration',
      404,
    );
    await block(bucket, { BlockPublicAcls: true, RestrictPublicBuckets: true });
    const got = await store.s3.send(new GetPublicAccessBlockCommand({ Bucket: bucket }));
    expect(got.PublicAccessBlockConfiguration).toEqual({ ...NONE, BlockPublicAcls: true, RestrictPublicBuckets: true });
    await store.s3.send(new DeletePublicAccessBlockCommand({ Bucket: bucket }));
    await expectS3Error(
      store.s3.send(new GetPublicAccessBlockCommand({ Bucket: bucket })),
      'NoSuchPublicAccessBlockConfiguration',
      404,
    );
  });
});

describe('the four flags', () => {
  it('BlockPublicAcls refuses public ACLs on every write with AccessDenied, and lets private ones through', async () => {
    const bucket = await aclBucket();
    await put(bucket, 'k');
    await block(bucket, { BlockPublicAcls: true });
    await expectS3Error(put(bucket, 'k2', { ACL: 'public-read' }), 'AccessDenied', 403);
    await expectS3Error(
      put(bucket, 'k2', { GrantRead: 'uri="http://acs.amazonaws.com/groups/global/AuthenticatedUsers"' }),
      'AccessDenied',
      403,
    );
    await expectS3Error(
      store.s3.send(new PutObjectAclCommand({ Bucket: bucket, Key: 'k', ACL: 'public-read' })),
      'AccessDenied',
      403,
    );
    await expectS3Error(
      store.s3.send(new PutBucketAclCommand({ Bucket: bucket, ACL: 'public-read-write' })),
      'AccessDenied',
      403,
    );
    await put(bucket, 'k3', { ACL: 'private' });
    expect(await anonymousGet(bucket, 'k3')).toBe(403);
  });

  it('IgnorePublicAcls stops honouring public ACLs already stored, and they work again once it is off', async () => {
    const bucket = await aclBucket();
    await put(bucket, 'pub', { ACL: 'public-read' });
    await store.s3.send(new PutBucketAclCommand({ Bucket: bucket, ACL: 'public-read' }));
    expect(await anonymousGet(bucket, 'pub')).toBe(200);
    expect(await isPublic(bucket)).toBe(true);
    await block(bucket, { IgnorePublicAcls: true });
    expect(await anonymousGet(bucket, 'pub')).toBe(403);
    expect(await isPublic(bucket)).toBe(false);
    await store.s3.send(new DeletePublicAccessBlockCommand({ Bucket: bucket }));
    expect(await anonymousGet(bucket, 'pub')).toBe(200);
  });

  it('BlockPublicPolicy refuses a public bucket policy with AccessDenied, not a non-public one', async () => {
    const bucket = await aclBucket();
    await block(bucket, { BlockPublicPolicy: true });
    await expectS3Error(
      store.s3.send(new PutBucketPolicyCommand({ Bucket: bucket, Policy: publicPolicy(bucket) })),
      'AccessDenied',
      403,
    );
    const limited = JSON.stringify({
      Version: '2012-10-17',
      Statement: [
        {
          Effect: 'Allow',
          Principal: '*',
          Action: 's3:GetObject',
          Resource: `arn:aws:s3:::${bucket}/*`,
          Condition: { IpAddress: { 'aws:SourceIp': '10.0.0.0/8' } },
        },
      ],
    });
    await store.s3.send(new PutBucketPolicyCommand({ Bucket: bucket, Policy: limited }));
  });

  it("RestrictPublicBuckets keeps anonymous callers out of a public policy; the owner's keys are not restricted", async () => {
    const bucket = await aclBucket();
    await put(bucket, 'doc');
    await store.s3.send(new PutBucketPolicyCommand({ Bucket: bucket, Policy: publicPolicy(bucket) }));
    const res = await store.adminCall('POST', '/keys', { name: 'pab key', permissions: { scope: { bucket } } });
    const scoped = sdkClient(store.server, res.body as { accessKeyId: string; secretAccessKey: string });
    expect(await anonymousGet(bucket, 'doc')).toBe(200);
    expect(await isPublic(bucket)).toBe(true);
    await block(bucket, { RestrictPublicBuckets: true });
    expect(await anonymousGet(bucket, 'doc')).toBe(403);
    expect(await isPublic(bucket)).toBe(false);
    const got = await scoped.send(new GetObjectCommand({ Bucket: bucket, Key: 'doc' }));
    expect((await bodyBytes(got.Body)).toString()).toBe('body of doc');
  });
});

describe('GetBucketPolicyStatus', () => {
  it('considers the bucket ACL where ACLs are enabled, and stays NoSuchBucketPolicy for a bucket with neither', async () => {
    const plain = await store.bucket('pab');
    await expectS3Error(store.s3.send(new GetBucketPolicyStatusCommand({ Bucket: plain })), 'NoSuchBucketPolicy', 404);
    const bucket = await aclBucket();
    await store.s3.send(new PutBucketAclCommand({ Bucket: bucket, ACL: 'public-read' }));
    expect(await isPublic(bucket)).toBe(true);
    await store.s3.send(new PutBucketAclCommand({ Bucket: bucket, ACL: 'private' }));
    expect(await isPublic(bucket)).toBe(false);
  });
});
