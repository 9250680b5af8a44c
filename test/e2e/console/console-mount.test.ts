// The console under MOUNT_PATH=/storage: its files, its API calls and its refresh cookie all live under the mount;
// a hard refresh on a deep route keeps the session; nothing is served at the unmounted paths.

import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../helpers/server.js';
import { consoleUrl, launchBrowser, newContext, screenshot, settle, signIn, waitForShell, watchProblems } from './console-browser.js';

const MOUNT = '/storage';
let server: RunningServer;
let browser: Browser;
let page: Page;
const requested: string[] = [];

beforeAll(async () => {
  server = await startServer({ env: { MOUNT_PATH: MOUNT, STORE_TRUSTED_PROXIES: '127.0.0.1' } });
  browser = await launchBrowser();
  page = await (await newContext(browser)).newPage();
  page.on('request', (req) => requested.push(new URL(req.url()).pathname));
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe('the console under MOUNT_PATH', () => {
  it('signs in, creates a bucket, uploads a file and survives a hard refresh on a deep route', async () => {
    const problems = watchProblems(page);
    await signIn(page, server, { mount: MOUNT });
    await page.getByRole('link', { name: 'Buckets' }).click();
    await page.getByRole('button', { name: 'Create bucket' }).click();
    await page.getByRole('dialog').getByLabel('Name').fill('mounted');
    await page.getByRole('dialog').getByRole('button', { name: 'Create bucket' }).click();
    await page.getByRole('heading', { name: 'Objects in mounted' }).waitFor();
    await page.getByTestId('upload-files').setInputFiles({ name: 'hello.txt', mimeType: 'text/plain', buffer: Buffer.from('hello from under a mount\n') });
    await page.getByRole('button', { name: 'hello.txt', exact: true }).waitFor({ timeout: 20_000 });

    expect(page.url()).toBe(`${server.url}${MOUNT}/admin/buckets/mounted/browse`);
    await page.reload();
    await waitForShell(page);
    await page.getByRole('button', { name: 'hello.txt', exact: true }).click();
    await page.getByRole('dialog').getByLabel('Text of hello.txt').waitFor();
    expect(await page.getByRole('dialog').getByLabel('Text of hello.txt').textContent()).toBe('hello from under a mount\n');
    await settle(page);
    await screenshot(page, 'mount-path-preview');

    // Every request the console made stayed under the mount (the share link and S3 are not the console's).
    expect(requested.filter((p) => !p.startsWith(`${MOUNT}/`))).toEqual([]);
    expect(requested).toContain(`${MOUNT}/api/admin/auth/refresh`);
    expect(problems).toEqual([]);
  });

  it('serves nothing at the unmounted console path', async () => {
    const res = await fetch(consoleUrl(server, 'buckets'));
    expect(res.status).toBe(404);
    const mounted = await fetch(consoleUrl(server, 'buckets', MOUNT));
    expect(mounted.status).toBe(200);
    expect(await mounted.text()).toContain(`<base href="${MOUNT}/admin/">`);
  });
});
