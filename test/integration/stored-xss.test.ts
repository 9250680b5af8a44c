// No stored XSS in the origin the console shares with the S3 plane (ARCHITECTURE "Known pitfalls"). Objects that
// would run script if rendered (HTML, SVG, XML with XHTML script, an unknown type), uploaded through S3, the admin
// API and a POST form, are fetched through the admin raw GET (always an attachment, nosniff, a sandbox CSP) and
// through presigned URLs and anonymous reads (their stored Content-Type as S3 serves it, but always nosniff and a
// sandbox CSP, whatever the type: a share link displays and runs nothing); response-* overrides need a signature.
// The console itself answers with its strict CSP.

import { PutObjectCommand } from '@aws-sdk/client-s3';
import { beforeAll, describe, expect, it } from 'vitest';
import { presignUrl } from '../../src/sigv4/sign.js';
import { uniqueBucket } from '../helpers/clients.js';
import { formWithFile, signedPolicyFields } from '../helpers/post-form.js';
import { useStore } from '../helpers/store.js';

const SCRIPT = `fetch('/api/admin/auth/refresh',{method:'POST',credentials:'include'})`;
const ACTIVE: Array<[key: string, contentType: string | undefined, body: string]> = [
  ['page.html', 'text/html', `<!doctype html><script>${SCRIPT}</script>`],
  ['page-upper.html', 'Text/HTML; charset=UTF-8', `<script>${SCRIPT}</script>`],
  ['image.svg', 'image/svg+xml', `<svg xmlns="http://www.w3.org/2000/svg"><script>${SCRIPT}</script></svg>`],
  ['doc.xml', 'application/xml', `<x:script xmlns:x="http://www.w3.org/1999/xhtml">${SCRIPT}</x:script>`],
  [
    'page.xhtml',
    'application/xhtml+xml',
    `<html xmlns="http://www.w3.org/1999/xhtml"><script>${SCRIPT}</script></html>`,
  ],
  ['app.js', 'text/javascript', SCRIPT],
  ['unknown', 'application/x-whatever', `<script>${SCRIPT}</script>`],
  ['untyped', undefined, `<script>${SCRIPT}</script>`],
  // A type that parses as a passive image but that Chromium renders as HTML: the defence must not parse types.
  ['disguised.png', 'image/png;,text/html', `<script>${SCRIPT}</script>`],
];
const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');

const store = useStore();
let bucket: string;

beforeAll(async () => {
  bucket = uniqueBucket('xss');
  const created = await fetch(`${store.server.url}/api/admin/buckets`, {
    method: 'POST',
    headers: { authorization: `Bearer ${await store.admin()}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: bucket }),
  });
  expect(created.status).toBe(201);
  for (const [key, contentType, body] of ACTIVE) {
    await store.s3.send(
      new PutObjectCommand({
        Bucket: bucket,
        Key: `s3/${key}`,
        Body: body,
        ...(contentType ? { ContentType: contentType } : {}),
      }),
    );
    const put = await fetch(
      `${store.server.url}/api/admin/buckets/${bucket}/objects/content?key=${encodeURIComponent(`admin/${key}`)}`,
      {
        method: 'PUT',
        headers: {
          authorization: `Bearer ${await store.admin()}`,
          ...(contentType ? { 'content-type': contentType } : {}),
        },
        body,
      },
    );
    expect(put.status).toBe(200);
  }
  await store.s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'photo.png', Body: PNG, ContentType: 'image/png' }));
});

function presigned(key: string, query = ''): string {
  const path = `/${bucket}/${key.split('/').map(encodeURIComponent).join('/')}`;
  return presignUrl({
    method: 'GET',
    url: new URL(`${store.server.url}${path}${query}`),
    rawPath: path,
    accessKeyId: store.server.credentials.accessKeyId,
    secretAccessKey: store.server.credentials.secretAccessKey,
    region: 'us-east-1',
    expiresSeconds: 300,
  }).toString();
}

function expectSandboxed(res: Response, what: string): void {
  expect(res.headers.get('x-content-type-options'), what).toBe('nosniff');
  expect(res.headers.get('content-security-policy'), what).toMatch(/^sandbox(;|$)/);
}

describe('the admin raw GET', () => {
  it.each(ACTIVE)('serves %s (%s) as an attachment, nosniff, sandboxed, from either upload path', async (key) => {
    for (const prefix of ['s3', 'admin']) {
      for (const method of ['GET', 'HEAD']) {
        const res = await fetch(
          `${store.server.url}/api/admin/buckets/${bucket}/objects/content?key=${encodeURIComponent(`${prefix}/${key}`)}`,
          {
            method,
            headers: { authorization: `Bearer ${await store.admin()}` },
          },
        );
        expect(res.status).toBe(200);
        expect(res.headers.get('content-disposition')).toMatch(/^attachment;/);
        expectSandboxed(res, `${method} ${prefix}/${key}`);
      }
    }
  });
});

describe('presigned share links on the S3 plane (the console’s origin)', () => {
  it.each(ACTIVE)(
    'serve %s (%s) with its stored type, but nosniff and a sandbox CSP',
    async (key, contentType, body) => {
      for (const prefix of ['s3', 'admin']) {
        const res = await fetch(presigned(`${prefix}/${key}`));
        expect(res.status).toBe(200);
        expect(await res.text()).toBe(body);
        if (contentType !== undefined) expect(res.headers.get('content-type')).toBe(contentType);
        expectSandboxed(res, `${prefix}/${key}`);
      }
    },
  );

  it('the share link the admin API presigns is sandboxed too; so is a HEAD', async () => {
    const res = await fetch(`${store.server.url}/api/admin/buckets/${bucket}/objects/presign`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await store.admin()}`, 'content-type': 'application/json' },
      body: JSON.stringify({ key: 's3/page.html', method: 'GET', expiresIn: 300 }),
    });
    const { url } = (await res.json()) as { url: string };
    const got = await fetch(url);
    expect(got.status).toBe(200);
    expectSandboxed(got, 'admin share link');
    const path = `/${bucket}/s3/page.html`;
    const head = presignUrl({
      method: 'HEAD',
      url: new URL(`${store.server.url}${path}`),
      rawPath: path,
      accessKeyId: store.server.credentials.accessKeyId,
      secretAccessKey: store.server.credentials.secretAccessKey,
      region: 'us-east-1',
      expiresSeconds: 300,
    });
    const headed = await fetch(head, { method: 'HEAD' });
    expect(headed.status).toBe(200);
    expectSandboxed(headed, 'HEAD');
  });

  it('a raster image is sandboxed too (nothing is trusted by its type), and keeps its type', async () => {
    const plain = await fetch(presigned('photo.png'));
    expect(plain.headers.get('content-type')).toBe('image/png');
    expectSandboxed(plain, 'photo.png');
    const retyped = await fetch(presigned('photo.png', '?response-content-type=text%2Fhtml'));
    expect(retyped.headers.get('content-type')).toBe('text/html');
    expectSandboxed(retyped, 'response-content-type=text/html');
  });

  it('refuses response-* overrides on anonymous requests (InvalidRequest), as AWS does, and serves the object sandboxed without them', async () => {
    const policy = {
      Version: '2012-10-17',
      Statement: [{ Effect: 'Allow', Principal: '*', Action: 's3:GetObject', Resource: `arn:aws:s3:::${bucket}/s3/*` }],
    };
    const put = await fetch(`${store.server.url}/api/admin/buckets/${bucket}/policy`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${await store.admin()}`, 'content-type': 'application/json' },
      body: JSON.stringify(policy),
    });
    expect(put.status).toBe(200);
    try {
      for (const override of [
        'response-content-type=text%2Fhtml',
        'response-content-disposition=inline',
        'response-cache-control=no-store',
      ]) {
        const refused = await fetch(`${store.server.url}/${bucket}/s3/app.js?${override}`);
        expect(refused.status, override).toBe(400);
        expect(await refused.text()).toContain('<Code>InvalidRequest</Code>');
      }
      const plain = await fetch(`${store.server.url}/${bucket}/s3/app.js`);
      expect(plain.status).toBe(200);
      expectSandboxed(plain, 'anonymous GET');
    } finally {
      await fetch(`${store.server.url}/api/admin/buckets/${bucket}/policy`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${await store.admin()}` },
      });
    }
  });

  it('an HTML page uploaded through a POST form is served sandboxed', async () => {
    const key = 'form/page.html';
    const fields = signedPolicyFields({
      bucket,
      accessKeyId: store.server.credentials.accessKeyId,
      secretAccessKey: store.server.credentials.secretAccessKey,
      conditions: [{ key }, ['starts-with', '$Content-Type', '']],
    });
    const form = formWithFile(
      { key, 'Content-Type': 'text/html', ...fields },
      { filename: 'x.html', content: `<script>${SCRIPT}</script>` },
    );
    const posted = await fetch(`${store.server.url}/${bucket}`, {
      method: 'POST',
      headers: { 'content-type': form.contentType },
      body: form.body,
    });
    expect(posted.status).toBe(204);
    const res = await fetch(presigned(key));
    expect(res.headers.get('content-type')).toBe('text/html');
    expectSandboxed(res, key);
  });
});

describe('the console', () => {
  it('has a strict CSP: scripts of its own origin only, no inline script, no framing', async () => {
    const res = await fetch(`${store.server.url}/admin/`);
    expect(res.status).toBe(200);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("object-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|\*/);
  });
});
