// Bucket quotas through @aws-sdk/client-s3 against the real app (docs/quotas.md): QuotaExceeded (403) at the limit,
// exactly-at-limit allowed, overwrite growth, deletes freeing room, copies, POST forms and multipart, and concurrent
// PUTs that together would overshoot. The concurrent case holds admitted writes through the app's test seam
// (BuildOptions.onQuotaAdmitted), so exactly the right number succeed without depending on timing.

import {
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  PutBucketVersioningCommand,
  PutObjectCommand,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { beforeAll, describe, expect, it } from 'vitest';
import { adminCall, adminLogin } from '../helpers/admin-session.js';
import { sdkClient, uniqueBucket } from '../helpers/clients.js';
import { useInProcess } from '../helpers/in-process.js';
import { formWithFile, signedPolicyFields } from '../helpers/post-form.js';
import { expectS3Error, failure } from './s3-assert.js';

/** The seam: pass-through unless a test arms it, then every admitted write waits for the test to let it go. */
const seam = {
  armed: false,
  admitted: 0,
  waiting: [] as (() => void)[],
  async hook(): Promise<void> {
    if (!seam.armed) return;
    seam.admitted++;
    await new Promise<void>((resolve) => seam.waiting.push(resolve));
  },
};

const app = useInProcess({}, { onQuotaAdmitted: () => seam.hook() });
let token: string;
beforeAll(async () => {
  token = await adminLogin(app.server);
});

const s3 = () => sdkClient(app.server);
const put = (bucket: string, key: string, body: string | Buffer) =>
  s3().send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body }));

async function setQuota(bucket: string, quota: { maxBytes?: number; maxObjects?: number }): Promise<void> {
  const res = await adminCall(app.server, token, { method: 'PUT', path: `/buckets/${bucket}/quota`, body: quota });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

async function usage(bucket: string): Promise<{ bytes: number; objects: number }> {
  const res = await adminCall(app.server, token, { method: 'GET', path: `/buckets/${bucket}/quota` });
  return (res.body as { usage: { bytes: number; objects: number } }).usage;
}

async function bucketWithQuota(quota: { maxBytes?: number; maxObjects?: number }): Promise<string> {
  const bucket = uniqueBucket('quota');
  const res = await adminCall(app.server, token, { method: 'POST', path: '/buckets', body: { name: bucket } });
  expect(res.status).toBe(201);
  await setQuota(bucket, quota);
  return bucket;
}

describe('bucket quotas through the S3 API', () => {
  it('allow a PUT that ends exactly at the byte limit and refuse the next with 403 QuotaExceeded', async () => {
    const bucket = await bucketWithQuota({ maxBytes: 100 });
    await put(bucket, 'a', 'x'.repeat(60));
    await put(bucket, 'b', 'x'.repeat(40));
    const err = await expectS3Error(put(bucket, 'c', 'x'), 'QuotaExceeded', 403);
    expect(err.Code ?? err.name).toBe('QuotaExceeded');
    expect(await usage(bucket)).toEqual({ bytes: 100, objects: 2 });
  });

  it('count an overwrite by its growth, and let a delete free room', async () => {
    const bucket = await bucketWithQuota({ maxBytes: 100 });
    await put(bucket, 'a', 'x'.repeat(90));
    await put(bucket, 'a', 'x'.repeat(100));
    await expectS3Error(put(bucket, 'a', 'x'.repeat(101)), 'QuotaExceeded', 403);
    await expectS3Error(put(bucket, 'b', 'x'), 'QuotaExceeded', 403);
    await s3().send(new DeleteObjectCommand({ Bucket: bucket, Key: 'a' }));
    await put(bucket, 'b', 'x'.repeat(100));
  });

  it("count every version's bytes in a versioned bucket", async () => {
    const bucket = await bucketWithQuota({ maxBytes: 100 });
    await s3().send(new PutBucketVersioningCommand({ Bucket: bucket, VersioningConfiguration: { Status: 'Enabled' } }));
    await put(bucket, 'k', 'x'.repeat(60));
    await put(bucket, 'k', 'x'.repeat(40));
    await expectS3Error(put(bucket, 'k', 'x'), 'QuotaExceeded', 403);
  });

  it('limit the object count, and apply a changed quota to the next write', async () => {
    const bucket = await bucketWithQuota({ maxObjects: 1 });
    await put(bucket, 'one', 'x');
    await expectS3Error(put(bucket, 'two', 'x'), 'QuotaExceeded', 403);
    await setQuota(bucket, { maxObjects: 2 });
    await put(bucket, 'two', 'x');
    const cleared = await adminCall(app.server, token, { method: 'DELETE', path: `/buckets/${bucket}/quota` });
    expect(cleared.status).toBe(204);
    await put(bucket, 'three', 'x');
  });

  it('refuse a CopyObject and a POST form upload that would pass the quota', async () => {
    const bucket = await bucketWithQuota({ maxBytes: 100 });
    await put(bucket, 'src', 'x'.repeat(60));
    await expectS3Error(
      s3().send(new CopyObjectCommand({ Bucket: bucket, Key: 'dst', CopySource: `${bucket}/src` })),
      'QuotaExceeded',
      403,
    );
    const fields = signedPolicyFields({
      bucket,
      accessKeyId: app.server.credentials.accessKeyId,
      secretAccessKey: app.server.credentials.secretAccessKey,
      conditions: [['starts-with', '$key', '']],
    });
    const form = formWithFile({ key: 'posted', ...fields }, { filename: 'f', content: 'x'.repeat(41) });
    const res = await fetch(`${app.server.url}/${bucket}`, {
      method: 'POST',
      headers: { 'content-type': form.contentType },
      body: form.body,
    });
    expect(res.status).toBe(403);
    expect(await res.text()).toContain('<Code>QuotaExceeded</Code>');
    expect(await usage(bucket)).toEqual({ bytes: 60, objects: 1 });
  });

  it('count uploaded parts, refuse a part that would pass the quota, and complete the upload', async () => {
    const bucket = await bucketWithQuota({ maxBytes: 1000 });
    const client = s3();
    const { UploadId } = await client.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: 'big' }));
    const part = (n: number, size: number) =>
      client.send(
        new UploadPartCommand({ Bucket: bucket, Key: 'big', UploadId, PartNumber: n, Body: Buffer.alloc(size, 1) }),
      );
    const p1 = await part(1, 600);
    await expectS3Error(part(2, 401), 'QuotaExceeded', 403);
    expect(await usage(bucket)).toEqual({ bytes: 600, objects: 0 });
    await client.send(
      new CompleteMultipartUploadCommand({
        Bucket: bucket,
        Key: 'big',
        UploadId,
        MultipartUpload: { Parts: [{ PartNumber: 1, ETag: p1.ETag }] },
      }),
    );
    expect(await usage(bucket)).toEqual({ bytes: 600, objects: 1 });
    await expectS3Error(put(bucket, 'more', 'x'.repeat(401)), 'QuotaExceeded', 403);
  });

  it('let exactly as many concurrent PUTs succeed as fit, with every one admitted or refused before any commits', async () => {
    const bucket = await bucketWithQuota({ maxBytes: 3000 });
    seam.armed = true;
    seam.admitted = 0;
    let refused = 0;
    try {
      const writes = Array.from({ length: 8 }, (_, i) =>
        put(bucket, `k${i}`, Buffer.alloc(1000, i)).then(
          () => 'ok',
          (err: unknown) => {
            refused++;
            return (err as { name: string }).name;
          },
        ),
      );
      // Every write is either held after admission or already refused: nothing has committed yet.
      await expect.poll(() => seam.admitted + refused, { timeout: 10_000 }).toBe(8);
      expect(seam.admitted).toBe(3);
      expect(await usage(bucket)).toEqual({ bytes: 0, objects: 0 });
      seam.armed = false;
      for (const release of seam.waiting.splice(0)) release();
      const outcomes = await Promise.all(writes);
      expect(outcomes.filter((o) => o === 'ok')).toHaveLength(3);
      expect(outcomes.filter((o) => o === 'QuotaExceeded')).toHaveLength(5);
      expect(await usage(bucket)).toEqual({ bytes: 3000, objects: 3 });
    } finally {
      seam.armed = false;
      for (const release of seam.waiting.splice(0)) release();
    }
  });

  it('answer NoSuchBucket for a quota of a missing bucket, and leave unquoted buckets alone', async () => {
    const res = await adminCall(app.server, token, { method: 'GET', path: '/buckets/no-such-bucket-q/quota' });
    expect(res.status).toBe(404);
    const free = uniqueBucket('free');
    await adminCall(app.server, token, { method: 'POST', path: '/buckets', body: { name: free } });
    await put(free, 'k', 'x'.repeat(5000));
    expect((await failure(put('no-such-bucket-q', 'k', 'x'))).name).toBe('NoSuchBucket');
  });
});
