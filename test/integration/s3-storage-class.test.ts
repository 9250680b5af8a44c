// Storage classes are kept, never silently dropped: x-amz-storage-class on PutObject, CopyObject,
// CreateMultipartUpload and POST forms is validated (InvalidStorageClass), stored per version and returned by HEAD,
// GET, the listings, ListObjectVersions, ListParts, ListMultipartUploads and GetObjectAttributes.

import {
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  GetObjectAttributesCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  ListObjectVersionsCommand,
  ListPartsCommand,
  PutBucketVersioningCommand,
  PutObjectCommand,
  UploadPartCommand,
  type StorageClass,
} from '@aws-sdk/client-s3';
import { beforeAll, describe, expect, it } from 'vitest';
import { formWithFile, signedPolicyFields } from '../helpers/post-form.js';
import { rawRequest } from '../helpers/signed-http.js';
import { useStore } from '../helpers/store.js';
import { expectBodilessError, expectS3Error } from './s3-assert.js';

const store = useStore({ tmpfs: true });
let bucket: string;

beforeAll(async () => {
  bucket = await store.bucket('classes');
  await store.s3.send(
    new PutBucketVersioningCommand({ Bucket: bucket, VersioningConfiguration: { Status: 'Enabled' } }),
  );
});

async function classOf(key: string): Promise<{
  head: string | undefined;
  get: string | undefined;
  listed: string | undefined;
  attributes: string | undefined;
}> {
  const head = await store.s3.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
  const get = await store.s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  await get.Body?.transformToByteArray();
  const listed = await store.s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: key }));
  const attributes = await store.s3.send(
    new GetObjectAttributesCommand({ Bucket: bucket, Key: key, ObjectAttributes: ['StorageClass'] }),
  );
  return {
    head: head.StorageClass,
    get: get.StorageClass,
    listed: listed.Contents?.find((o) => o.Key === key)?.StorageClass,
    attributes: attributes.StorageClass,
  };
}

describe('x-amz-storage-class', () => {
  it('keeps the class a PutObject names and returns it everywhere (no header for STANDARD, as AWS)', async () => {
    for (const storageClass of [
      'STANDARD',
      'REDUCED_REDUNDANCY',
      'STANDARD_IA',
      'ONEZONE_IA',
      'INTELLIGENT_TIERING',
      'GLACIER',
      'DEEP_ARCHIVE',
      'GLACIER_IR',
    ] as const) {
      const key = `put/${storageClass}`;
      await store.s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: 'x', StorageClass: storageClass }));
      const seen = await classOf(key);
      const header = storageClass === 'STANDARD' ? undefined : storageClass;
      expect(seen, storageClass).toEqual({ head: header, get: header, listed: storageClass, attributes: storageClass });
    }
    const none = await classOf('put/STANDARD');
    expect(none.listed).toBe('STANDARD');
  });

  it('refuses an unknown class, and one that needs other hardware, with 400 InvalidStorageClass and stores nothing', async () => {
    for (const storageClass of ['NOT_A_CLASS', 'glacier', 'OUTPOSTS', 'EXPRESS_ONEZONE', '']) {
      const res = await rawRequest(store.server, {
        method: 'PUT',
        path: `/${bucket}/refused`,
        sign: true,
        body: 'x',
        headers: { 'x-amz-storage-class': storageClass },
      });
      expect({ status: res.status, code: res.code }, storageClass).toEqual({
        status: 400,
        code: 'InvalidStorageClass',
      });
    }
    await expectBodilessError(store.s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'refused' })), 404);
  });

  it('keeps the class per version', async () => {
    await store.s3.send(
      new PutObjectCommand({ Bucket: bucket, Key: 'versions', Body: 'cold', StorageClass: 'GLACIER' }),
    );
    await store.s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'versions', Body: 'warm' }));
    const versions = await store.s3.send(new ListObjectVersionsCommand({ Bucket: bucket, Prefix: 'versions' }));
    expect(versions.Versions?.map((v) => [v.IsLatest, v.StorageClass])).toEqual([
      [true, 'STANDARD'],
      [false, 'GLACIER'],
    ]);
  });

  it('gives a copy the class its request names, STANDARD when it names none (the source class is not carried, as AWS)', async () => {
    await store.s3.send(
      new PutObjectCommand({ Bucket: bucket, Key: 'source', Body: 'x', StorageClass: 'DEEP_ARCHIVE' }),
    );
    await store.s3.send(
      new CopyObjectCommand({
        Bucket: bucket,
        Key: 'copy/named',
        CopySource: `${bucket}/source`,
        StorageClass: 'STANDARD_IA',
      }),
    );
    await store.s3.send(new CopyObjectCommand({ Bucket: bucket, Key: 'copy/plain', CopySource: `${bucket}/source` }));
    expect((await classOf('copy/named')).listed).toBe('STANDARD_IA');
    expect((await classOf('copy/plain')).listed).toBe('STANDARD');
    await expectS3Error(
      store.s3.send(
        new CopyObjectCommand({
          Bucket: bucket,
          Key: 'copy/refused',
          CopySource: `${bucket}/source`,
          StorageClass: 'NOPE' as StorageClass,
        }),
      ),
      'InvalidStorageClass',
      400,
    );
  });

  it('keeps a multipart upload class from CreateMultipartUpload to the object, shown by ListMultipartUploads and ListParts', async () => {
    const { UploadId } = await store.s3.send(
      new CreateMultipartUploadCommand({ Bucket: bucket, Key: 'mpu', StorageClass: 'STANDARD_IA' }),
    );
    const part = await store.s3.send(
      new UploadPartCommand({ Bucket: bucket, Key: 'mpu', UploadId, PartNumber: 1, Body: 'part' }),
    );
    const uploads = await store.s3.send(new ListMultipartUploadsCommand({ Bucket: bucket, Prefix: 'mpu' }));
    expect(uploads.Uploads?.map((u) => u.StorageClass)).toEqual(['STANDARD_IA']);
    expect((await store.s3.send(new ListPartsCommand({ Bucket: bucket, Key: 'mpu', UploadId }))).StorageClass).toBe(
      'STANDARD_IA',
    );
    await store.s3.send(
      new CompleteMultipartUploadCommand({
        Bucket: bucket,
        Key: 'mpu',
        UploadId,
        MultipartUpload: { Parts: [{ PartNumber: 1, ETag: part.ETag }] },
      }),
    );
    expect(await classOf('mpu')).toEqual({
      head: 'STANDARD_IA',
      get: 'STANDARD_IA',
      listed: 'STANDARD_IA',
      attributes: 'STANDARD_IA',
    });
    await expectS3Error(
      store.s3.send(
        new CreateMultipartUploadCommand({ Bucket: bucket, Key: 'mpu2', StorageClass: 'NOPE' as StorageClass }),
      ),
      'InvalidStorageClass',
      400,
    );
  });

  it('takes the class from a POST form field', async () => {
    const post = (storageClass: string) => {
      const fields = signedPolicyFields({
        bucket,
        accessKeyId: store.server.credentials.accessKeyId,
        secretAccessKey: store.server.credentials.secretAccessKey,
        conditions: [
          ['starts-with', '$key', 'form/'],
          ['eq', '$x-amz-storage-class', storageClass],
        ],
      });
      const form = formWithFile(
        { ...fields, key: 'form/object', 'x-amz-storage-class': storageClass },
        { filename: 'f.txt', content: 'posted' },
      );
      return rawRequest(store.server, {
        method: 'POST',
        path: `/${bucket}`,
        headers: { 'content-type': form.contentType },
        body: form.body,
      });
    };
    expect((await post('GLACIER')).status).toBe(204);
    expect((await classOf('form/object')).head).toBe('GLACIER');
    const refused = await post('NOPE');
    expect({ status: refused.status, code: refused.code }).toEqual({ status: 400, code: 'InvalidStorageClass' });
  });
});
