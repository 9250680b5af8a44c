// A real browser (Debian's Chromium, driven by playwright-core) on a page from one origin talks to Store on another:
// it uploads with POST Object using a policy its own server signed, reads the result, fetches the object with a
// presigned URL, and PUTs through a preflight, all under the bucket's CORS rule. Without a rule the browser blocks it.

import { GetObjectCommand, PutBucketCorsCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedPolicyFields } from '../helpers/post-form.js';
import { useStore } from '../helpers/store.js';

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

const store = useStore();
let site: Server;
let siteOrigin: string;
let browser: Browser;
let page: Page;
let withCors: string;
let withoutCors: string;

/** The web app's own server: its page, and the upload form fields it signs for the page (as a real app would). */
function startSite(): Promise<Server> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://site');
    if (url.pathname === '/') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<!doctype html><title>uploader</title><p>upload page</p>');
      return;
    }
    if (url.pathname === '/upload-fields') {
      const bucket = url.searchParams.get('bucket') ?? '';
      const fields = {
        key: 'browser/${filename}',
        success_action_status: '201',
        'Content-Type': 'text/plain',
        ...signedPolicyFields({
          bucket,
          accessKeyId: store.server.credentials.accessKeyId,
          secretAccessKey: store.server.credentials.secretAccessKey,
          conditions: [
            ['starts-with', '$key', 'browser/'],
            { success_action_status: '201' },
            ['starts-with', '$Content-Type', 'text/'],
            ['content-length-range', 1, 1024 * 1024],
          ],
        }),
      };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(fields));
      return;
    }
    res.writeHead(404).end();
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
  site = await startSite();
  // localhost for the page, 127.0.0.1 for Store: two origins, whatever the ports.
  siteOrigin = `http://localhost:${(site.address() as AddressInfo).port}`;
  withCors = await store.bucket('browser');
  withoutCors = await store.bucket('nocors');
  await store.s3.send(
    new PutBucketCorsCommand({
      Bucket: withCors,
      CORSConfiguration: {
        CORSRules: [
          {
            AllowedOrigins: [siteOrigin],
            AllowedMethods: ['GET', 'PUT', 'POST'],
            AllowedHeaders: ['*'],
            ExposeHeaders: ['ETag'],
            MaxAgeSeconds: 60,
          },
        ],
      },
    }),
  );
  await store.s3.send(new PutObjectCommand({ Bucket: withoutCors, Key: 'private.txt', Body: 'not for other origins' }));
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  page = await browser.newPage();
  await page.goto(`${siteOrigin}/`);
});

afterAll(async () => {
  await browser?.close();
  await new Promise<void>((resolve) => (site ? site.close(() => resolve()) : resolve()));
});

const presign = (bucket: string, key: string): Promise<string> =>
  getSignedUrl(store.s3, new GetObjectCommand({ Bucket: bucket, Key: key }), { expiresIn: 300 });

describe('a page on another origin', () => {
  it("uploads with POST Object using its server's signed policy, and reads the 201 answer", async () => {
    const result = await page.evaluate(
      async ({ storeUrl, bucket }) => {
        const fields = (await (await fetch(`/upload-fields?bucket=${bucket}`)).json()) as Record<string, string>;
        const form = new FormData();
        for (const [name, value] of Object.entries(fields)) form.append(name, value);
        form.append('file', new File(['hello from the browser'], 'hello.txt', { type: 'text/plain' }));
        const res = await fetch(`${storeUrl}/${bucket}`, { method: 'POST', body: form });
        return { status: res.status, etag: res.headers.get('etag'), body: await res.text() };
      },
      { storeUrl: store.server.url, bucket: withCors },
    );
    expect(result.status).toBe(201);
    expect(result.etag).toMatch(/^"[0-9a-f]{32}"$/);
    expect(result.body).toContain('<Key>browser/hello.txt</Key>');
    const stored = await store.s3.send(new GetObjectCommand({ Bucket: withCors, Key: 'browser/hello.txt' }));
    expect(stored.ContentType).toBe('text/plain');
  });

  it('fetches the uploaded object with a presigned URL', async () => {
    const url = await presign(withCors, 'browser/hello.txt');
    const result = await page.evaluate(async (u) => {
      const res = await fetch(u);
      return { status: res.status, text: await res.text(), etag: res.headers.get('etag') };
    }, url);
    expect(result).toMatchObject({ status: 200, text: 'hello from the browser' });
    expect(result.etag).toMatch(/^"[0-9a-f]{32}"$/);
  });

  it('PUTs through a preflight (a non-simple request) with a presigned PUT URL', async () => {
    const url = await getSignedUrl(store.s3, new PutObjectCommand({ Bucket: withCors, Key: 'browser/put.json' }), {
      expiresIn: 300,
    });
    const status = await page.evaluate(async (u) => {
      const res = await fetch(u, {
        method: 'PUT',
        body: '{"via":"preflight"}',
        headers: { 'Content-Type': 'application/json' },
      });
      return res.status;
    }, url);
    expect(status).toBe(200);
    const stored = await store.s3.send(new GetObjectCommand({ Bucket: withCors, Key: 'browser/put.json' }));
    expect(await stored.Body?.transformToString()).toBe('{"via":"preflight"}');
  });

  it('is blocked by the browser where the bucket has no CORS rule', async () => {
    const url = await presign(withoutCors, 'private.txt');
    const outcome = await page.evaluate(async (u) => {
      try {
        const res = await fetch(u);
        return `read ${res.status}: ${await res.text()}`;
      } catch (err) {
        return `blocked: ${(err as Error).name}`;
      }
    }, url);
    expect(outcome).toBe('blocked: TypeError');
  });

  it('cannot PUT where no rule allows it: the preflight is refused', async () => {
    const url = await getSignedUrl(store.s3, new PutObjectCommand({ Bucket: withoutCors, Key: 'sneaky.json' }), {
      expiresIn: 300,
    });
    const outcome = await page.evaluate(async (u) => {
      try {
        const res = await fetch(u, { method: 'PUT', body: '{}', headers: { 'Content-Type': 'application/json' } });
        return `sent ${res.status}`;
      } catch (err) {
        return `blocked: ${(err as Error).name}`;
      }
    }, url);
    expect(outcome).toBe('blocked: TypeError');
    // The refused preflight kept the PUT from ever being sent.
    await expect(
      store.s3.send(new GetObjectCommand({ Bucket: withoutCors, Key: 'sneaky.json' })),
    ).rejects.toMatchObject({ name: 'NoSuchKey' });
  });
});
