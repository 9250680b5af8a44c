// Bucket operations through @aws-sdk/client-s3 at its default settings against the real server.

import {
  CreateBucketCommand,
  DeleteBucketCommand,
  DeleteObjectCommand,
  GetBucketLocationCommand,
  HeadBucketCommand,
  ListBucketsCommand,
  PutObjectCommand,
} from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { uniqueBucket } from '../helpers/clients.js';
import { useStore } from '../helpers/store.js';
import { expectS3Error } from './s3-assert.js';

const store = useStore();

describe('CreateBucket', () => {
  it('creates a bucket that then answers HeadBucket 200 with its region', async () => {
    const bucket = uniqueBucket();
    const created = await store.s3.send(new CreateBucketCommand({ Bucket: bucket }));
    expect(created.$metadata.httpStatusCode).toBe(200);
    expect(created.Location).toBe(`/${bucket}`);
    const head = await store.s3.send(new HeadBucketCommand({ Bucket: bucket }));
    expect(head.$metadata.httpStatusCode).toBe(200);
    expect(head.BucketRegion).toBe('us-east-1');
  });

  it.each([
    ['too short', 'ab'],
    ['too long', 'a'.repeat(64)],
    ['upper case', 'Upper-Case-Bucket'],
    ['underscore', 'under_score'],
    ['adjacent dots', 'a..b'],
    ['IPv4 address', '192.168.1.1'],
    ['leading hyphen', '-leading'],
    ['trailing hyphen', 'trailing-'],
    ['reserved prefix xn--', 'xn--bucket'],
    ['reserved suffix -s3alias', 'bucket-s3alias'],
    ['reserved name api', 'api'],
    ['reserved name admin', 'admin'],
    ['reserved name metrics', 'metrics'],
  ])('refuses a bucket name that is %s with InvalidBucketName', async (_why, name) => {
    await expectS3Error(store.s3.send(new CreateBucketCommand({ Bucket: name })), 'InvalidBucketName', 400);
  });

  it("accepts a LocationConstraint naming the server's own region (us-east-1)", async () => {
    const bucket = uniqueBucket();
    // The SDK's enum has no us-east-1 (AWS wants it left empty); Store accepts its own region, as MinIO does.
    const created = await store.s3.send(
      new CreateBucketCommand({
        Bucket: bucket,
        CreateBucketConfiguration: { LocationConstraint: 'us-east-1' as 'us-east-2' },
      }),
    );
    expect(created.$metadata.httpStatusCode).toBe(200);
    const location = await store.s3.send(new GetBucketLocationCommand({ Bucket: bucket }));
    expect(location.LocationConstraint).toBeUndefined();
  });

  it('refuses a LocationConstraint naming another region with InvalidLocationConstraint and creates nothing', async () => {
    const bucket = uniqueBucket();
    await expectS3Error(
      store.s3.send(
        new CreateBucketCommand({ Bucket: bucket, CreateBucketConfiguration: { LocationConstraint: 'eu-west-1' } }),
      ),
      'InvalidLocationConstraint',
      400,
    );
    await expectS3Error(store.s3.send(new HeadBucketCommand({ Bucket: bucket })), 'NotFound', 404);
  });
});

describe('HeadBucket', () => {
  it('answers 404 NotFound for a missing bucket', async () => {
    await expectS3Error(store.s3.send(new HeadBucketCommand({ Bucket: uniqueBucket('missing') })), 'NotFound', 404);
  });
});

describe('DeleteBucket', () => {
  it('deletes an empty bucket with 204, after which it is gone', async () => {
    const bucket = uniqueBucket();
    await store.s3.send(new CreateBucketCommand({ Bucket: bucket }));
    const deleted = await store.s3.send(new DeleteBucketCommand({ Bucket: bucket }));
    expect(deleted.$metadata.httpStatusCode).toBe(204);
    await expectS3Error(store.s3.send(new HeadBucketCommand({ Bucket: bucket })), 'NotFound', 404);
  });

  it('refuses a bucket holding an object with BucketNotEmpty (409), and deletes it once emptied', async () => {
    const bucket = uniqueBucket();
    await store.s3.send(new CreateBucketCommand({ Bucket: bucket }));
    await store.s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'k', Body: 'x' }));
    await expectS3Error(store.s3.send(new DeleteBucketCommand({ Bucket: bucket })), 'BucketNotEmpty', 409);
    await store.s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: 'k' }));
    const deleted = await store.s3.send(new DeleteBucketCommand({ Bucket: bucket }));
    expect(deleted.$metadata.httpStatusCode).toBe(204);
  });

  it('answers NoSuchBucket (404) for a missing bucket', async () => {
    await expectS3Error(
      store.s3.send(new DeleteBucketCommand({ Bucket: uniqueBucket('missing') })),
      'NoSuchBucket',
      404,
    );
  });
});

describe('GetBucketLocation', () => {
  it('answers an empty LocationConstraint (us-east-1) for an existing bucket', async () => {
    const bucket = uniqueBucket();
    await store.s3.send(new CreateBucketCommand({ Bucket: bucket }));
    const location = await store.s3.send(new GetBucketLocationCommand({ Bucket: bucket }));
    expect(location.$metadata.httpStatusCode).toBe(200);
    expect(location.LocationConstraint).toBeUndefined();
  });

  it('answers NoSuchBucket for a missing bucket', async () => {
    await expectS3Error(
      store.s3.send(new GetBucketLocationCommand({ Bucket: uniqueBucket('missing') })),
      'NoSuchBucket',
      404,
    );
  });
});

describe('ListBuckets', () => {
  it('lists every bucket in name order with creation dates and regions', async () => {
    const names = [uniqueBucket('lb'), uniqueBucket('lb'), uniqueBucket('lb')];
    for (const name of names) await store.s3.send(new CreateBucketCommand({ Bucket: name }));
    const listed = await store.s3.send(new ListBucketsCommand({}));
    const all = (listed.Buckets ?? []).map((b) => b.Name as string);
    expect(all).toEqual([...all].sort());
    for (const name of names) expect(all).toContain(name);
    const one = listed.Buckets?.find((b) => b.Name === names[0]);
    expect(one?.CreationDate).toBeInstanceOf(Date);
    expect(Math.abs((one?.CreationDate as Date).getTime() - Date.now())).toBeLessThan(60_000);
    expect(one?.BucketRegion).toBe('us-east-1');
    expect(listed.Owner?.ID).toMatch(/^[0-9a-f]{64}$/);
    expect(listed.ContinuationToken).toBeUndefined();
  });

  it('filters by Prefix and echoes it', async () => {
    const prefix = uniqueBucket('pfx');
    const names = [`${prefix}-a`, `${prefix}-b`];
    for (const name of names) await store.s3.send(new CreateBucketCommand({ Bucket: name }));
    const listed = await store.s3.send(new ListBucketsCommand({ Prefix: prefix }));
    expect((listed.Buckets ?? []).map((b) => b.Name)).toEqual(names);
    expect(listed.Prefix).toBe(prefix);
  });

  it('pages with MaxBuckets and ContinuationToken, visiting every bucket exactly once', async () => {
    const prefix = uniqueBucket('page');
    const names = ['a', 'b', 'c', 'd', 'e'].map((s) => `${prefix}-${s}`);
    for (const name of names) await store.s3.send(new CreateBucketCommand({ Bucket: name }));
    const seen: string[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const page = await store.s3.send(
        new ListBucketsCommand({ Prefix: prefix, MaxBuckets: 2, ContinuationToken: token }),
      );
      pages++;
      expect((page.Buckets ?? []).length).toBeLessThanOrEqual(2);
      seen.push(...(page.Buckets ?? []).map((b) => b.Name as string));
      token = page.ContinuationToken;
    } while (token !== undefined && pages < 10);
    expect(pages).toBe(3);
    expect(seen).toEqual(names);
  });
});
