// The console under MOUNT_PATH=/storage: its files, its API calls and its refresh cookie all live under the mount;
// a hard refresh on a deep route keeps the session; nothing is served at the unmounted paths.

import { beforeAll, describe, expect, it } from 'vitest';
import { useStore } from '../../helpers/store.js';
import { consoleUrl, screenshot, settle, signIn, useBrowser, waitForShell, watchProblems } from './console-browser.js';

const MOUNT = '/storage';
const store = useStore({ env: { MOUNT_PATH: MOUNT, STORE_TRUSTED_PROXIES: '127.0.0.1' } });
const chromium = useBrowser({ page: true });
const requested: string[] = [];
beforeAll(() => {
  chromium.page.on('request', (req) => requested.push(new URL(req.url()).pathname));
});

describe('the console under MOUNT_PATH', () => {
  it('signs in, creates a bucket, uploads a file and survives a hard refresh on a deep route', async () => {
    const problems = watchProblems(chromium.page);
    await signIn(chromium.page, store.server, { mount: MOUNT });
    await chromium.page.getByRole('link', { name: 'Buckets', exact: true }).click();
    await chromium.page.getByRole('button', { name: 'Create bucket' }).click();
    await chromium.page.getByRole('dialog').getByLabel('Name').fill('mounted');
    await chromium.page.getByRole('dialog').getByRole('button', { name: 'Create bucket' }).click();
    await chromium.page.getByRole('heading', { name: 'Objects in mounted' }).waitFor();
    await chromium.page
      .getByTestId('upload-files')
      .setInputFiles({ name: 'hello.txt', mimeType: 'text/plain', buffer: Buffer.from('hello from under a mount\n') });
    await chromium.page.getByRole('button', { name: 'hello.txt', exact: true }).waitFor({ timeout: 20_000 });

    expect(chromium.page.url()).toBe(`${store.server.url}${MOUNT}/admin/buckets/mounted/browse`);
    await chromium.page.reload();
    await waitForShell(chromium.page);
    await chromium.page.getByRole('button', { name: 'hello.txt', exact: true }).click();
    await chromium.page.getByRole('dialog').getByLabel('Text of hello.txt').waitFor();
    expect(await chromium.page.getByRole('dialog').getByLabel('Text of hello.txt').textContent()).toBe(
      'hello from under a mount\n',
    );
    await settle(chromium.page);
    await screenshot(chromium.page, 'mount-path-preview');

    // Every request the console made stayed under the mount (the share link and S3 are not the console's).
    expect(requested.filter((p) => !p.startsWith(`${MOUNT}/`))).toEqual([]);
    expect(requested).toContain(`${MOUNT}/api/admin/auth/refresh`);
    expect(problems).toEqual([]);
  });

  it('serves nothing at the unmounted console path', async () => {
    const res = await fetch(consoleUrl(store.server, 'buckets'));
    expect(res.status).toBe(404);
    const mounted = await fetch(consoleUrl(store.server, 'buckets', MOUNT));
    expect(mounted.status).toBe(200);
    expect(await mounted.text()).toContain(`<base href="${MOUNT}/admin/">`);
  });
});
