// x-amz-server-side-encryption on the writes that create objects (PutObject, CopyObject, CreateMultipartUpload):
// AES256 is accepted and echoed; KMS and customer keys are refused, never silently ignored.

import {
  CopyObjectCommand, CreateBucketCommand, CreateMultipartUploadCommand, PutObjectCommand, type S3Client,
} from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sdkClient, uniqueBucket } from '../helpers/clients.js';
import type { RunningServer } from '../helpers/server.js';
import { expectS3Error, startServerOnTmpfs } from './s3-assert.js';

let server: RunningServer;
let s3: S3Client;
let bucket: string;

beforeAll(async () => {
  server = await startServerOnTmpfs();
  s3 = sdkClient(server);
  bucket = uniqueBucket('sse');
  await s3.send(new CreateBucketCommand({ Bucket: bucket }));
  await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'source', Body: 'bytes' }));
});
afterAll(async () => {
  await server?.stop();
});

const SSE_C = {
  SSECustomerAlgorithm: 'AES256',
  SSECustomerKey: Buffer.alloc(32, 7).toString('base64'),
  SSECustomerKeyMD5: 'ZmFrZQ==',
};

describe('AES256 is accepted and echoed', () => {
  it('on PutObject', async () => {
    const put = await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'p', Body: 'x', ServerSideEncryption: 'AES256' }));
    expect(put.ServerSideEncryption).toBe('AES256');
  });

  it('on CopyObject', async () => {
    const copy = await s3.send(new CopyObjectCommand({
      Bucket: bucket, Key: 'c', CopySource: `${bucket}/source`, ServerSideEncryption: 'AES256',
    }));
    expect(copy.ServerSideEncryption).toBe('AES256');
  });

  it('on CreateMultipartUpload', async () => {
    const created = await s3.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: 'm', ServerSideEncryption: 'AES256' }));
    expect(created.ServerSideEncryption).toBe('AES256');
  });
});

describe('KMS is refused with NotImplemented', () => {
  it('on PutObject', async () => {
    await expectS3Error(s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'k', Body: 'x', ServerSideEncryption: 'aws:kms' })), 'NotImplemented', 501);
  });

  it('on CopyObject', async () => {
    await expectS3Error(s3.send(new CopyObjectCommand({
      Bucket: bucket, Key: 'k', CopySource: `${bucket}/source`, ServerSideEncryption: 'aws:kms',
    })), 'NotImplemented', 501);
  });

  it('on CreateMultipartUpload', async () => {
    await expectS3Error(s3.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: 'k', ServerSideEncryption: 'aws:kms' })), 'NotImplemented', 501);
  });
});

describe('customer-provided keys (SSE-C) are refused with NotImplemented', () => {
  it('on PutObject', async () => {
    await expectS3Error(s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'k', Body: 'x', ...SSE_C })), 'NotImplemented', 501);
  });

  it('on CopyObject', async () => {
    await expectS3Error(s3.send(new CopyObjectCommand({ Bucket: bucket, Key: 'k', CopySource: `${bucket}/source`, ...SSE_C })), 'NotImplemented', 501);
  });

  it('on CreateMultipartUpload', async () => {
    await expectS3Error(s3.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: 'k', ...SSE_C })), 'NotImplemented', 501);
  });
});
