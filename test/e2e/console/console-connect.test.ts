// Connecting a client (docs/console.md "Connecting a client", "Share links"), on the desktop (light) and the phone
// (dark), one server and one browser for the file: an access key created with an expiry, its copy buttons, the .json
// and .csv downloads (contents checked), the snippets naming the server's real S3 endpoint, and the JS SDK snippet run
// as it is shown, with Node, against the server; then a share link created, listed and revoked (its URL then 403s).
// axe-core on every new dialog.

import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../helpers/server.js';
import { useStore } from '../../helpers/store.js';
import {
  consoleUrl,
  newContext,
  putText,
  screenshot,
  seriousViolations,
  settle,
  signIn,
  useBrowser,
  VIEWPORTS,
  watchProblems,
} from './console-browser.js';

const BUCKET = 'connect-data';
const store = useStore({ env: { STORE_TRUSTED_PROXIES: '127.0.0.1' } });
const chromium = useBrowser();
const work = mkdtempSync(join(tmpdir(), 'console-connect-'));

beforeAll(async () => {
  expect((await store.adminCall('POST', '/buckets', { name: BUCKET })).status).toBe(201);
  await putText(store, { bucket: BUCKET, key: 'shared/report.txt', body: 'quarterly numbers\n' });
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

async function axeClean(page: Page, what: string): Promise<void> {
  const found = await seriousViolations(page);
  expect(
    found.map((v) => `${what}: ${v.id} ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
  ).toEqual([]);
}

/** Clicks a button that starts a download and returns the file's name and text. */
async function downloaded(page: Page, button: Locator): Promise<{ name: string; text: string }> {
  const event = page.waitForEvent('download');
  await button.click();
  const file = await event;
  const path = join(work, file.suggestedFilename());
  await file.saveAs(path);
  return { name: file.suggestedFilename(), text: readFileSync(path, 'utf8') };
}

/** Runs a JS SDK snippet exactly as shown: an ES module beside a node_modules that has @aws-sdk/client-s3. */
async function runJsSnippet(code: string): Promise<string> {
  const dir = mkdtempSync(join(work, 'snippet-'));
  symlinkSync(join(REPO_ROOT, 'node_modules'), join(dir, 'node_modules'));
  writeFileSync(join(dir, 'snippet.mjs'), code);
  const { stdout } = await promisify(execFile)(process.execPath, ['snippet.mjs'], { cwd: dir, timeout: 30_000 });
  return stdout;
}

describe.each(VIEWPORTS)('connecting a client on the $name ($theme)', ({ name, theme, viewport }) => {
  let page: Page;
  let problems: string[];
  const keyName = `connect ${name}`;

  beforeAll(async () => {
    const context = await newContext(chromium.browser, { colorScheme: theme, viewport });
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    page = await context.newPage();
    problems = watchProblems(page);
    await signIn(page, store.server, { route: 'keys' });
  });
  afterAll(() => page.context().close());

  it('creates a key with an expiry; copies, downloads and snippets carry it and the real endpoint', async () => {
    await settle(page);
    await page.getByRole('button', { name: 'Create access key' }).click();
    const form = page.getByRole('dialog', { name: 'Create an access key' });
    await form.getByLabel('Name', { exact: true }).fill(keyName);
    await form.getByLabel('Bucket', { exact: true }).selectOption(BUCKET);
    await form.getByLabel('Expires', { exact: true }).selectOption('7');
    await axeClean(page, 'create dialog');
    await form.getByRole('button', { name: 'Create key' }).click();

    const created = page.getByRole('dialog', { name: 'Access key created' });
    const id = await created.getByLabel('Access key ID').inputValue();
    const secret = await created.getByLabel('Secret access key').inputValue();
    expect(id).toMatch(/^[A-Z0-9]{20}$/);
    await created.getByText(/· Expires \d{4}-\d\d-\d\d /).waitFor();
    const clipboard = (): Promise<string> => page.evaluate(() => navigator.clipboard.readText());
    await created.getByRole('button', { name: 'Copy access key ID' }).click();
    await expect.poll(clipboard).toBe(id);
    await created.getByRole('button', { name: 'Copy secret access key' }).click();
    await expect.poll(clipboard).toBe(secret);

    const endpoint = store.server.url;
    expect(await created.getByTestId('s3-endpoint').textContent()).toBe(endpoint);
    const json = await downloaded(page, created.getByRole('button', { name: 'Download .json' }));
    expect(json.name).toBe(`${id}.json`);
    expect(JSON.parse(json.text)).toEqual({ accessKeyId: id, secretAccessKey: secret, endpoint, region: 'us-east-1' });
    const csv = await downloaded(page, created.getByRole('button', { name: 'Download .csv' }));
    expect(csv.name).toBe(`${id}_accessKeys.csv`);
    expect(csv.text).toBe(`Access key ID,Secret access key\r\n${id},${secret}\r\n`);

    const shown = created.locator('pre[data-snippet]');
    expect(await shown.textContent()).toContain(`--endpoint-url '${endpoint}'`);
    await created.getByRole('tab', { name: 'JS SDK v3' }).click();
    const js = (await shown.textContent()) ?? '';
    expect(js).toContain(`endpoint: "${endpoint}"`);
    await axeClean(page, 'key created dialog');
    await screenshot(page, `key-connect-${name}-${theme}`);
    // The snippet works as shown: it lists the key's bucket, which the key may.
    if (name === 'desktop')
      expect(JSON.parse((await runJsSnippet(js)).replaceAll("'", '"'))).toEqual(['shared/report.txt']);

    await created.getByRole('button', { name: 'Done' }).click();
    const row = page.getByRole('row').filter({ hasText: keyName });
    await row.getByText('expires in 7 days').waitFor();
  });

  it('creates a share link to an object, lists it, and revokes it so that the URL fails at once', async () => {
    await page.goto(consoleUrl(store.server, `buckets/${BUCKET}/browse?object=shared%2Freport.txt`));
    await settle(page);
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('tab', { name: 'Share link' }).click();
    await dialog.getByLabel('Link expires after').selectOption('900');
    await dialog.getByRole('button', { name: 'Create share link' }).click();
    const url = await dialog.getByLabel(/Share link \(expires/).inputValue();
    expect(url).not.toContain(store.server.credentials.accessKeyId);
    const got = await fetch(url);
    expect([got.status, await got.text()]).toEqual([200, 'quarterly numbers\n']);
    const listed = dialog.getByRole('region', { name: 'Live links to this object' });
    const row = listed.getByRole('row').filter({ hasText: `${BUCKET}/shared/report.txt` });
    await row.getByText('expires in 15 minutes').waitFor();
    await row.getByRole('cell', { name: 'admin' }).waitFor();
    await row.getByRole('button', { name: 'Revoke link to shared/report.txt' }).click();
    const confirm = page.getByRole('dialog', { name: 'Revoke this share link?' });
    await axeClean(page, 'revoke dialog');
    await confirm.getByRole('button', { name: 'Revoke link' }).click();
    await listed.getByText('No live share links.').waitFor();
    expect((await fetch(url)).status).toBe(403);
    expect(problems).toEqual([]);
  });
});
