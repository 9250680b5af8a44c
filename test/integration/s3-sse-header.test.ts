// x-amz-server-side-encryption on the writes that create objects (PutObject, CopyObject, CreateMultipartUpload):
// AES256 is accepted and echoed; KMS and customer keys are refused, never silently ignored.

import { CopyObjectCommand, CreateMultipartUploadCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { beforeAll, describe, expect, it } from 'vitest';
import { useStore } from '../helpers/store.js';
import { expectS3Error } from './s3-assert.js';

const store = useStore({ tmpfs: true });
let bucket: string;

beforeAll(async () => {
  bucket = await store.bucket('sse');
  await store.s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'source', Body: 'bytes' }));
});

const SSE_C = {
  SSECustomerAlgorithm: 'AES256',
  SSECustomerKey: Buffer.alloc(32, 7).toString('base64'),
  SSECustomerKeyMD5: 'ZmFrZQ==',
};

describe('AES256 is accepted and echoed', () => {
  it('on PutObject', async () => {
    const put = await store.s3.send(
      new PutObjectCommand({ Bucket: bucket, Key: 'p', Body: 'x', ServerSideEncryption: 'AES256' }),
    );
    expect(put.ServerSideEncryption).toBe('AES256');
  });

  it('on CopyObject', async () => {
    const copy = await store.s3.send(
      new CopyObjectCommand({
        Bucket: bucket,
        Key: 'c',
        CopySource: `${bucket}/source`,
        ServerSideEncryption: 'AES256',
      }),
    );
    expect(copy.ServerSideEncryption).toBe('AES256');
  });

  it('on CreateMultipartUpload', async () => {
    const created = await store.s3.send(
      new CreateMultipartUploadCommand({ Bucket: bucket, Key: 'm', ServerSideEncryption: 'AES256' }),
    );
    expect(created.ServerSideEncryption).toBe('AES256');
  });
});

describe('KMS is refused with NotImplemented', () => {
  it('on PutObject', async () => {
    await expectS3Error(
      store.s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'k', Body: 'x', ServerSideEncryption: 'aws:kms' })),
      'NotImplemented',
      501,
    );
  });

  it('on CopyObject', async () => {
    await expectS3Error(
      store.s3.send(
        new CopyObjectCommand({
          Bucket: bucket,
          Key: 'k',
          CopySource: `${bucket}/source`,
          ServerSideEncryption: 'aws:kms',
        }),
      ),
      'NotImplemented',
      501,
    );
  });

  it('on CreateMultipartUpload', async () => {
    await expectS3Error(
      store.s3.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: 'k', ServerSideEncryption: 'aws:kms' })),
      'NotImplemented',
      501,
    );
  });
});

describe('customer-provided keys (SSE-C) are refused with NotImplemented', () => {
  it('on PutObject', async () => {
    await expectS3Error(
      store.s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'k', Body: 'x', ...SSE_C })),
      'NotImplemented',
      501,
    );
  });

  it('on CopyObject', async () => {
    await expectS3Error(
      store.s3.send(new CopyObjectCommand({ Bucket: bucket, Key: 'k', CopySource: `${bucket}/source`, ...SSE_C })),
      'NotImplemented',
      501,
    );
  });

  it('on CreateMultipartUpload', async () => {
    await expectS3Error(
      store.s3.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: 'k', ...SSE_C })),
      'NotImplemented',
      501,
    );
  });
});
