// CreateBucket of a bucket the caller already owns: AWS's legacy 200 in us-east-1, 409 BucketAlreadyOwnedByYou in
// every other region (https://docs.aws.amazon.com/AmazonS3/latest/API/API_CreateBucket.html).

import {
  CreateBucketCommand,
  HeadBucketCommand,
  PutObjectCommand,
  S3Client,
  ListObjectsV2Command,
} from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { uniqueBucket } from '../helpers/clients.js';
import type { RunningServer } from '../helpers/server.js';
import { useStore } from '../helpers/store.js';
import { expectS3Error } from './s3-assert.js';

const usEast1 = useStore();
const euWest1 = useStore({ env: { STORE_REGION: 'eu-west-1' } });

function regionalClient(server: RunningServer, region: string): S3Client {
  return new S3Client({
    endpoint: server.url,
    region,
    forcePathStyle: true,
    credentials: { accessKeyId: server.credentials.accessKeyId, secretAccessKey: server.credentials.secretAccessKey },
    maxAttempts: 1,
  });
}

describe('CreateBucket of a bucket you already own', () => {
  it('answers 200 in us-east-1 and leaves the bucket and its objects as they were', async () => {
    const s3 = usEast1.s3;
    const bucket = uniqueBucket();
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'kept', Body: 'x' }));
    const again = await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    expect(again.$metadata.httpStatusCode).toBe(200);
    expect(again.Location).toBe(`/${bucket}`);
    const listed = await s3.send(new ListObjectsV2Command({ Bucket: bucket }));
    expect(listed.Contents?.map((o) => o.Key)).toEqual(['kept']);
  });

  it('answers 409 BucketAlreadyOwnedByYou in any other region', async () => {
    const s3 = regionalClient(euWest1.server, 'eu-west-1');
    const bucket = uniqueBucket();
    const config = { LocationConstraint: 'eu-west-1' as const };
    await s3.send(new CreateBucketCommand({ Bucket: bucket, CreateBucketConfiguration: config }));
    await expectS3Error(
      s3.send(new CreateBucketCommand({ Bucket: bucket, CreateBucketConfiguration: config })),
      'BucketAlreadyOwnedByYou',
      409,
    );
    const head = await s3.send(new HeadBucketCommand({ Bucket: bucket }));
    expect(head.BucketRegion).toBe('eu-west-1');
  });
});
