// Virtual-hosted–style addressing (STORE_DOMAIN): the AWS SDK v3 with its default addressing (no forcePathStyle) talks
// to `<bucket>.s3.test`, resolved to the test server by a custom lookup (no /etc/hosts); SigV2 header and query auth,
// POST forms and CORS preflights work on a bucket's Host; path-style keeps working on the domain itself and on any
// other Host; the admin API stays on the plain Host.

import { Agent, request, type IncomingHttpHeaders } from 'node:http';
import {
  CompleteMultipartUploadCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutBucketCorsCommand,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signatureV2, stringToSignV2 } from '../../src/sigv4/sigv2.js';
import { uniqueBucket } from '../helpers/clients.js';
import { formWithFile, signedPolicyFields } from '../helpers/post-form.js';
import { rawRequest, sha256Hex, signedHeaders, type RawResponse } from '../helpers/signed-http.js';
import { useStore } from '../helpers/store.js';
import { testDns } from '../helpers/test-dns.js';
import { bodyBytes, expectS3Error } from './s3-assert.js';

const DOMAIN = 's3.test';
const store = useStore({ env: { STORE_DOMAIN: DOMAIN }, tmpfs: true });

/** Resolves s3.test and every name under it to the loopback address; `resolved` is proof of what clients addressed. */
const { lookup, resolved } = testDns(DOMAIN);

let vhost: S3Client;
let bucket: string;
const host = (name: string): string => `${name}.${DOMAIN}:${store.server.port}`;

beforeAll(async () => {
  vhost = new S3Client({
    endpoint: `http://${DOMAIN}:${store.server.port}`,
    region: 'us-east-1',
    credentials: store.server.credentials,
    requestHandler: new NodeHttpHandler({ httpAgent: new Agent({ keepAlive: true, lookup }) }),
    maxAttempts: 1,
  });
  bucket = uniqueBucket('vh');
  await vhost.send(new CreateBucketCommand({ Bucket: bucket }));
});
afterAll(() => vhost.destroy());

/** A raw request to the server with this Host, SigV4-signed with the root key unless `sign` is false. */
function hosted(opts: {
  method: string;
  host: string;
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  sign?: boolean;
}): Promise<RawResponse> {
  const headers = { ...opts.headers, host: opts.host };
  const body = opts.body === undefined ? undefined : Buffer.from(opts.body);
  const sent =
    opts.sign === false
      ? headers
      : signedHeaders(store.server, {
          method: opts.method,
          path: opts.path,
          headers,
          sign: { payloadHash: sha256Hex(body ?? '') },
        });
  return rawRequest(store.server, { method: opts.method, path: opts.path, headers: sent, body });
}

/** GET of an absolute URL through the test lookup (the URL's own Host). */
function getUrl(url: string): Promise<{ status: number; headers: IncomingHttpHeaders; text: string }> {
  return new Promise((resolve, reject) => {
    request(url, { lookup, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString() }),
      );
      res.on('error', reject);
    })
      .on('error', reject)
      .end();
  });
}

describe('the AWS SDK v3 with its default (virtual-hosted) addressing', () => {
  it('creates, writes, reads, lists and deletes through <bucket>.<domain>', async () => {
    expect(resolved).toContain(`${bucket}.${DOMAIN}`);
    await vhost.send(
      new PutObjectCommand({ Bucket: bucket, Key: 'dir/a b.txt', Body: 'hello vhost', ContentType: 'text/plain' }),
    );
    const got = await vhost.send(new GetObjectCommand({ Bucket: bucket, Key: 'dir/a b.txt' }));
    expect((await bodyBytes(got.Body)).toString()).toBe('hello vhost');
    expect((await vhost.send(new HeadObjectCommand({ Bucket: bucket, Key: 'dir/a b.txt' }))).ContentLength).toBe(11);
    // The same object, path-style through the fixture's client: one bucket, two addressings.
    const viaPath = await store.s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'dir/a b.txt' }));
    expect((await bodyBytes(viaPath.Body)).toString()).toBe('hello vhost');
    await vhost.send(new PutObjectCommand({ Bucket: bucket, Key: '/leading-slash', Body: 'x' }));
    const listed = await vhost.send(new ListObjectsV2Command({ Bucket: bucket }));
    expect(listed.Contents?.map((o) => o.Key)).toEqual(['/leading-slash', 'dir/a b.txt']);
    await vhost.send(new DeleteObjectCommand({ Bucket: bucket, Key: '/leading-slash' }));
    await vhost.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: [{ Key: 'dir/a b.txt' }] } }));
    expect((await vhost.send(new ListObjectsV2Command({ Bucket: bucket }))).KeyCount).toBe(0);
    await expectS3Error(vhost.send(new GetObjectCommand({ Bucket: bucket, Key: 'dir/a b.txt' })), 'NoSuchKey', 404);
  });

  it('uploads in parts, and CompleteMultipartUpload answers the virtual-hosted Location', async () => {
    const { UploadId } = await vhost.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: 'big.bin' }));
    const first = Buffer.alloc(5 * 1024 * 1024, 1);
    const p1 = await vhost.send(
      new UploadPartCommand({ Bucket: bucket, Key: 'big.bin', UploadId, PartNumber: 1, Body: first }),
    );
    const p2 = await vhost.send(
      new UploadPartCommand({ Bucket: bucket, Key: 'big.bin', UploadId, PartNumber: 2, Body: 'tail' }),
    );
    const done = await vhost.send(
      new CompleteMultipartUploadCommand({
        Bucket: bucket,
        Key: 'big.bin',
        UploadId,
        MultipartUpload: {
          Parts: [
            { PartNumber: 1, ETag: p1.ETag },
            { PartNumber: 2, ETag: p2.ETag },
          ],
        },
      }),
    );
    expect(done.Location).toBe(`http://${host(bucket)}/big.bin`);
    expect((await vhost.send(new HeadObjectCommand({ Bucket: bucket, Key: 'big.bin' }))).ContentLength).toBe(
      first.length + 4,
    );
  });

  it('serves a presigned GET URL made for the bucket host, and refuses it on another bucket host', async () => {
    await vhost.send(new PutObjectCommand({ Bucket: bucket, Key: 'shared.txt', Body: 'presigned' }));
    const url = await getSignedUrl(vhost, new GetObjectCommand({ Bucket: bucket, Key: 'shared.txt' }), {
      expiresIn: 300,
    });
    expect(new URL(url).hostname).toBe(`${bucket}.${DOMAIN}`);
    const ok = await getUrl(url);
    expect(`${ok.status} ${ok.text}`).toBe('200 presigned');
    const other = new URL(url);
    other.hostname = `other.${DOMAIN}`;
    expect((await getUrl(other.toString())).status).toBe(403);
  });

  it('takes a bucket name with dots from the Host', async () => {
    const dotted = `${uniqueBucket('my.dots')}`;
    await store.s3.send(new CreateBucketCommand({ Bucket: dotted }));
    const put = await hosted({ method: 'PUT', host: host(dotted), path: '/k.txt', body: 'dotted' });
    expect(put.status).toBe(200);
    const got = await store.s3.send(new GetObjectCommand({ Bucket: dotted, Key: 'k.txt' }));
    expect((await bodyBytes(got.Body)).toString()).toBe('dotted');
  });
});

describe('Signature Version 2 on a bucket host (the resource is /bucket/key)', () => {
  type V2Request = {
    method: string;
    path: string;
    query?: string;
    headers?: Record<string, string>;
    body?: string;
    signedPath?: string;
  };
  const v2 = (req: V2Request): Promise<RawResponse> => {
    const headers: Record<string, string> = { date: new Date().toUTCString(), ...req.headers };
    // As AWS documents it, without Store's code: the bucket from the Host, then the path.
    const toSign = stringToSignV2(
      { method: req.method, rawPath: req.signedPath ?? `/${bucket}${req.path}`, rawQuery: req.query ?? '', headers },
      headers['date'] ?? '',
    );
    const { accessKeyId, secretAccessKey } = store.server.credentials;
    return rawRequest(store.server, {
      method: req.method,
      path: req.query ? `${req.path}?${req.query}` : req.path,
      body: req.body,
      headers: {
        ...headers,
        host: host(bucket),
        authorization: `AWS ${accessKeyId}:${signatureV2(secretAccessKey, toSign)}`,
      },
    });
  };

  it('takes header-signed PUT, GET, a bucket listing and a sub-resource', async () => {
    expect(
      (await v2({ method: 'PUT', path: '/v2.txt', body: 'signed v2', headers: { 'content-type': 'text/plain' } }))
        .status,
    ).toBe(200);
    const got = await v2({ method: 'GET', path: '/v2.txt' });
    expect(`${got.status} ${got.text}`).toBe('200 signed v2');
    const listing = await v2({ method: 'GET', path: '/', query: 'prefix=v2' });
    expect(listing.text).toContain('<Key>v2.txt</Key>');
    expect((await v2({ method: 'GET', path: '/', query: 'versioning' })).status).toBe(200);
    // A resource without the bucket (the path as sent) is not what AWS signs.
    const wrong = await v2({ method: 'GET', path: '/v2.txt', signedPath: '/v2.txt' });
    expect(wrong.code).toBe('SignatureDoesNotMatch');
  });

  it('serves a SigV2 presigned URL on the bucket host', async () => {
    const expires = String(Math.floor(Date.now() / 1000) + 300);
    const { accessKeyId, secretAccessKey } = store.server.credentials;
    const signature = signatureV2(
      secretAccessKey,
      stringToSignV2({ method: 'GET', rawPath: `/${bucket}/v2.txt`, rawQuery: '', headers: {} }, expires),
    );
    const ok = await getUrl(
      `http://${host(bucket)}/v2.txt?AWSAccessKeyId=${accessKeyId}&Expires=${expires}&Signature=${encodeURIComponent(signature)}`,
    );
    expect(`${ok.status} ${ok.text}`).toBe('200 signed v2');
  });
});

describe('POST forms and CORS on a bucket host', () => {
  it('takes a POST form at / of the bucket host and answers its Location there', async () => {
    const { accessKeyId, secretAccessKey } = store.server.credentials;
    const fields = signedPolicyFields({
      bucket,
      accessKeyId,
      secretAccessKey,
      conditions: [['starts-with', '$key', 'forms/'], { success_action_status: '201' }],
    });
    const form = formWithFile(
      { key: 'forms/${filename}', success_action_status: '201', ...fields },
      { filename: 'up.txt', content: 'form body' },
    );
    const res = await hosted({
      method: 'POST',
      host: host(bucket),
      path: '/',
      headers: { 'content-type': form.contentType },
      body: form.body,
      sign: false,
    });
    expect(res.status).toBe(201);
    expect(res.text).toContain(`<Location>http://${host(bucket)}/forms/up.txt</Location>`);
    expect(res.headers.location).toBe(`http://${host(bucket)}/forms/up.txt`);
    const got = await store.s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'forms/up.txt' }));
    expect((await bodyBytes(got.Body)).toString()).toBe('form body');
  });

  it("answers a preflight from the bucket's rules and adds CORS headers to actual requests", async () => {
    await vhost.send(
      new PutBucketCorsCommand({
        Bucket: bucket,
        CORSConfiguration: {
          CORSRules: [{ AllowedOrigins: ['https://app.example.com'], AllowedMethods: ['GET', 'PUT'] }],
        },
      }),
    );
    const origin = 'https://app.example.com';
    const preflight = await hosted({
      method: 'OPTIONS',
      host: host(bucket),
      path: '/any.txt',
      sign: false,
      headers: { origin, 'access-control-request-method': 'PUT' },
    });
    expect(preflight.status).toBe(200);
    expect(preflight.headers['access-control-allow-origin']).toBe(origin);
    const refused = await hosted({
      method: 'OPTIONS',
      host: host(bucket),
      path: '/any.txt',
      sign: false,
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'PUT' },
    });
    expect(refused.status).toBe(403);
    const actual = await hosted({ method: 'GET', host: host(bucket), path: '/v2.txt', headers: { origin } });
    expect(actual.status).toBe(200);
    expect(actual.headers['access-control-allow-origin']).toBe(origin);
  });
});

describe('path-style and the admin plane with STORE_DOMAIN set', () => {
  it('serves path-style on the domain itself (ListBuckets at /) and on a Host that is not under it', async () => {
    const list = await hosted({ method: 'GET', host: `${DOMAIN}:${store.server.port}`, path: '/' });
    expect(list.status).toBe(200);
    expect(list.text).toContain(`<Name>${bucket}</Name>`);
    for (const name of [
      `${DOMAIN}:${store.server.port}`,
      `store.internal:${store.server.port}`,
      `127.0.0.1:${store.server.port}`,
    ]) {
      const got = await hosted({ method: 'GET', host: name, path: `/${bucket}/v2.txt` });
      expect(`${name} ${got.status} ${got.text}`).toBe(`${name} 200 signed v2`);
    }
  });

  it('keeps the admin API on the plain Host; on a bucket host the same path is an object key', async () => {
    const health = await hosted({
      method: 'GET',
      host: `${DOMAIN}:${store.server.port}`,
      path: '/api/admin/health',
      sign: false,
    });
    expect(health.status).toBe(200);
    expect(JSON.parse(health.text)).toMatchObject({ status: 'ok' });
    const asKey = await hosted({ method: 'GET', host: host(bucket), path: '/api/admin/health' });
    expect(asKey.status).toBe(404);
    expect(asKey.code).toBe('NoSuchKey');
  });

  it('answers NoSuchBucket for a bucket host whose bucket does not exist', async () => {
    const res = await hosted({ method: 'GET', host: host(uniqueBucket('missing')), path: '/' });
    expect(res.status).toBe(404);
    expect(res.code).toBe('NoSuchBucket');
  });
});
