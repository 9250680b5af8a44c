// Stored XSS, proved in a real browser (Debian's Chromium, playwright-core): an admin signed in to the console opens
// objects someone else put in Store, on the same origin as the console, by the two roads that once led to a full
// admin: (1) a key scoped to one prefix uploads HTML as `image/png;,text/html` (Chromium renders it as HTML; a type
// allow-list reads it as an image) and the admin opens its share link; (2) an anonymous URL on a public object asks
// for that type with response-content-type. Plus HTML and SVG pages through share links. Nothing displays a script
// running: not the synchronous title change of the probe, not its call to the admin API with the refresh cookie. A
// control page served the same bytes with the same type but without the sandbox (from a test server) shows that the
// probe does run there, so its silence in Store's origin means something.

import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { presignUrl } from '../../src/sigv4/sign.js';
import { sdkClient, uniqueBucket } from '../helpers/clients.js';
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
// What a stored page would try: mark the document at once (synchronously, while it is parsed, before its load event),
// then call the admin API with the console's cookie to mint itself an admin.
const PROBE = `document.title = 'script ran'; fetch('/api/admin/auth/refresh', { method: 'POST', credentials: 'include' }).then((r) => { document.title = 'refresh ' + r.status; });`;
const HTML = `<!doctype html><title>untouched</title><p>a stored page</p><script>${PROBE}</script>`;
const DISGUISED = 'image/png;,text/html';
const PAGES: Array<[key: string, contentType: string, body: string]> = [
  ['uploads/page.html', 'text/html', HTML],
  [
    'uploads/image.svg',
    'image/svg+xml',
    `<svg xmlns="http://www.w3.org/2000/svg"><title>untouched</title><script>${PROBE}</script><circle r="5"/></svg>`,
  ],
  ['uploads/disguised.png', DISGUISED, HTML],
];

const store = useStore();
let browser: Browser;
let context: BrowserContext;
let control: Server;
let bucket: string;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
  bucket = uniqueBucket('share');
  expect((await store.adminCall('POST', '/buckets', { name: bucket })).status).toBe(201);
  // The uploader holds only a key scoped to `uploads/` of this bucket: no admin rights at all.
  const created = await store.adminCall('POST', '/keys', {
    name: 'uploader',
    permissions: { scope: { bucket, prefix: 'uploads/' } },
  });
  expect(created.status).toBe(201);
  const key = created.body as { accessKeyId: string; secretAccessKey: string };
  const uploader = sdkClient(store.server, { accessKeyId: key.accessKeyId, secretAccessKey: key.secretAccessKey });
  for (const [objectKey, contentType, body] of PAGES) {
    await uploader.send(new PutObjectCommand({ Bucket: bucket, Key: objectKey, Body: body, ContentType: contentType }));
  }
  uploader.destroy();
  // Anyone may read `uploads/`: the anonymous road.
  const policy = {
    Version: '2012-10-17',
    Statement: [
      { Effect: 'Allow', Principal: '*', Action: 's3:GetObject', Resource: `arn:aws:s3:::${bucket}/uploads/*` },
    ],
  };
  expect((await store.adminCall('PUT', `/buckets/${bucket}/policy`, policy)).status).toBe(200);
  control = createServer((_req, res) => res.writeHead(200, { 'content-type': DISGUISED }).end(HTML));
  await new Promise<void>((resolve) => control.listen(0, '127.0.0.1', resolve));
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  context = await browser.newContext();
  await signIn();
});
afterAll(async () => {
  await browser?.close();
  await new Promise<void>((resolve) => (control ? control.close(() => resolve()) : resolve()));
});

/** The share link the console makes: POST /objects/presign, signed with the root key. */
async function shareLink(key: string): Promise<string> {
  const res = await store.adminCall('POST', `/buckets/${bucket}/objects/presign`, {
    key,
    method: 'GET',
    expiresIn: 300,
  });
  expect(res.status).toBe(200);
  return (res.body as { url: string }).url;
}

/** A presigned GET whose signature covers a response-content-type override. */
function presignedWithType(key: string, contentType: string): string {
  const path = `/${bucket}/${key}`;
  return presignUrl({
    method: 'GET',
    url: new URL(`${store.server.url}${path}?response-content-type=${encodeURIComponent(contentType)}`),
    rawPath: path,
    accessKeyId: store.server.credentials.accessKeyId,
    secretAccessKey: store.server.credentials.secretAccessKey,
    region: 'us-east-1',
    expiresSeconds: 300,
  }).toString();
}

/**
 * Signs the admin in from the console's origin, once for the browser context, so a refresh cookie exists that a script
 * of this origin could use. The console's own session check (a refresh that, without a cookie, answers 401 and clears
 * it) must be over first, or its answer can land after the login's.
 */
async function signIn(): Promise<void> {
  const page = await context.newPage();
  await page.goto(`${store.server.url}/admin/`, { waitUntil: 'networkidle' });
  const signedIn = await page.evaluate(async (password) => {
    const res = await fetch('/api/admin/auth/login', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password }),
    });
    return res.status;
  }, store.server.credentials.adminPassword);
  expect(signedIn).toBe(200);
  await page.close();
}

/** A new page of the signed-in context, recording every admin API request it makes. */
async function signedInPage(): Promise<{ page: Page; adminCalls: string[] }> {
  expect((await context.cookies()).map((c) => c.name)).toContain('store_refresh');
  const page = await context.newPage();
  const adminCalls: string[] = [];
  page.on('request', (request) => {
    if (request.url().includes('/api/admin/')) adminCalls.push(request.url());
  });
  return { page, adminCalls };
}

/**
 * Opens `url` in the signed-in page and proves no script of it ran: the probe sets the title while the document is
 * parsed, before its load event, which goto() waits for; so an unchanged title when goto() returns is the proof, with
 * no waiting on a clock. Its fetch would also have been issued by then.
 */
async function expectNoScript(url: string, expected: { status: number }): Promise<void> {
  const { page, adminCalls } = await signedInPage();
  const response = await page.goto(url, { waitUntil: 'load' });
  expect(response?.status()).toBe(expected.status);
  expect(response?.headers()['content-security-policy']).toBe('sandbox');
  expect(response?.headers()['x-content-type-options']).toBe('nosniff');
  expect(await page.title()).not.toMatch(/script ran|refresh/);
  expect(adminCalls).toEqual([]);
  await page.close();
}

describe('objects opened in the console’s origin', () => {
  it('the probe runs on the same bytes and type served without the sandbox (the control)', async () => {
    const page = await context.newPage();
    await page.goto(`http://127.0.0.1:${(control.address() as AddressInfo).port}/`, { waitUntil: 'load' });
    expect(await page.title()).toMatch(/^(script ran|refresh \d+)$/);
    await page.close();
  });

  it.each(PAGES)('road 1: the share link of %s (%s), uploaded by a scoped key, runs no script', async (key) => {
    await expectNoScript(await shareLink(key), { status: 200 });
  });

  it('road 2: an anonymous URL asking for response-content-type is refused, and the plain anonymous URL runs no script', async () => {
    const { page, adminCalls } = await signedInPage();
    const retyped = await page.goto(
      `${store.server.url}/${bucket}/uploads/page.html?response-content-type=${encodeURIComponent(DISGUISED)}`,
      { waitUntil: 'load' },
    );
    expect(retyped?.status()).toBe(400);
    expect(await retyped?.text()).toContain('<Code>InvalidRequest</Code>');
    expect(await page.title()).not.toMatch(/script ran|refresh/);
    expect(adminCalls).toEqual([]);
    await page.close();
    await expectNoScript(`${store.server.url}/${bucket}/uploads/disguised.png`, { status: 200 });
  });

  it('a signed share link may still ask for another type, and runs no script either', async () => {
    await expectNoScript(presignedWithType('uploads/page.html', DISGUISED), { status: 200 });
  });
});
