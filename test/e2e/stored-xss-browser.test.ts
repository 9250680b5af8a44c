// Stored XSS, proved in a real browser (Debian's Chromium, playwright-core): an admin signed in to the console opens
// a share link to an HTML page and to an SVG image that someone uploaded, on the same origin as the console. The
// pages display, but their scripts do not run: they cannot read the console's storage or call the admin API with the
// refresh cookie. A control page served without the sandbox (from a test server) shows the probe script does run.

import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CreateBucketCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { presignUrl } from '../../src/sigv4/sign.js';
import { sdkClient, uniqueBucket } from '../helpers/clients.js';
import { startServer, type RunningServer } from '../helpers/server.js';

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];
// What a stored page would try: mark the document, then call the admin API with the console's cookie.
const PROBE = `document.title = 'script ran'; fetch('/api/admin/auth/refresh', { method: 'POST', credentials: 'include' }).then((r) => { document.title = 'refresh ' + r.status; });`;
const PAGES: Array<[key: string, contentType: string, body: string]> = [
  ['share/page.html', 'text/html', `<!doctype html><title>untouched</title><p>a stored page</p><script>${PROBE}</script>`],
  ['share/image.svg', 'image/svg+xml', `<svg xmlns="http://www.w3.org/2000/svg"><title>untouched</title><script>${PROBE}</script><circle r="5"/></svg>`],
];

let store: RunningServer;
let browser: Browser;
let context: BrowserContext;
let control: Server;
let bucket: string;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
  store = await startServer();
  const s3 = sdkClient(store);
  bucket = uniqueBucket('share');
  await s3.send(new CreateBucketCommand({ Bucket: bucket }));
  for (const [key, contentType, body] of PAGES) await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body, ContentType: contentType }));
  s3.destroy();
  control = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(PAGES[0]?.[2]));
  await new Promise<void>((resolve) => control.listen(0, '127.0.0.1', resolve));
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  context = await browser.newContext();
});
afterAll(async () => {
  await browser?.close();
  await new Promise<void>((resolve) => (control ? control.close(() => resolve()) : resolve()));
  await store?.stop();
});

function shareLink(key: string): string {
  const path = `/${bucket}/${key}`;
  return presignUrl({
    method: 'GET', url: new URL(`${store.url}${path}`), rawPath: path, accessKeyId: store.credentials.accessKeyId,
    secretAccessKey: store.credentials.secretAccessKey, region: 'us-east-1', expiresSeconds: 300,
  }).toString();
}

describe('a share link opened in the console’s origin', () => {
  it('the probe script runs on a page served without the sandbox (the control)', async () => {
    const page = await context.newPage();
    await page.goto(`http://127.0.0.1:${(control.address() as AddressInfo).port}/`);
    await expect.poll(() => page.title(), { timeout: 5000 }).toMatch(/^(script ran|refresh \d+)$/);
    await page.close();
  });

  it.each(PAGES)('%s displays, but its script does not run', async (key) => {
    const page = await context.newPage();
    // Signed in from the console's origin first, so a refresh cookie exists that a script there could use. The
    // console's own session check (a refresh that, without a cookie, answers 401 and clears it) must be over first,
    // or its answer can land after the login's and clear the new cookie.
    await page.goto(`${store.url}/admin/`, { waitUntil: 'networkidle' });
    const signedIn = await page.evaluate(async (password) => {
      const res = await fetch('/api/admin/auth/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password }) });
      return res.status;
    }, store.credentials.adminPassword);
    expect(signedIn).toBe(200);
    expect((await context.cookies()).map((c) => c.name)).toContain('store_refresh');
    const response = await page.goto(shareLink(key));
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-security-policy']).toBe('sandbox');
    await page.waitForTimeout(500);
    expect(await page.title()).toBe('untouched');
    if (key.endsWith('.html')) expect(await page.textContent('p')).toBe('a stored page');
    await page.close();
  });
});
