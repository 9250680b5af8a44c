// Everyday object work in the console, at desktop (1440x900) and phone (390x844) size, light and dark: a delete
// marker opened from the versions view is explained and can be undeleted (with a confirmation); "Show versions"
// survives folder clicks; "New folder" accepts a/b and leaves no nameless row; uploads show one overall progress
// (bytes, speed, time left, files) that stays on screen, expandable to the files with cancel and retry; a selection
// or the folder downloads as one .zip; SVG, audio, video and PDF previews.
// docs/console.md, "Objects" and "Uploads and downloads".

import { readFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { useStore } from '../../helpers/store.js';
import { unzip } from '../../helpers/zip-craft.js';
import { tinyPdf, tinyWav } from '../../helpers/media-fixtures.js';
import {
  consoleUrl,
  newContext,
  putText,
  screenshot,
  settle,
  signIn,
  useBrowser,
  VIEWPORTS,
  watchProblems,
} from './console-browser.js';

const store = useStore({ env: { STORE_TRUSTED_PROXIES: '127.0.0.1' } });
const chromium = useBrowser();

/** PUTs a text object through the admin API. */
function put(bucket: string, key: string, body: string): Promise<void> {
  return putText(store, { bucket, key, body });
}

beforeAll(async () => {
  for (const v of VIEWPORTS) {
    const bucket = `daily-${v.name}`;
    expect((await store.adminCall('POST', '/buckets', { name: bucket, versioning: true })).status).toBe(201);
    await put(bucket, 'doc.txt', 'first\n');
    await put(bucket, 'doc.txt', 'second\n');
    await put(bucket, '2030/trip.txt', 'a trip\n');
    const svg =
      '<svg xmlns="http://www.w3.org/2000/svg" width="40" height="30"><script>parent.svgRan = 1</script>' +
      '<rect width="40" height="30" fill="red" onload="parent.svgRan = 2"/></svg>';
    const media = [
      { key: 'media/logo.svg', body: Buffer.from(svg), type: 'image/svg+xml' },
      { key: 'media/tone.wav', body: tinyWav(0.5), type: 'audio/wav' },
      { key: 'media/clip.webm', body: Buffer.from('not really a video'), type: 'video/webm' },
      { key: 'media/two.pdf', body: tinyPdf(['First page', 'Second page']), type: 'application/pdf' },
    ];
    for (const m of media) await putBytes({ bucket, ...m });
    expect((await store.adminCall('DELETE', `/buckets/${bucket}/objects/content?key=doc.txt`)).status).toBe(204);
  }
});

/** PUTs bytes of a type through the admin API. */
async function putBytes(object: { bucket: string; key: string; body: Buffer; type: string }): Promise<void> {
  const res = await fetch(
    `${store.server.url}/api/admin/buckets/${object.bucket}/objects/content?key=${encodeURIComponent(object.key)}`,
    {
      method: 'PUT',
      headers: { authorization: `Bearer ${await store.admin()}`, 'content-type': object.type },
      body: new Uint8Array(object.body),
    },
  );
  expect(res.status, `PUT ${object.key}`).toBe(200);
}

/** Drops generated files on the drop zone as a real drag delivers them. */
async function dropFiles(page: Page, files: Array<{ name: string; size: number }>): Promise<void> {
  const dataTransfer = await page.evaluateHandle((specs) => {
    const dt = new DataTransfer();
    for (const s of specs) dt.items.add(new File([new Uint8Array(s.size).fill(97)], s.name, { type: 'text/plain' }));
    return dt;
  }, files);
  const dropzone = page.getByTestId('dropzone');
  await dropzone.dispatchEvent('dragover', { dataTransfer });
  await dropzone.dispatchEvent('drop', { dataTransfer });
}

async function throttle(page: Page, bytesPerSecond: number): Promise<() => Promise<void>> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  const set = (up: number) =>
    cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 0,
      downloadThroughput: -1,
      uploadThroughput: up,
    });
  await set(bytesPerSecond);
  return async () => {
    await set(-1);
    await cdp.detach();
  };
}

for (const v of VIEWPORTS) {
  describe(`everyday object work (${v.name}, ${v.theme})`, () => {
    const bucket = `daily-${v.name}`;
    let page: Page;
    let problems: string[];
    beforeAll(async () => {
      const context = await newContext(chromium.browser, { colorScheme: v.theme, viewport: v.viewport });
      page = await context.newPage();
      problems = watchProblems(page);
      await signIn(page, store.server);
    });

    it('explains a delete marker and undeletes the object after a confirmation', async () => {
      await page.goto(consoleUrl(store.server, `buckets/${bucket}/browse?view=versions`));
      await settle(page);
      const markerRow = page.getByRole('row').filter({ hasText: 'delete marker' });
      await markerRow.getByRole('button', { name: 'doc.txt' }).click();
      const dialog = page.getByRole('dialog', { name: 'doc.txt' });
      await dialog.getByTestId('delete-marker').waitFor();
      expect(await dialog.textContent()).not.toMatch(/not allowed|Try again/);
      expect(await dialog.getByTestId('delete-marker').textContent()).toMatch(/delete marker.*no content/);
      await screenshot(page, `objects-delete-marker-${v.name}`);
      await dialog.getByRole('button', { name: 'Undelete' }).click();
      const confirm = page.getByRole('dialog', { name: 'Undelete doc.txt?' });
      expect(await confirm.textContent()).toMatch(/becomes the current one again/);
      // Cancelling changes nothing.
      await confirm.getByRole('button', { name: 'Cancel' }).click();
      expect((await store.adminCall('GET', `/buckets/${bucket}/objects/info?key=doc.txt`)).status).toBe(404);
      await dialog.getByRole('button', { name: 'Undelete' }).click();
      await confirm.getByRole('button', { name: 'Undelete' }).click();
      await confirm.waitFor({ state: 'hidden' });
      const info = await store.adminCall('GET', `/buckets/${bucket}/objects/info?key=doc.txt`);
      expect(info.status).toBe(200);
      expect(info.body).toMatchObject({ size: 'second\n'.length, isLatest: true });
      // The dialog now shows the object itself.
      await dialog.getByRole('button', { name: 'Download' }).waitFor();
      await dialog.getByRole('button', { name: 'Close' }).click();
    });

    it('keeps "Show versions" across folder clicks and breadcrumbs', async () => {
      await page.goto(consoleUrl(store.server, `buckets/${bucket}/browse?view=versions`));
      await settle(page);
      await page.getByRole('link', { name: '2030/' }).click();
      await expect.poll(() => new URL(page.url()).searchParams.get('prefix')).toBe('2030/');
      expect(new URL(page.url()).searchParams.get('view')).toBe('versions');
      expect(await page.getByLabel('Show versions').isChecked()).toBe(true);
      await expect.poll(() => page.getByRole('row').filter({ hasText: 'trip.txt' }).count()).toBe(1);
      await page.getByRole('navigation', { name: 'Folder' }).getByRole('link', { name: bucket }).click();
      await expect.poll(() => new URL(page.url()).searchParams.get('prefix')).toBe(null);
      expect(new URL(page.url()).searchParams.get('view')).toBe('versions');
    });

    it('creates nested folders from "a/b" with no nameless row', async () => {
      await page.goto(consoleUrl(store.server, `buckets/${bucket}/browse`));
      await settle(page);
      await page.getByRole('button', { name: 'New folder' }).click();
      const dialog = page.getByRole('dialog', { name: 'New folder' });
      await dialog.getByLabel('Folder name').fill('albums/2031');
      await dialog.getByRole('button', { name: 'Create folder' }).click();
      await expect.poll(() => new URL(page.url()).searchParams.get('prefix')).toBe('albums/2031/');
      await settle(page);
      await page.getByText('This folder is empty.').waitFor();
      // Only the header row: the folder's own marker object is not listed as a nameless entry.
      expect(
        await page
          .getByRole('table', { name: /Objects in/ })
          .getByRole('row')
          .count(),
      ).toBe(1);
      expect((await store.adminCall('GET', `/buckets/${bucket}/objects/info?key=albums%2F2031%2F`)).status).toBe(200);
      await page.getByRole('navigation', { name: 'Folder' }).getByRole('link', { name: bucket }).click();
      await page.getByRole('link', { name: 'albums/' }).waitFor();
      await page.getByRole('button', { name: 'New folder' }).click();
      await dialog.getByLabel('Folder name').fill('x//y');
      await dialog.getByRole('button', { name: 'Create folder' }).click();
      await dialog.getByText(/empty folder/).waitFor();
      await dialog.getByRole('button', { name: 'Cancel' }).click();
    });

    it('shows one overall upload progress on screen, expandable to the files with cancel and retry', async () => {
      await page.goto(consoleUrl(store.server, `buckets/${bucket}/browse`));
      await settle(page);
      const restore = await throttle(page, 2 * 1024 * 1024);
      await dropFiles(page, [
        { name: 'one.bin', size: 3 * 1024 * 1024 },
        { name: 'two.bin', size: 3 * 1024 * 1024 },
        { name: 'three.bin', size: 1024 },
      ]);
      const bar = page.getByTestId('upload-bar');
      await bar.getByRole('heading', { name: /Uploading \d of 3 files/ }).waitFor();
      // The figures: bytes of the total, the speed and the time left once measured.
      await expect
        .poll(() => bar.getByTestId('upload-figures').textContent(), { timeout: 10_000 })
        .toMatch(/of 6 MiB.*\/s.*left/);
      // On screen without scrolling, whatever the list's length.
      const box = await bar.boundingBox();
      expect(box!.y + box!.height).toBeLessThanOrEqual(v.viewport.height);
      expect(box!.x + box!.width).toBeLessThanOrEqual(v.viewport.width);
      await screenshot(page, `objects-upload-bar-${v.name}`);
      await bar.getByRole('button', { name: 'Show files' }).click();
      await bar.getByRole('button', { name: 'Cancel the upload of two.bin' }).click();
      await bar.getByRole('button', { name: 'Retry the upload of two.bin' }).waitFor();
      await restore();
      await bar.getByRole('button', { name: 'Retry the upload of two.bin' }).click();
      await bar.getByRole('heading', { name: 'Uploads: 3 of 3 files uploaded' }).waitFor({ timeout: 30_000 });
      expect(await bar.getByTestId('upload-figures').textContent()).toMatch(/6 MiB of 6 MiB/);
      await screenshot(page, `objects-upload-files-${v.name}`);
      const info = await store.adminCall('GET', `/buckets/${bucket}/objects/info?key=two.bin`);
      expect(info.body).toMatchObject({ size: 3 * 1024 * 1024 });
      await bar.getByRole('button', { name: 'Hide files' }).click();
      expect(await bar.locator('li').first().isVisible()).toBe(false);
    });

    it('sorts by size and date, and copies the S3 URI and the key', async () => {
      await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
      await page.goto(consoleUrl(store.server, `buckets/${bucket}/browse`));
      await settle(page);
      const names = async (): Promise<string[]> =>
        (
          await page
            .getByRole('table', { name: /Objects in/ })
            .locator('.olist-item .col-name')
            .allTextContents()
        ).map((t) => t.trim());
      await page.getByRole('button', { name: 'Size' }).click();
      expect(new URL(page.url()).searchParams.get('sort')).toBe('size-desc');
      await expect
        .poll(async () => (await names()).filter((n) => n.endsWith('.bin')))
        .toEqual(['one.bin', 'two.bin', 'three.bin']);
      expect((await names())[0]).toMatch(/\/$/); // folders first
      await page.getByRole('button', { name: 'Size' }).click();
      await expect.poll(async () => (await names()).filter((n) => n.endsWith('.bin'))[0]).toBe('three.bin');
      expect(await page.getByRole('columnheader', { name: 'Size' }).getAttribute('aria-sort')).toBe('ascending');
      await page.getByRole('button', { name: 'doc.txt', exact: true }).click();
      const dialog = page.getByRole('dialog', { name: 'doc.txt' });
      await dialog.getByRole('button', { name: 'Copy S3 URI' }).click();
      await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(`s3://${bucket}/doc.txt`);
      await dialog.getByRole('button', { name: 'Copy key' }).click();
      await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe('doc.txt');
      await dialog.getByRole('button', { name: 'Close' }).click();
    });

    it('downloads a selection, or the folder, as one .zip through the browser', async () => {
      await page.goto(consoleUrl(store.server, `buckets/${bucket}/browse`));
      await settle(page);
      const list = page.getByRole('table', { name: /Objects in/ });
      await list.getByRole('checkbox', { name: 'Select doc.txt' }).check();
      await list.getByRole('checkbox', { name: 'Select 2030/' }).check();
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('button', { name: 'Download .zip (2)' }).click(),
      ]);
      expect(download.suggestedFilename()).toBe(`${bucket}.zip`);
      const entries = await unzip(await readFile((await download.path())!));
      expect(Object.fromEntries([...entries].map(([n, b]) => [n, b.toString()]))).toEqual({
        'doc.txt': 'second\n',
        '2030/trip.txt': 'a trip\n',
      });
      // Nothing selected, inside a folder: that folder, named after it.
      await list.getByRole('link', { name: '2030/' }).click();
      await expect.poll(() => new URL(page.url()).searchParams.get('prefix')).toBe('2030/');
      const [folder] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('button', { name: 'Download folder as .zip' }).click(),
      ]);
      expect(folder.suggestedFilename()).toBe('2030.zip');
      expect([...(await unzip(await readFile((await folder.path())!))).keys()]).toEqual(['trip.txt']);
    });

    it('previews SVG as a picture that runs nothing, audio, video and a PDF page by page', async () => {
      const open = async (name: string) => {
        await page.goto(consoleUrl(store.server, `buckets/${bucket}/browse?prefix=media%2F&object=media%2F${name}`));
        const dialog = page.getByRole('dialog', { name, exact: true });
        await dialog.waitFor();
        return dialog;
      };
      const svg = (await open('logo.svg')).getByRole('img', { name: 'Preview of media/logo.svg' });
      await expect.poll(() => svg.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(40);
      expect(await svg.getAttribute('src')).toMatch(/^blob:/);
      expect(await page.evaluate(() => (window as { svgRan?: number }).svgRan)).toBeUndefined();

      const audio = (await open('tone.wav')).locator('audio');
      await expect.poll(() => audio.evaluate((a: HTMLAudioElement) => a.duration)).toBeCloseTo(0.5, 1);

      const video = (await open('clip.webm')).locator('video');
      expect(await video.getAttribute('src')).toMatch(/^blob:/);
      expect(await video.getAttribute('controls')).not.toBeNull();

      const pdf = await open('two.pdf');
      const canvas = pdf.locator('canvas');
      await expect.poll(() => canvas.getAttribute('data-drawn'), { timeout: 15_000 }).toBe('1');
      expect(await canvas.getAttribute('role')).toBe('img');
      expect(await canvas.getAttribute('aria-label')).toBe('Preview of media/two.pdf, page 1 of 2');
      // The blue square is drawn: pixels, not a document.
      const blue = () =>
        canvas.evaluate((c: HTMLCanvasElement) => {
          const data = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
          let n = 0;
          for (let i = 0; i < data.length; i += 4) if (data[i + 2]! > 200 && data[i]! < 60) n++;
          return n;
        });
      expect(await blue()).toBeGreaterThan(100);
      await pdf.getByRole('button', { name: 'Next page' }).click();
      await expect.poll(() => canvas.getAttribute('data-drawn')).toBe('2');
      expect(await canvas.getAttribute('aria-label')).toMatch(/page 2 of 2$/);
      expect(await pdf.getByRole('button', { name: 'Next page' }).isDisabled()).toBe(true);
      await screenshot(page, `objects-preview-pdf-${v.name}`);
    });

    it('saw no page error', () => {
      expect(problems).toEqual([]);
    });
  });
}
