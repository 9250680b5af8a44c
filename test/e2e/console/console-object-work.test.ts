// Everyday object work in the console, on the desktop (1440x900, light) and the phone (390x844, dark), one server and
// one browser for the file: copy a selection (a file and a folder) into another bucket, move with a per-object failure
// reported, rename, edit metadata of one object and of a selection, count a folder and the prefix shown, empty and
// delete a versioned bucket, and see a locked version keep its bucket. New dialogs are checked with axe-core.
// docs/console.md, "Copy, move and rename", "Edit metadata", "Folder sizes", "Empty and delete a bucket".

import type { Locator, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { useStore } from '../../helpers/store.js';
import { consoleUrl, putText, screenshot, seriousViolations, useBrowser, VIEWPORTS } from './console-browser.js';

const store = useStore({ env: { STORE_TRUSTED_PROXIES: '127.0.0.1' } });
// One signed-in page for the file: the phone is the same session at another size and theme (one sign-in, not two).
const chromium = useBrowser({ signIn: store });

type Json = Record<string, unknown>;
const info = async (bucket: string, key: string): Promise<{ status: number; body: Json }> => {
  const res = await store.adminCall('GET', `/buckets/${bucket}/objects/info?key=${encodeURIComponent(key)}`);
  return { status: res.status, body: res.body as Json };
};
const keys = async (bucket: string, prefix = ''): Promise<string[]> => {
  const res = await store.adminCall('GET', `/buckets/${bucket}/objects?prefix=${encodeURIComponent(prefix)}`);
  return (res.body as { objects: Array<{ key: string }> }).objects.map((o) => o.key);
};

/** Each viewport's buckets: objects to copy, move and edit; a versioned bucket to empty; one with a held version. */
async function seed(b: string): Promise<void> {
  for (const [name, body] of [
    [b, { versioning: true }],
    [`${b}-dest`, {}],
    [`${b}-gone`, { versioning: true }],
    [`${b}-lock`, { objectLock: true }],
  ] as const) {
    expect((await store.adminCall('POST', '/buckets', { name, ...body })).status).toBe(201);
  }
  const objects = ['a.txt', 'b.txt', 'vanish.txt', 'docs/one.txt', 'docs/two.txt'].map((key) => ({
    bucket: b,
    key,
    body: `${key}\n`,
  }));
  objects.push({ bucket: `${b}-gone`, key: 'y/z.txt', body: 'z' }, { bucket: `${b}-lock`, key: 'free.txt', body: 'f' });
  await Promise.all(objects.map((o) => putText(store, o)));
  for (const body of ['x1', 'x2']) await putText(store, { bucket: `${b}-gone`, key: 'x.txt', body });
  await store.adminCall('DELETE', `/buckets/${b}-gone/objects/content?key=x.txt`);
  await putText(store, { bucket: `${b}-lock`, key: 'held.txt', body: 'held' });
  const hold = await store.adminCall('PUT', `/buckets/${b}-lock/objects/legal-hold?key=held.txt`, { status: 'ON' });
  expect(hold.status).toBe(200);
}

// After the sign-in (useBrowser's hook is declared first); every describe loads its page after this.
beforeAll(() => Promise.all(VIEWPORTS.map((v) => seed(`work-${v.name}`))));

/** axe-core finds no serious or critical violation on the page (desktop only: its rules do not depend on width). */
async function axeClean(page: Page, desktop: boolean): Promise<void> {
  if (desktop) expect(await seriousViolations(page)).toEqual([]);
}

/** Waits for the browser's list to show a row for `name`. */
async function row(page: Page, name: string): Promise<Locator> {
  const check = page.getByLabel(`Select ${name}`, { exact: true });
  await check.waitFor();
  return check;
}

for (const v of VIEWPORTS) {
  describe(`object work (${v.name}, ${v.theme})`, () => {
    const bucket = `work-${v.name}`;
    const desktop = v.name === 'desktop';
    let page: Page;
    beforeAll(async () => {
      page = chromium.page;
      await page.setViewportSize(v.viewport);
      await page.emulateMedia({ colorScheme: v.theme });
      await page.goto(consoleUrl(store.server, `buckets/${bucket}/browse`));
    });

    it('counts a folder and the prefix shown, on demand', async () => {
      await row(page, 'docs/');
      await page.getByRole('button', { name: 'Count objects in docs/' }).click();
      await page.locator('.folder-size-cell[title="2 objects, 26 B"]').waitFor();
      await page.getByRole('button', { name: `Count objects in ${bucket}` }).click();
      await page
        .getByRole('status')
        .filter({ hasText: `${bucket}: 5 objects, 49 B` })
        .waitFor();
    });

    it('copies a file and a folder into another bucket, server-side', async () => {
      await (await row(page, 'a.txt')).check();
      await (await row(page, 'docs/')).check();
      await page.getByRole('button', { name: 'Copy (2)' }).click();
      const dialog = page.getByRole('dialog', { name: 'Copy 2 selected items' });
      await dialog.getByLabel('Destination bucket').selectOption(`${bucket}-dest`);
      await dialog.getByLabel('Destination folder').fill('in');
      await axeClean(page, desktop);
      await screenshot(page, `object-work-copy-${v.name}`);
      await dialog.getByRole('button', { name: 'Copy', exact: true }).click();
      await dialog.waitFor({ state: 'detached' });
      expect(await keys(`${bucket}-dest`)).toEqual(['in/a.txt', 'in/docs/one.txt', 'in/docs/two.txt']);
      expect(await keys(bucket, 'a.txt')).toEqual(['a.txt']);
    });

    it('moves a selection and reports the object that could not be moved', async () => {
      await (await row(page, 'b.txt')).check();
      await (await row(page, 'vanish.txt')).check();
      // Gone on the server after the list showed it: its move fails, the other still goes.
      expect((await store.adminCall('DELETE', `/buckets/${bucket}/objects/content?key=vanish.txt`)).status).toBe(204);
      await page.getByRole('button', { name: 'Move (2)' }).click();
      const dialog = page.getByRole('dialog', { name: 'Move 2 selected items' });
      await dialog.getByLabel('Destination folder').fill('moved/');
      await dialog.getByRole('button', { name: 'Move', exact: true }).click();
      await dialog.getByRole('status').filter({ hasText: '1 moved, 1 failed.' }).waitFor();
      expect(await dialog.getByRole('list', { name: 'Failures' }).textContent()).toMatch(/vanish\.txt: NoSuchKey/);
      await dialog.getByRole('button', { name: 'Close', exact: true }).first().click();
      expect(await keys(bucket, 'moved/')).toEqual(['moved/b.txt']);
      expect((await info(bucket, 'b.txt')).status).toBe(404);
    });

    it('renames one object and edits its metadata', async () => {
      await row(page, 'a.txt');
      await page.getByRole('button', { name: 'a.txt', exact: true }).click();
      const details = page.getByRole('dialog', { name: 'a.txt', exact: true });
      await details.getByRole('button', { name: 'Rename' }).click();
      const rename = page.getByRole('dialog', { name: 'Rename a.txt' });
      await rename.getByLabel('New key').fill('notes/a2.txt');
      await axeClean(page, desktop);
      await rename.getByRole('button', { name: 'Rename', exact: true }).click();
      await expect.poll(() => new URL(page.url()).searchParams.get('object')).toBe('notes/a2.txt');
      expect((await info(bucket, 'a.txt')).status).toBe(404);

      const moved = page.getByRole('dialog', { name: 'a2.txt', exact: true });
      await moved.getByRole('button', { name: 'Edit metadata' }).click();
      const edit = page.getByRole('dialog', { name: 'Edit metadata of notes/a2.txt' });
      expect(await edit.getByLabel('Content-Type').inputValue()).toBe('text/plain');
      await edit.getByLabel('Content-Type').fill('text/markdown');
      await edit.getByLabel('Cache-Control').fill('max-age=60');
      await edit.getByRole('button', { name: 'Add metadata' }).click();
      await edit.getByLabel('Metadata 1 name').fill('Owner');
      await edit.getByLabel('Metadata 1 value').fill('web team');
      await axeClean(page, desktop);
      await screenshot(page, `object-work-metadata-${v.name}`);
      await edit.getByRole('button', { name: 'Save metadata' }).click();
      await edit.waitFor({ state: 'detached' });
      expect((await info(bucket, 'notes/a2.txt')).body).toMatchObject({
        contentType: 'text/markdown',
        cacheControl: 'max-age=60',
        userMetadata: { owner: 'web team' },
      });
      await moved.getByText('x-amz-meta-owner').waitFor();
      await moved.getByRole('button', { name: 'Close', exact: true }).click();
    });

    it('edits the metadata of a selected folder', async () => {
      await (await row(page, 'docs/')).check();
      await page.getByRole('button', { name: 'Edit metadata (1)' }).click();
      const edit = page.getByRole('dialog', { name: 'Edit metadata of 1 selected item' });
      await edit.getByLabel('Cache-Control').fill('no-cache');
      await edit.getByRole('button', { name: 'Save metadata' }).click();
      await edit.waitFor({ state: 'detached' });
      for (const key of ['docs/one.txt', 'docs/two.txt']) {
        expect((await info(bucket, key)).body).toMatchObject({ cacheControl: 'no-cache', contentType: 'text/plain' });
      }
    });

    it('empties and deletes a versioned bucket after its name is typed', async () => {
      await page.goto(consoleUrl(store.server, 'buckets'));
      await page.getByRole('button', { name: `Delete bucket ${bucket}-gone` }).click();
      const dialog = page.getByRole('dialog', { name: `Delete bucket ${bucket}-gone?` });
      await dialog.getByLabel('Empty the bucket first').check();
      const button = dialog.getByRole('button', { name: 'Empty and delete bucket' });
      expect(await button.isDisabled()).toBe(true);
      await dialog.getByLabel(/Type/).fill(`${bucket}-gone`);
      await axeClean(page, desktop);
      await screenshot(page, `object-work-empty-${v.name}`);
      await button.click();
      await dialog.waitFor({ state: 'detached' });
      expect((await store.adminCall('GET', `/buckets/${bucket}-gone`)).status).toBe(404);
    });

    it('names a version under legal hold and leaves its bucket in place', async () => {
      await page.getByRole('button', { name: `Delete bucket ${bucket}-lock` }).click();
      const dialog = page.getByRole('dialog', { name: `Delete bucket ${bucket}-lock?` });
      await dialog.getByLabel('Empty the bucket first').check();
      await dialog.getByLabel(/Type/).fill(`${bucket}-lock`);
      await dialog.getByRole('button', { name: 'Empty and delete bucket' }).click();
      const locked = dialog.getByRole('list', { name: 'Locked versions' });
      await locked.waitFor();
      expect(await locked.textContent()).toMatch(/held\.txt/);
      expect(await dialog.textContent()).toMatch(/1 version is under retention or legal hold.*not deleted/);
      await dialog.getByRole('button', { name: 'Close', exact: true }).first().click();
      expect((await store.adminCall('GET', `/buckets/${bucket}-lock`)).status).toBe(200);
      expect(await keys(`${bucket}-lock`)).toEqual(['held.txt']);
    });

    it('saw no page error', () => {
      expect(chromium.problems).toEqual([]);
    });
  });
}
