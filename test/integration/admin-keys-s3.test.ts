// Scoped access keys on the S3 plane, through the AWS SDK: a prefix scope allows exactly its prefix in its bucket, an
// inline policy's Deny wins, a bucket-policy Deny beats the key, and rotation, disabling and revocation take effect
// on the next request. The secret never reaches the database files or the server's output in plaintext.

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import {
  CreateBucketCommand,
  DeleteObjectCommand,
  GetBucketVersioningCommand,
  GetObjectCommand,
  ListBucketsCommand,
  ListObjectsV2Command,
  PutBucketPolicyCommand,
  PutBucketVersioningCommand,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { beforeAll, describe, expect, it } from 'vitest';
import { sdkClient, uniqueBucket } from '../helpers/clients.js';
import { useStore } from '../helpers/store.js';
import { bodyBytes, expectS3Error } from './s3-assert.js';

const store = useStore();
const secrets: string[] = [];

interface Issued {
  accessKeyId: string;
  secretAccessKey: string;
}

async function createKey(body: Record<string, unknown>): Promise<Issued> {
  const res = await store.adminCall('POST', '/keys', { name: 'test key', ...body });
  expect(res.status).toBe(201);
  const issued = res.body as Issued;
  secrets.push(issued.secretAccessKey);
  return issued;
}

const clientFor = (key: Issued): S3Client => sdkClient(store.server, key);

async function newBucket(): Promise<string> {
  return store.bucket('keys');
}

const put = (s3: S3Client, bucket: string, key: string) =>
  s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: `body of ${key}` }));

describe('a key scoped to photos/ in one bucket', () => {
  let bucket: string;
  let other: string;
  let s3: S3Client;

  beforeAll(async () => {
    bucket = await newBucket();
    other = await newBucket();
    await put(store.s3, bucket, 'docs/private.txt');
    await put(store.s3, other, 'photos/elsewhere.jpg');
    s3 = clientFor(await createKey({ permissions: { scope: { bucket, prefix: 'photos/' } } }));
  });

  it('puts, gets, lists and deletes under photos/', async () => {
    await put(s3, bucket, 'photos/a.jpg');
    const got = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'photos/a.jpg' }));
    expect((await bodyBytes(got.Body)).toString()).toBe('body of photos/a.jpg');
    const listed = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: 'photos/' }));
    expect(listed.Contents?.map((o) => o.Key)).toEqual(['photos/a.jpg']);
    await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: 'photos/a.jpg' }));
    await expectS3Error(store.s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'photos/a.jpg' })), 'NoSuchKey', 404);
  });

  it('is denied other prefixes of its bucket, and listing the bucket root', async () => {
    await expectS3Error(
      s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'docs/private.txt' })),
      'AccessDenied',
      403,
    );
    await expectS3Error(put(s3, bucket, 'docs/new.txt'), 'AccessDenied', 403);
    await expectS3Error(
      s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: 'docs/private.txt' })),
      'AccessDenied',
      403,
    );
    await expectS3Error(s3.send(new ListObjectsV2Command({ Bucket: bucket })), 'AccessDenied', 403);
    await expectS3Error(s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: 'docs/' })), 'AccessDenied', 403);
  });

  it('is denied other buckets, ListBuckets and bucket configuration', async () => {
    await expectS3Error(
      s3.send(new GetObjectCommand({ Bucket: other, Key: 'photos/elsewhere.jpg' })),
      'AccessDenied',
      403,
    );
    await expectS3Error(put(s3, other, 'photos/b.jpg'), 'AccessDenied', 403);
    await expectS3Error(s3.send(new ListBucketsCommand({})), 'AccessDenied', 403);
    await expectS3Error(s3.send(new GetBucketVersioningCommand({ Bucket: bucket })), 'AccessDenied', 403);
    await expectS3Error(
      s3.send(new PutBucketVersioningCommand({ Bucket: bucket, VersioningConfiguration: { Status: 'Enabled' } })),
      'AccessDenied',
      403,
    );
    await expectS3Error(s3.send(new CreateBucketCommand({ Bucket: uniqueBucket('keys') })), 'AccessDenied', 403);
  });

  it('is denied by an explicit bucket-policy Deny that names it, within its scope', async () => {
    const key = await createKey({ permissions: { scope: { bucket, prefix: 'photos/' } } });
    await store.s3.send(
      new PutBucketPolicyCommand({
        Bucket: bucket,
        Policy: JSON.stringify({
          Version: '2012-10-17',
          Statement: [
            {
              Effect: 'Deny',
              Principal: { AWS: key.accessKeyId },
              Action: 's3:PutObject',
              Resource: `arn:aws:s3:::${bucket}/photos/raw/*`,
            },
          ],
        }),
      }),
    );
    await expectS3Error(put(clientFor(key), bucket, 'photos/raw/x.dng'), 'AccessDenied', 403);
    await put(clientFor(key), bucket, 'photos/ok.jpg');
    // The same policy does not touch the other key.
    await put(s3, bucket, 'photos/raw/y.dng');
  });
});

describe('an inline policy', () => {
  it('allows what it allows, and its Deny wins over its Allow', async () => {
    const bucket = await newBucket();
    const key = await createKey({
      permissions: {
        policy: {
          Version: '2012-10-17',
          Statement: [
            {
              Effect: 'Allow',
              Action: ['s3:GetObject', 's3:PutObject', 's3:DeleteObject'],
              Resource: `arn:aws:s3:::${bucket}/*`,
            },
            { Effect: 'Allow', Action: 's3:ListAllMyBuckets', Resource: '*' },
            { Effect: 'Deny', Action: 's3:DeleteObject', Resource: `arn:aws:s3:::${bucket}/keep/*` },
          ],
        },
      },
    });
    const s3 = clientFor(key);
    await put(s3, bucket, 'keep/a.txt');
    await put(s3, bucket, 'tmp/b.txt');
    await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: 'tmp/b.txt' }));
    await expectS3Error(s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: 'keep/a.txt' })), 'AccessDenied', 403);
    expect((await s3.send(new ListBucketsCommand({}))).Buckets?.map((b) => b.Name)).toContain(bucket);
    await expectS3Error(s3.send(new ListObjectsV2Command({ Bucket: bucket })), 'AccessDenied', 403);
  });

  it('a key without permissions is denied everything', async () => {
    const bucket = await newBucket();
    const s3 = clientFor(await createKey({}));
    await expectS3Error(put(s3, bucket, 'a.txt'), 'AccessDenied', 403);
    await expectS3Error(s3.send(new ListBucketsCommand({})), 'AccessDenied', 403);
  });
});

describe('key lifecycle on the S3 plane', () => {
  it('rotation: the old secret fails on the next request, the new one works', async () => {
    const bucket = await newBucket();
    const key = await createKey({ permissions: { scope: { bucket } } });
    await put(clientFor(key), bucket, 'a.txt');
    const rotated = await store.adminCall('POST', `/keys/${key.accessKeyId}/rotate`);
    const fresh = { accessKeyId: key.accessKeyId, secretAccessKey: (rotated.body as Issued).secretAccessKey };
    secrets.push(fresh.secretAccessKey);
    await expectS3Error(put(clientFor(key), bucket, 'b.txt'), 'SignatureDoesNotMatch', 403);
    await put(clientFor(fresh), bucket, 'b.txt');
  });

  it('disabling answers InvalidAccessKeyId like an unknown key; enabling restores it; revoking ends it', async () => {
    const bucket = await newBucket();
    const key = await createKey({ permissions: { scope: { bucket } } });
    const s3 = clientFor(key);
    await put(s3, bucket, 'a.txt');
    await store.adminCall('PATCH', `/keys/${key.accessKeyId}`, { enabled: false });
    await expectS3Error(put(s3, bucket, 'b.txt'), 'InvalidAccessKeyId', 403);
    await store.adminCall('PATCH', `/keys/${key.accessKeyId}`, { enabled: true });
    await put(s3, bucket, 'b.txt');
    expect((await store.adminCall('DELETE', `/keys/${key.accessKeyId}`)).status).toBe(204);
    await expectS3Error(put(s3, bucket, 'c.txt'), 'InvalidAccessKeyId', 403);
    await expectS3Error(
      put(clientFor({ accessKeyId: 'UNKNOWNKEY0000000000', secretAccessKey: key.secretAccessKey }), bucket, 'd.txt'),
      'InvalidAccessKeyId',
      403,
    );
  });

  it('narrowing the permissions applies to the next request', async () => {
    const bucket = await newBucket();
    const key = await createKey({ permissions: { scope: { bucket } } });
    await put(clientFor(key), bucket, 'docs/a.txt');
    await store.adminCall('PATCH', `/keys/${key.accessKeyId}`, {
      permissions: { scope: { bucket, prefix: 'photos/' } },
    });
    await expectS3Error(put(clientFor(key), bucket, 'docs/b.txt'), 'AccessDenied', 403);
  });

  it('records the last use', async () => {
    const bucket = await newBucket();
    const key = await createKey({ permissions: { scope: { bucket } } });
    const before = (await store.adminCall('GET', `/keys/${key.accessKeyId}`)).body as { lastUsedAt: string | null };
    expect(before.lastUsedAt).toBeNull();
    await put(clientFor(key), bucket, 'a.txt');
    const after = (await store.adminCall('GET', `/keys/${key.accessKeyId}`)).body as { lastUsedAt: string | null };
    expect(Date.parse(after.lastUsedAt ?? '')).not.toBeNaN();
  });
});

/** Every file under dir, recursively. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

describe('secrets at rest and in logs', () => {
  it('no secret issued in this file appears in the data directory (meta.db and its WAL) or the server output', async () => {
    expect(secrets.length).toBeGreaterThan(5);
    const files = filesUnder(store.server.dataDir);
    expect(files.map((f) => f.slice(store.server.dataDir.length))).toEqual(
      expect.arrayContaining(['/meta.db', '/meta.db-wal']),
    );
    const wal = readFileSync(join(store.server.dataDir, 'meta.db-wal'));
    // The WAL holds the recent commits: the key rows are there, sealed.
    expect(wal.includes(Buffer.from('test key'))).toBe(true);
    for (const file of files) {
      const bytes = readFileSync(file);
      for (const secret of secrets)
        expect({ file, found: bytes.includes(Buffer.from(secret)) }).toEqual({ file, found: false });
    }
    await new Promise((r) => setTimeout(r, 200));
    for (const secret of secrets) expect(store.server.output()).not.toContain(secret);
  });
});
