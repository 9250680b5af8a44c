// `Expect: 100-continue`: an S3 upload that will be refused (bad signature, AccessDenied, NoSuchBucket) hears its error
// before it sends the body; one that will be accepted gets `100 Continue`, then its answer; the admin API answers
// `100 Continue` at once. The client here sends the body only on 'continue', as boto3 and the AWS CLI do.

import { request } from 'node:http';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { beforeAll, describe, expect, it } from 'vitest';
import { uniqueBucket } from '../helpers/clients.js';
import { sha256Hex, signedHeaders, type SignOptions } from '../helpers/signed-http.js';
import { useStore } from '../helpers/store.js';
import { bodyBytes } from './s3-assert.js';

const store = useStore();
let bucket: string;

beforeAll(async () => {
  bucket = await store.bucket('expect');
});

interface Exchange {
  /** Whether the server sent `100 Continue` (and the client therefore sent its body). */
  continued: boolean;
  status: number;
  connection: string | undefined;
  text: string;
  code: string | undefined;
}

/** Sends headers with `Expect: 100-continue`; the body goes only after `100 Continue`. */
function expecting(opts: {
  method: string;
  path: string;
  body: string;
  headers?: Record<string, string>;
  sign?: SignOptions | false;
}): Promise<Exchange> {
  const base = { 'content-length': String(Buffer.byteLength(opts.body)), ...opts.headers };
  const headers =
    opts.sign === false
      ? base
      : signedHeaders(store.server, {
          method: opts.method,
          path: opts.path,
          headers: base,
          sign: { payloadHash: sha256Hex(opts.body), ...opts.sign },
        });
  return new Promise((resolve, reject) => {
    let continued = false;
    const req = request({
      host: '127.0.0.1',
      port: store.server.port,
      method: opts.method,
      path: opts.path,
      agent: false,
      headers: { ...headers, expect: '100-continue' },
    });
    req.on('continue', () => {
      continued = true;
      req.end(opts.body);
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        resolve({
          continued,
          status: res.statusCode ?? 0,
          connection: res.headers.connection,
          text,
          code: /<Code>([^<]*)<\/Code>/.exec(text)?.[1],
        });
        // A refused request never sends its body: the exchange ends here.
        if (!continued) req.destroy();
      });
    });
    req.on('error', (err) => {
      if (!req.destroyed || continued) reject(err);
    });
    req.flushHeaders();
  });
}

describe('Expect: 100-continue on the S3 plane', () => {
  it('refuses a bad signature before the body is sent', async () => {
    const res = await expecting({
      method: 'PUT',
      path: `/${bucket}/bad-sig.txt`,
      body: 'never sent',
      sign: { secretAccessKey: 'x'.repeat(40) },
    });
    expect(res).toMatchObject({ continued: false, status: 403, code: 'SignatureDoesNotMatch', connection: 'close' });
  });

  it('refuses an anonymous PUT to a private bucket before the body is sent', async () => {
    const res = await expecting({ method: 'PUT', path: `/${bucket}/anon.txt`, body: 'never sent', sign: false });
    expect(res).toMatchObject({ continued: false, status: 403, code: 'AccessDenied' });
  });

  it('answers NoSuchBucket before the body is sent', async () => {
    const res = await expecting({ method: 'PUT', path: `/${uniqueBucket('missing')}/k.txt`, body: 'never sent' });
    expect(res).toMatchObject({ continued: false, status: 404, code: 'NoSuchBucket' });
  });

  it('asks for the body of an accepted PUT, then stores it', async () => {
    const res = await expecting({ method: 'PUT', path: `/${bucket}/ok.txt`, body: 'sent after 100 Continue' });
    expect(res).toMatchObject({ continued: true, status: 200 });
    const got = await store.s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'ok.txt' }));
    expect((await bodyBytes(got.Body)).toString()).toBe('sent after 100 Continue');
  });

  it('asks for the body of a POST form (its signature is in the body)', async () => {
    const res = await expecting({
      method: 'POST',
      path: `/${bucket}`,
      body: '--x\r\nContent-Disposition: form-data; name="key"\r\n\r\nk\r\n--x--\r\n',
      headers: { 'content-type': 'multipart/form-data; boundary=x' },
      sign: false,
    });
    // Read, then refused for what the form lacks (no file): the body was asked for.
    expect(res.continued).toBe(true);
    expect(res.status).toBe(400);
  });
});

describe('Expect: 100-continue on the admin API', () => {
  it('answers 100 Continue and then the route', async () => {
    const name = uniqueBucket('admin-expect');
    const res = await expecting({
      method: 'POST',
      path: '/api/admin/buckets',
      body: JSON.stringify({ name }),
      sign: false,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${await store.admin()}` },
    });
    expect(res).toMatchObject({ continued: true, status: 201 });
    expect(JSON.parse(res.text)).toMatchObject({ name });
  });
});
