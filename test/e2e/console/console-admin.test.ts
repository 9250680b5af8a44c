// The console's editing pages with a full admin: bucket settings (lifecycle as a form, CORS, a bucket policy whose
// errors are shown before and after the server sees it, tags), the 409 of deleting a non-empty bucket explained,
// batch delete, search across buckets, users (create with a password shown once, change role, the last-admin rule)
// and the audit log's filters. And stored HTML or SVG never runs in the console: HTML previews as text, SVG as a
// picture.

import { beforeAll, describe, expect, it } from 'vitest';
import { useStore } from '../../helpers/store.js';
import { consoleUrl, settle, useBrowser, waitForShell } from './console-browser.js';

const store = useStore({ env: { STORE_TRUSTED_PROXIES: '127.0.0.1', AUDIT_FLUSH_MS: '250' } });

async function put(bucket: string, key: string, { body, type }: { body: string; type: string }): Promise<void> {
  const res = await fetch(
    `${store.server.url}/api/admin/buckets/${bucket}/objects/content?key=${encodeURIComponent(key)}`,
    {
      method: 'PUT',
      headers: { authorization: `Bearer ${await store.admin()}`, 'content-type': type },
      body,
    },
  );
  expect(res.status).toBe(200);
}

async function go(route: string): Promise<void> {
  await chromium.page.goto(consoleUrl(store.server, route));
  await waitForShell(chromium.page);
  await settle(chromium.page);
}

beforeAll(async () => {
  expect((await store.adminCall('POST', '/buckets', { name: 'site' })).status).toBe(201);
  await put('site', 'index.html', {
    body: '<h1>hi</h1><script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">',
    type: 'text/html',
  });
  await put('site', 'logo.svg', {
    body: '<svg xmlns="http://www.w3.org/2000/svg" onload="window.__pwned = 3"><script>window.__pwned = 4</script></svg>',
    type: 'image/svg+xml',
  });
  for (const k of ['tmp/a.log', 'tmp/b.log', 'keep.txt'])
    await put('site', k, { body: `content of ${k}`, type: 'text/plain' });
});
const chromium = useBrowser({ signIn: store });

describe('stored content never runs in the console', () => {
  it('previews HTML as text and SVG as a picture, and their scripts never run', async () => {
    await go(`buckets/site/browse?object=index.html`);
    const text = chromium.page.getByRole('dialog').getByLabel('Text of index.html');
    await text.waitFor();
    expect(await text.textContent()).toContain('__pwned');
    expect(await chromium.page.getByRole('dialog').locator('img, iframe, object, embed').count()).toBe(0);
    // SVG in an <img> (from a blob: URL typed image/svg+xml): a picture, never a document, so nothing in it runs.
    await go(`buckets/site/browse?object=logo.svg`);
    const picture = chromium.page.getByRole('dialog').getByRole('img', { name: 'Preview of logo.svg' });
    await expect.poll(() => picture.evaluate((img: HTMLImageElement) => img.complete)).toBe(true);
    expect(await picture.getAttribute('src')).toMatch(/^blob:/);
    expect(await chromium.page.getByRole('dialog').locator('iframe, object, embed').count()).toBe(0);
    expect(await chromium.page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
  });
});

describe('bucket settings', () => {
  it('saves lifecycle rules from the form, refusing a rule with no action first', async () => {
    await go('buckets/site?tab=lifecycle');
    await chromium.page.getByRole('button', { name: 'Add rule' }).click();
    await chromium.page.getByRole('button', { name: 'Save lifecycle rules' }).click();
    await chromium.page.getByText('Rule 1: choose at least one action').waitFor();
    const rule = chromium.page.getByRole('group', { name: 'Rule 1' });
    await rule.getByLabel('Only keys starting with').fill('tmp/');
    await rule.getByLabel('Expire after (days)').fill('3');
    await rule.getByLabel('Abort after (days)').fill('1');
    await chromium.page.getByRole('button', { name: 'Save lifecycle rules' }).click();
    await chromium.page
      .getByText('Objects under “tmp/”: expire after 3 days, abort incomplete uploads after 1 days.')
      .waitFor();
    const stored = await store.adminCall('GET', '/buckets/site/lifecycle');
    expect(stored.body).toMatchObject({
      rules: [
        {
          status: 'Enabled',
          filter: { prefix: 'tmp/' },
          expiration: { days: 3 },
          abortIncompleteMultipartUpload: { daysAfterInitiation: 1 },
        },
      ],
    });
  });

  it('shows policy errors as you type and the server reason when it refuses', async () => {
    await go('buckets/site?tab=policy');
    const editor = chromium.page.getByLabel('Policy document (JSON)');
    await editor.fill('{ "Version": "2012-10-17", "Statement": [ }');
    await chromium.page.getByText(/Line 1, column \d+/).waitFor();
    expect(await chromium.page.getByRole('button', { name: 'Save policy' }).isDisabled()).toBe(true);
    // Well-formed, but the server refuses it (an action that does not exist).
    await editor.fill(
      JSON.stringify({
        Version: '2012-10-17',
        Statement: [{ Effect: 'Allow', Principal: '*', Action: 's3:NoSuchAction', Resource: 'arn:aws:s3:::site/*' }],
      }),
    );
    await chromium.page.getByRole('button', { name: 'Save policy' }).click();
    await chromium.page
      .getByRole('alert')
      .filter({ hasText: /action|policy/i })
      .first()
      .waitFor();
    await chromium.page.getByRole('button', { name: 'Insert a public-read example' }).click();
    await chromium.page.getByRole('button', { name: 'Save policy' }).click();
    await chromium.page.getByRole('button', { name: 'Delete policy' }).waitFor();
    expect((await store.adminCall('GET', '/buckets/site/policy')).status).toBe(200);
  });

  it('saves CORS rules and tags', async () => {
    await go('buckets/site?tab=cors');
    await chromium.page.getByRole('button', { name: 'Add rule' }).click();
    await chromium.page.getByLabel('Allowed origins (one per line)').fill('https://app.example.com');
    await chromium.page.getByRole('group', { name: 'Rule 1 methods' }).getByLabel('PUT').check();
    await chromium.page.getByRole('button', { name: 'Save CORS rules' }).click();
    await expect
      .poll(async () => (await store.adminCall('GET', '/buckets/site/cors')).body)
      .toMatchObject({
        rules: [{ allowedOrigins: ['https://app.example.com'], allowedMethods: ['GET', 'PUT'] }],
      });
    await go('buckets/site?tab=tags');
    await chromium.page.getByRole('button', { name: 'Add tag' }).click();
    await chromium.page.getByLabel('Tag 1 key').fill('owner');
    await chromium.page.getByLabel('Tag 1 value').fill('web team');
    await chromium.page.getByRole('button', { name: 'Save tags' }).click();
    await expect
      .poll(async () => (await store.adminCall('GET', '/buckets/site/tagging')).body)
      .toEqual({ tags: [{ key: 'owner', value: 'web team' }] });
  });

  it('explains why a bucket that is not empty cannot be deleted', async () => {
    await go('buckets');
    await chromium.page.getByRole('button', { name: 'Delete bucket site' }).click();
    const confirm = chromium.page.getByRole('dialog', { name: 'Delete bucket site?' });
    await confirm.getByLabel(/Type/).fill('site');
    await confirm.getByRole('button', { name: 'Delete bucket' }).click();
    await confirm.getByText(/The bucket is not empty/).waitFor();
    await confirm.getByRole('button', { name: 'Cancel' }).click();
  });
});

describe('objects', () => {
  it('deletes a selected folder and a file in one batch', async () => {
    await go('buckets/site/browse');
    await chromium.page.getByLabel('Select tmp/').check();
    await chromium.page.getByLabel('Select keep.txt').check();
    await chromium.page.getByRole('button', { name: 'Delete selected (2)' }).click();
    const dialog = chromium.page.getByRole('dialog', { name: 'Delete 2 selected items?' });
    await dialog.getByText('Every object under tmp/ is deleted too.').waitFor();
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await dialog.waitFor({ state: 'detached' });
    await expect
      .poll(async () =>
        (
          (await store.adminCall('GET', '/buckets/site/objects')).body as { objects: Array<{ key: string }> }
        ).objects.map((o) => o.key),
      )
      .toEqual(['index.html', 'logo.svg']);
  });

  it('finds objects across buckets', async () => {
    await chromium.page.getByLabel('Search objects in every bucket').fill('logo');
    await chromium.page.getByLabel('Search objects in every bucket').press('Enter');
    await chromium.page.getByRole('heading', { name: 'Search' }).waitFor();
    await chromium.page.getByRole('link', { name: 'logo.svg' }).click();
    await chromium.page.getByRole('dialog').getByRole('img', { name: 'Preview of logo.svg' }).waitFor();
  });
});

describe('users and the audit log', () => {
  it('creates a user with a temporary password shown once, changes the role, and keeps the last full admin', async () => {
    await go('users');
    expect(await chromium.page.getByLabel('Role of admin').isDisabled()).toBe(true); // the only full admin
    await chromium.page.getByRole('button', { name: 'Add user' }).click();
    const dialog = chromium.page.getByRole('dialog', { name: 'Add a user' });
    await dialog.getByLabel('Username').fill('operator');
    await dialog.getByRole('button', { name: 'Add user' }).click();
    const created = chromium.page.getByRole('dialog', { name: 'User operator created' });
    const temporary = await created.getByLabel('Temporary password').inputValue();
    expect(temporary.length).toBeGreaterThanOrEqual(12);
    await created.getByRole('button', { name: 'Done' }).click();
    await chromium.page.getByLabel('Role of operator').selectOption('full-admin');
    // Granting full admin asks first (console-daily-admin.test.ts covers the dialog).
    await chromium.page
      .getByRole('dialog', { name: 'Make operator a full admin?' })
      .getByRole('button', { name: 'Make full admin' })
      .click();
    await expect.poll(async () => chromium.page.getByLabel('Role of admin').isDisabled()).toBe(false);
    const users = (await store.adminCall('GET', '/users')).body as { items: Array<{ username: string; role: string }> };
    expect(users.items.find((u) => u.username === 'operator')?.role).toBe('full-admin');
    await chromium.page.getByRole('button', { name: 'Delete operator' }).click();
    await chromium.page
      .getByRole('dialog', { name: 'Delete operator?' })
      .getByRole('button', { name: 'Delete user' })
      .click();
    await expect.poll(() => chromium.page.getByLabel('Role of operator').count()).toBe(0);
  });

  it('filters the audit log by event', async () => {
    await go('audit');
    await chromium.page.getByLabel('Event').selectOption('user.created');
    await chromium.page.getByRole('button', { name: 'Apply filters' }).click();
    // The unfiltered page shows a user.created row too: wait for the filtered page to replace it.
    await expect
      .poll(() => chromium.page.getByRole('row').filter({ hasText: 'bucket.created' }).count(), { timeout: 10_000 })
      .toBe(0);
    await expect
      .poll(() => chromium.page.getByRole('row').filter({ hasText: 'user.created' }).count(), { timeout: 10_000 })
      .toBe(1);
    expect(chromium.page.url()).toContain('event=user.created');
    expect(chromium.problems).toEqual([]);
  });
});
