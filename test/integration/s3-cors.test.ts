// CORS on the S3 plane: OPTIONS preflights answered from the bucket's rules without authentication (matched,
// wildcard origins, refused, malformed), and the Access-Control-* headers on actual requests, errors included.

import { PutBucketCorsCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { beforeAll, describe, expect, it } from 'vitest';
import { uniqueBucket } from '../helpers/clients.js';
import { rawRequest, type RawResponse } from '../helpers/signed-http.js';
import { useStore } from '../helpers/store.js';

const store = useStore();
let bucket: string;
let plain: string;

const VARY = 'Origin, Access-Control-Request-Headers, Access-Control-Request-Method';

beforeAll(async () => {
  bucket = await store.bucket('cors');
  plain = await store.bucket('nocors');
  await store.s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'a.txt', Body: 'hello' }));
  await store.s3.send(
    new PutBucketCorsCommand({
      Bucket: bucket,
      CORSConfiguration: {
        CORSRules: [
          {
            AllowedOrigins: ['https://app.example.com'],
            AllowedMethods: ['GET', 'PUT'],
            AllowedHeaders: ['content-type', 'x-amz-*'],
            ExposeHeaders: ['ETag', 'x-amz-version-id'],
            MaxAgeSeconds: 600,
          },
          { AllowedOrigins: ['http://*.example.org'], AllowedMethods: ['GET'] },
          { AllowedOrigins: ['*'], AllowedMethods: ['HEAD'] },
        ],
      },
    }),
  );
});

function preflight(path: string, headers: Record<string, string>): Promise<RawResponse> {
  return rawRequest(store.server, { method: 'OPTIONS', path, headers });
}

const corsHeaders = (res: RawResponse): Record<string, string | undefined> => {
  const out: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(res.headers)) {
    if (name.startsWith('access-control-') || name === 'vary')
      out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
};

describe('preflight (OPTIONS)', () => {
  it("answers a matching preflight with the rule's headers, without any authentication", async () => {
    const res = await preflight(`/${bucket}/a.txt`, {
      origin: 'https://app.example.com',
      'access-control-request-method': 'PUT',
      'access-control-request-headers': 'Content-Type, X-Amz-Meta-Color',
    });
    expect(res.status).toBe(200);
    expect(corsHeaders(res)).toEqual({
      'access-control-allow-origin': 'https://app.example.com',
      'access-control-allow-methods': 'GET, PUT',
      'access-control-allow-headers': 'content-type, x-amz-meta-color',
      'access-control-expose-headers': 'ETag, x-amz-version-id',
      'access-control-max-age': '600',
      'access-control-allow-credentials': 'true',
      vary: VARY,
    });
    expect(res.body.length).toBe(0);
  });

  it('matches a wildcard origin and echoes it; a "*" rule answers "*" without credentials', async () => {
    const sub = await preflight(`/${bucket}/a.txt`, {
      origin: 'http://cdn.example.org',
      'access-control-request-method': 'GET',
    });
    expect(sub.status).toBe(200);
    expect(sub.headers['access-control-allow-origin']).toBe('http://cdn.example.org');
    const any = await preflight(`/${bucket}/a.txt`, {
      origin: 'https://anywhere.test',
      'access-control-request-method': 'HEAD',
    });
    expect(any.status).toBe(200);
    expect(any.headers['access-control-allow-origin']).toBe('*');
    expect(any.headers['access-control-allow-credentials']).toBeUndefined();
  });

  it('answers a preflight on the bucket path too', async () => {
    const res = await preflight(`/${bucket}`, {
      origin: 'https://app.example.com',
      'access-control-request-method': 'GET',
    });
    expect(res.status).toBe(200);
  });

  it.each([
    [
      'a scheme the wildcard does not cover',
      { origin: 'https://cdn.example.org', 'access-control-request-method': 'GET' },
    ],
    [
      'a method no rule allows for the origin',
      { origin: 'https://app.example.com', 'access-control-request-method': 'DELETE' },
    ],
    [
      'a header no rule allows',
      {
        origin: 'https://app.example.com',
        'access-control-request-method': 'PUT',
        'access-control-request-headers': 'authorization',
      },
    ],
    ['an origin differing in case', { origin: 'https://APP.example.com', 'access-control-request-method': 'GET' }],
  ])('refuses %s with 403 AccessForbidden and no CORS headers', async (_name, headers) => {
    const res = await preflight(`/${bucket}/a.txt`, headers);
    expect({ status: res.status, code: res.code }).toEqual({ status: 403, code: 'AccessForbidden' });
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    expect(res.text).toContain('<ResourceType>OBJECT</ResourceType>');
  });

  it('answers 400 BadRequest without an Origin or with an unknown method', async () => {
    const noOrigin = await preflight(`/${bucket}/a.txt`, { 'access-control-request-method': 'GET' });
    expect({ status: noOrigin.status, code: noOrigin.code }).toEqual({ status: 400, code: 'BadRequest' });
    const noMethod = await preflight(`/${bucket}/a.txt`, { origin: 'https://app.example.com' });
    expect({ status: noMethod.status, code: noMethod.code }).toEqual({ status: 400, code: 'BadRequest' });
    const patch = await preflight(`/${bucket}/a.txt`, {
      origin: 'https://app.example.com',
      'access-control-request-method': 'PATCH',
    });
    expect({ status: patch.status, code: patch.code }).toEqual({ status: 400, code: 'BadRequest' });
  });

  it('answers 403 for a bucket without CORS configuration, and the same for a bucket that does not exist', async () => {
    const headers = { origin: 'https://app.example.com', 'access-control-request-method': 'GET' };
    const none = await preflight(`/${plain}/a.txt`, headers);
    expect({ status: none.status, code: none.code }).toEqual({ status: 403, code: 'AccessForbidden' });
    expect(none.text).toContain('CORS is not enabled for this bucket');
    const missing = await preflight(`/${uniqueBucket('nope')}/a.txt`, headers);
    expect({
      status: missing.status,
      code: missing.code,
      text: missing.text.replace(/<RequestId>.*<\/RequestId>/, ''),
    }).toEqual({ status: 403, code: 'AccessForbidden', text: none.text.replace(/<RequestId>.*<\/RequestId>/, '') });
  });
});

describe('actual requests with an Origin', () => {
  it('carry the CORS headers of the matching rule on success', async () => {
    const res = await rawRequest(store.server, {
      method: 'GET',
      path: `/${bucket}/a.txt`,
      headers: { origin: 'https://app.example.com' },
      sign: true,
    });
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe('https://app.example.com');
    expect(res.headers['access-control-expose-headers']).toBe('ETag, x-amz-version-id');
    expect(res.headers.vary).toBe(VARY);
  });

  it('carry them on errors too: a missing key, an anonymous AccessDenied, a bad signature', async () => {
    const origin = { origin: 'https://app.example.com' };
    const missing = await rawRequest(store.server, {
      method: 'GET',
      path: `/${bucket}/missing.txt`,
      headers: origin,
      sign: true,
    });
    expect({ status: missing.status, code: missing.code }).toEqual({ status: 404, code: 'NoSuchKey' });
    expect(missing.headers['access-control-allow-origin']).toBe('https://app.example.com');
    const anonymous = await rawRequest(store.server, { method: 'GET', path: `/${bucket}/a.txt`, headers: origin });
    expect({ status: anonymous.status, code: anonymous.code }).toEqual({ status: 403, code: 'AccessDenied' });
    expect(anonymous.headers['access-control-allow-origin']).toBe('https://app.example.com');
    const forged = await rawRequest(store.server, {
      method: 'GET',
      path: `/${bucket}/a.txt`,
      headers: origin,
      sign: { secretAccessKey: 'wrong-secret' },
    });
    expect({ status: forged.status, code: forged.code }).toEqual({ status: 403, code: 'SignatureDoesNotMatch' });
    expect(forged.headers['access-control-allow-origin']).toBe('https://app.example.com');
  });

  it('get no Access-Control headers for an origin or method no rule allows, but still Vary', async () => {
    const other = await rawRequest(store.server, {
      method: 'GET',
      path: `/${bucket}/a.txt`,
      headers: { origin: 'https://evil.test' },
      sign: true,
    });
    expect(other.status).toBe(200);
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
    expect(other.headers.vary).toBe(VARY);
    const del = await rawRequest(store.server, {
      method: 'DELETE',
      path: `/${bucket}/nothing.txt`,
      headers: { origin: 'https://app.example.com' },
      sign: true,
    });
    expect(del.status).toBe(204);
    expect(del.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('get nothing CORS-related from a bucket without CORS configuration', async () => {
    const res = await rawRequest(store.server, {
      method: 'GET',
      path: `/${plain}?list-type=2`,
      headers: { origin: 'https://app.example.com' },
      sign: true,
    });
    expect(res.status).toBe(200);
    expect(corsHeaders(res)).toEqual({});
  });
});
