// Virtual-hosted addressing under MOUNT_PATH: with STORE_DOMAIN=s3.test and MOUNT_PATH=/store,
// `<bucket>.s3.test/store/key`
// is the object, for the AWS SDK v3 with its default addressing (endpoint http://s3.test:<port>/store) and for
// presigned URLs; path-style keeps working under the mount on the plain Host, and nothing answers outside it.

import { Agent, request } from 'node:http';
import {
  CreateBucketCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueBucket } from '../helpers/clients.js';
import { rawRequest } from '../helpers/signed-http.js';
import { useStore } from '../helpers/store.js';
import { testDns } from '../helpers/test-dns.js';

const DOMAIN = 's3.test';
const store = useStore({ env: { STORE_DOMAIN: DOMAIN, MOUNT_PATH: '/store' }, tmpfs: true });
const { lookup, resolved } = testDns(DOMAIN);
let vhost: S3Client;
let bucket: string;

beforeAll(async () => {
  vhost = new S3Client({
    endpoint: `http://${DOMAIN}:${store.server.port}/store`,
    region: 'us-east-1',
    credentials: store.server.credentials,
    requestHandler: new NodeHttpHandler({ httpAgent: new Agent({ keepAlive: true, lookup }) }),
    maxAttempts: 1,
  });
  bucket = uniqueBucket('vhm');
  await vhost.send(new CreateBucketCommand({ Bucket: bucket }));
});
afterAll(() => vhost.destroy());

/** GET of an absolute URL through the test lookup. */
function getUrl(url: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    request(url, { lookup, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
      res.on('error', reject);
    })
      .on('error', reject)
      .end();
  });
}

describe('virtual-hosted addressing under MOUNT_PATH', () => {
  it('writes, reads and lists through <bucket>.<domain>/store/key', async () => {
    await vhost.send(new PutObjectCommand({ Bucket: bucket, Key: 'dir/a b.txt', Body: 'mounted' }));
    expect(resolved).toContain(`${bucket}.${DOMAIN}`);
    const got = await vhost.send(new GetObjectCommand({ Bucket: bucket, Key: 'dir/a b.txt' }));
    expect(await got.Body?.transformToString()).toBe('mounted');
    const listed = await vhost.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: 'dir/' }));
    expect(listed.Contents?.map((c) => c.Key)).toEqual(['dir/a b.txt']);
  });

  it('serves a presigned URL on the bucket host under the mount', async () => {
    await vhost.send(new PutObjectCommand({ Bucket: bucket, Key: 'signed.txt', Body: 'presigned' }));
    const url = await getSignedUrl(vhost, new GetObjectCommand({ Bucket: bucket, Key: 'signed.txt' }), {
      expiresIn: 300,
    });
    expect(new URL(url).host).toBe(`${bucket}.${DOMAIN}:${store.server.port}`);
    expect(new URL(url).pathname).toBe('/store/signed.txt');
    expect(await getUrl(url)).toEqual({ status: 200, text: 'presigned' });
  });

  it('keeps path-style under the mount on the plain Host, and nothing answers outside the mount', async () => {
    const res = await store.s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'signed.txt' }));
    expect(await res.Body?.transformToString()).toBe('presigned');
    const outside = await rawRequest(store.server, {
      method: 'GET',
      path: '/signed.txt',
      headers: { host: `${bucket}.${DOMAIN}` },
    });
    expect(outside.status).toBe(404);
  });
});
