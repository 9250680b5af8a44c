// The console behind Debian's nginx running the documented site (docs/operations.md; TLS at nginx,
// MOUNT_PATH=/storage): the SPA loads from the proxy, signs in (the refresh cookie set through it), lists a bucket
// and uploads, and every request it makes stays on the proxy's origin under the mount.

import { randomBytes } from 'node:crypto';
import { CreateBucketCommand, GetObjectCommand } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { s3ClientVia, useProxiedStore } from '../reverse-proxy.js';
import { signIn, useBrowser, watchProblems } from './console-browser.js';

const MOUNT = '/storage';
const proxied = useProxiedStore({ mount: MOUNT, env: { STORE_TRUSTED_PROXIES: '127.0.0.1' } });
const chromium = useBrowser();

describe('the console through nginx', () => {
  it('loads under the mount, signs in, lists a bucket and uploads, all on the proxy origin', async () => {
    const { proxy, store, certificate } = proxied;
    const s3 = s3ClientVia(`${proxy.origin}${MOUNT}`, store.credentials, certificate.pem);
    const bucket = `nginx-console-${randomBytes(3).toString('hex')}`;
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    // The certificate is the test's own; Chromium is told to accept it rather than taught to trust it.
    const context = await chromium.browser.newContext({
      ignoreHTTPSErrors: true,
      viewport: { width: 1280, height: 860 },
    });
    const page = await context.newPage();
    const problems = watchProblems(page);
    const requested: string[] = [];
    page.on('request', (req) => requested.push(req.url()));

    await signIn(page, { ...store, url: proxy.origin }, { mount: MOUNT });
    await page.getByRole('link', { name: 'Buckets', exact: true }).click();
    await page.getByRole('link', { name: bucket, exact: true }).click();
    await page.getByRole('heading', { name: `Objects in ${bucket}` }).waitFor();
    await page.getByTestId('upload-files').setInputFiles({
      name: 'via-nginx.txt',
      mimeType: 'text/plain',
      buffer: Buffer.from('uploaded by the console through nginx\n'),
    });
    await page.getByRole('button', { name: 'via-nginx.txt', exact: true }).waitFor({ timeout: 30_000 });
    // A hard reload keeps the session: the refresh cookie (Secure, path under the mount) came back through nginx.
    await page.reload();
    await page.getByRole('button', { name: 'via-nginx.txt', exact: true }).waitFor();

    const got = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'via-nginx.txt' }));
    expect(await got.Body?.transformToString()).toBe('uploaded by the console through nginx\n');
    expect(requested.filter((u) => !u.startsWith(`${proxy.origin}${MOUNT}/`))).toEqual([]);
    expect(requested).toContain(`${proxy.origin}${MOUNT}/api/admin/auth/refresh`);
    expect(problems).toEqual([]);
  });
});
