// Signature Version 2 against the real server: header-signed requests, presigned URLs (query authentication) and
// POST forms, with the same credentials and authorization as SigV4 (bucket policies decide for keys and anonymous
// alike), the same errors, store_s3_auth_total{scheme}, and STORE_SIGV2=off refusing all three. The clients that
// sign this way by default (boto3, the AWS CLI v1, s3cmd signurl) are driven in test/e2e.

import {
  CreateBucketCommand,
  GetObjectCommand,
  PutBucketPolicyCommand,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { beforeAll, describe, expect, it } from 'vitest';
import { signatureV2, stringToSignV2 } from '../../src/sigv4/sigv2.js';
import type { SignedRequest } from '../../src/sigv4/types.js';
import { uniqueBucket } from '../helpers/clients.js';
import { parseSamples, scrape, valueOf } from '../helpers/metrics-scrape.js';
import { formWithFile } from '../helpers/post-form.js';
import { rawRequest, type RawResponse } from '../helpers/signed-http.js';
import type { RunningServer } from '../helpers/server.js';
import { useStore } from '../helpers/store.js';
import { bodyBytes } from './s3-assert.js';

interface Credentials {
  accessKeyId: string;
  secretAccessKey: string;
}

/** A request signed with SigV2 in the Authorization header, sent over a raw socket exactly as built. */
function sendV2(
  server: RunningServer,
  creds: Credentials,
  req: { method: string; path: string; query?: string; headers?: Record<string, string>; body?: Buffer | string },
): Promise<RawResponse> {
  const headers: Record<string, string> = { date: new Date().toUTCString(), ...req.headers };
  const signable: SignedRequest = { method: req.method, rawPath: req.path, rawQuery: req.query ?? '', headers };
  const signature = signatureV2(creds.secretAccessKey, stringToSignV2(signable, headers['date'] ?? ''));
  return rawRequest(server, {
    method: req.method,
    path: req.query ? `${req.path}?${req.query}` : req.path,
    body: req.body,
    headers: { ...headers, authorization: `AWS ${creds.accessKeyId}:${signature}` },
  });
}

/** A SigV2 presigned URL (AWSAccessKeyId, Expires, Signature) for a GET. */
function presignV2(
  server: RunningServer,
  creds: Credentials,
  { path, expiresInSeconds, query = '' }: { path: string; expiresInSeconds: number; query?: string },
): string {
  const expires = String(Math.floor(Date.now() / 1000) + expiresInSeconds);
  const signature = signatureV2(
    creds.secretAccessKey,
    stringToSignV2({ method: 'GET', rawPath: path, rawQuery: query, headers: {} }, expires),
  );
  const auth = `AWSAccessKeyId=${creds.accessKeyId}&Expires=${expires}&Signature=${encodeURIComponent(signature)}`;
  return `${server.url}${path}?${query === '' ? auth : `${query}&${auth}`}`;
}

/** A POST form signed with SigV2: AWSAccessKeyId, policy, signature = base64(HMAC-SHA1(secret, policy)). */
function formV2(creds: Credentials, { bucket, key }: { bucket: string; key: string }, content: string) {
  const policy = Buffer.from(
    JSON.stringify({
      expiration: new Date(Date.now() + 600_000).toISOString(),
      conditions: [{ bucket }, ['starts-with', '$key', '']],
    }),
  ).toString('base64');
  return formWithFile(
    { key, AWSAccessKeyId: creds.accessKeyId, policy, signature: signatureV2(creds.secretAccessKey, policy) },
    { filename: 'f.txt', content },
  );
}

describe('SigV2 on (the default)', () => {
  const store = useStore({ env: { METRICS_MODE: 'public' } });
  let server: RunningServer;
  let s3: S3Client;
  let bucket: string;
  beforeAll(async () => {
    ({ server, s3 } = store);
    bucket = await store.bucket('sigv2');
  });

  it('takes header-signed PUT and GET with metadata and a sub-resource, and counts them as sigv2', async () => {
    const before = valueOf(parseSamples((await scrape(server)).text), 'store_s3_auth_total', { scheme: 'sigv2' }) ?? 0;
    const put = await sendV2(server, server.credentials, {
      method: 'PUT',
      path: `/${bucket}/dir/a%20b.txt`,
      body: 'hello v2',
      headers: { 'content-type': 'text/plain', 'x-amz-meta-who': 'sigv2', 'x-amz-tagging': 'k=v' },
    });
    expect(put.status).toBe(200);
    const got = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'dir/a b.txt' }));
    expect((await bodyBytes(got.Body)).toString()).toBe('hello v2');
    expect(got.Metadata).toEqual({ who: 'sigv2' });
    const read = await sendV2(server, server.credentials, { method: 'GET', path: `/${bucket}/dir/a%20b.txt` });
    expect(read.status).toBe(200);
    expect(read.text).toBe('hello v2');
    const tagging = await sendV2(server, server.credentials, {
      method: 'GET',
      path: `/${bucket}/dir/a%20b.txt`,
      query: 'tagging',
    });
    expect(tagging.status).toBe(200);
    expect(tagging.text).toContain('<Key>k</Key><Value>v</Value>');
    const listing = await sendV2(server, server.credentials, {
      method: 'GET',
      path: `/${bucket}`,
      query: 'list-type=2&prefix=dir%2F',
    });
    expect(listing.text).toContain('<Key>dir/a b.txt</Key>');
    const after = valueOf(parseSamples((await scrape(server)).text), 'store_s3_auth_total', { scheme: 'sigv2' }) ?? 0;
    expect(after - before).toBe(4);
    expect(
      valueOf(parseSamples((await scrape(server)).text), 'store_s3_auth_total', { scheme: 'sigv4' }),
    ).toBeGreaterThan(0);
  });

  it('refuses a wrong signature with the string to sign, an unknown key, and a skewed date, as SigV4 does', async () => {
    const wrong = await sendV2(
      server,
      { ...server.credentials, secretAccessKey: 'x'.repeat(40) },
      { method: 'GET', path: `/${bucket}/dir/a%20b.txt` },
    );
    expect(wrong.status).toBe(403);
    expect(wrong.code).toBe('SignatureDoesNotMatch');
    expect(wrong.text).toContain('<StringToSign>GET&#xA;&#xA;&#xA;');
    const unknown = await sendV2(
      server,
      { accessKeyId: 'AKIDNOTAKEY00000', secretAccessKey: 'x'.repeat(40) },
      { method: 'GET', path: `/${bucket}/x` },
    );
    expect(unknown.code).toBe('InvalidAccessKeyId');
    const skewed = await sendV2(server, server.credentials, {
      method: 'GET',
      path: `/${bucket}/x`,
      headers: { date: new Date(Date.now() - 3_600_000).toUTCString() },
    });
    expect(skewed.status).toBe(403);
    expect(skewed.code).toBe('RequestTimeTooSkewed');
  });

  it('serves a presigned URL until it expires, and refuses one that was changed', async () => {
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'shared.txt', Body: 'shared' }));
    const url = presignV2(server, server.credentials, {
      path: `/${bucket}/shared.txt`,
      expiresInSeconds: 300,
      query: 'response-content-type=text%2Fplain',
    });
    const ok = await fetch(url);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toBe('text/plain');
    expect(await ok.text()).toBe('shared');
    expect((await fetch(url.replace('text%2Fplain', 'text%2Fhtml'))).status).toBe(403);
    const expired = await fetch(
      presignV2(server, server.credentials, { path: `/${bucket}/shared.txt`, expiresInSeconds: -10 }),
    );
    expect(expired.status).toBe(403);
    expect(await expired.text()).toContain('Request has expired');
  });

  it('takes a SigV2 POST form, and refuses one signed with another secret', async () => {
    const form = formV2(server.credentials, { bucket, key: 'posted.txt' }, 'from a v2 form');
    const res = await rawRequest(server, {
      method: 'POST',
      path: `/${bucket}`,
      headers: { 'content-type': form.contentType },
      body: form.body,
    });
    expect(`${res.status} ${res.text}`).toBe('204 ');
    const got = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'posted.txt' }));
    expect((await bodyBytes(got.Body)).toString()).toBe('from a v2 form');
    const forged = formV2(
      { ...server.credentials, secretAccessKey: 'y'.repeat(40) },
      { bucket, key: 'forged.txt' },
      'x',
    );
    const refused = await rawRequest(server, {
      method: 'POST',
      path: `/${bucket}`,
      headers: { 'content-type': forged.contentType },
      body: forged.body,
    });
    expect(refused.status).toBe(403);
    expect(refused.code).toBe('SignatureDoesNotMatch');
    // A SigV2 form missing one of its three fields names it.
    for (const missing of ['AWSAccessKeyId', 'signature', 'policy']) {
      const fields: Record<string, string> = {
        key: 'partial.txt',
        AWSAccessKeyId: store.server.credentials.accessKeyId,
        policy: 'e30=',
        signature: 'x',
      };
      delete fields[missing];
      const partial = formWithFile(fields, { filename: 'f.txt', content: 'x' });
      const res = await rawRequest(server, {
        method: 'POST',
        path: `/${bucket}`,
        headers: { 'content-type': partial.contentType },
        body: partial.body,
      });
      expect({ status: res.status, code: res.code }, missing).toEqual({ status: 400, code: 'InvalidArgument' });
    }
  });

  it('authorizes a SigV2 request as the same key: a bucket policy denying it applies, s3:signatureversion is AWS', async () => {
    const denied = uniqueBucket('sigv2-deny');
    await s3.send(new CreateBucketCommand({ Bucket: denied }));
    await s3.send(
      new PutBucketPolicyCommand({
        Bucket: denied,
        Policy: JSON.stringify({
          Version: '2012-10-17',
          Statement: [
            {
              Effect: 'Deny',
              Principal: '*',
              Action: 's3:GetObject',
              Resource: `arn:aws:s3:::${denied}/*`,
              Condition: { StringEquals: { 's3:signatureversion': 'AWS' } },
            },
          ],
        }),
      }),
    );
    await s3.send(new PutObjectCommand({ Bucket: denied, Key: 'k', Body: 'v4 only' }));
    const v2 = await sendV2(server, server.credentials, { method: 'GET', path: `/${denied}/k` });
    expect(v2.status).toBe(403);
    expect(v2.code).toBe('AccessDenied');
    const v4 = await s3.send(new GetObjectCommand({ Bucket: denied, Key: 'k' }));
    expect((await bodyBytes(v4.Body)).toString()).toBe('v4 only');
  });
});

describe('STORE_SIGV2=off', () => {
  const store = useStore({ env: { STORE_SIGV2: 'off' } });
  let server: RunningServer;
  let bucket: string;
  beforeAll(async () => {
    server = store.server;
    bucket = await store.bucket('nov2');
    await store.s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'k', Body: 'v' }));
  });

  it('refuses header, query and form SigV2 with InvalidRequest, naming SigV4', async () => {
    const header = await sendV2(server, server.credentials, { method: 'GET', path: `/${bucket}/k` });
    expect({ status: header.status, code: header.code }).toEqual({ status: 400, code: 'InvalidRequest' });
    expect(header.text).toContain('Please use AWS4-HMAC-SHA256');
    const query = await fetch(presignV2(server, server.credentials, { path: `/${bucket}/k`, expiresInSeconds: 300 }));
    expect(query.status).toBe(400);
    expect(await query.text()).toContain('<Code>InvalidRequest</Code>');
    const form = formV2(server.credentials, { bucket, key: 'posted.txt' }, 'x');
    const posted = await rawRequest(server, {
      method: 'POST',
      path: `/${bucket}`,
      headers: { 'content-type': form.contentType },
      body: form.body,
    });
    expect({ status: posted.status, code: posted.code }).toEqual({ status: 400, code: 'InvalidRequest' });
  });
});
