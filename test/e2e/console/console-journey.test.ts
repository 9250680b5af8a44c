// The console's main journey in Debian's Chromium against the real server: sign in, create a bucket, drop three
// files (one over 20 MiB, sent as a multipart upload) and watch their progress, upload a folder, browse into it,
// preview an image, download a file and compare its bytes, create a share link and fetch it with no credentials,
// delete an object, see its version history and restore a version. Also: the session survives a reload without
// the token ever reaching storage, and sign-out ends it.

import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useStore, useTempDir } from '../../helpers/store.js';
import { tinyPng } from './console-seed.js';
import { screenshot, settle, signIn, useBrowser } from './console-browser.js';

const BIG = 21 * 1024 * 1024 + 12_345;
const BUCKET = 'journey';

/** The big file's bytes, the same in the browser and here: byte i is (i * 31 + (i >> 13)) & 255. */
function bigBytes(): Buffer {
  const b = Buffer.alloc(BIG);
  for (let i = 0; i < BIG; i++) b[i] = (i * 31 + (i >> 13)) & 255;
  return b;
}

const store = useStore({ env: { STORE_TRUSTED_PROXIES: '127.0.0.1' } });
const chromium = useBrowser({ page: true });
const work = useTempDir('console-journey-');

async function objectBytes(key: string, versionId?: string): Promise<Buffer> {
  const q = new URLSearchParams({ key, ...(versionId ? { versionId } : {}) });
  const res = await fetch(`${store.server.url}/api/admin/buckets/${BUCKET}/objects/content?${q.toString()}`, {
    headers: { authorization: `Bearer ${await store.admin()}` },
  });
  expect(res.status).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}

/** Drops files on the browser's drop zone as a real drag would deliver them (a DataTransfer with File objects). */
async function dropFiles(files: Array<{ name: string; type: string; text?: string; big?: boolean }>): Promise<void> {
  const dropzone = chromium.page.getByTestId('dropzone');
  const dataTransfer = await chromium.page.evaluateHandle((specs) => {
    const dt = new DataTransfer();
    for (const spec of specs) {
      let body: BlobPart;
      if (spec.big) {
        const size = 21 * 1024 * 1024 + 12_345;
        const bytes = new Uint8Array(size);
        for (let i = 0; i < size; i++) bytes[i] = (i * 31 + (i >> 13)) & 255;
        body = bytes;
      } else body = spec.text ?? '';
      dt.items.add(new File([body], spec.name, { type: spec.type }));
    }
    return dt;
  }, files);
  await dropzone.dispatchEvent('dragover', { dataTransfer });
  await dropzone.dispatchEvent('drop', { dataTransfer });
}

describe('the console journey', () => {
  it('signs in, and keeps the session across a reload with the token in memory only', async () => {
    await signIn(chromium.page, store.server);
    await chromium.page.reload();
    await chromium.page.getByRole('navigation', { name: 'Main' }).waitFor();
    const stored = await chromium.page.evaluate(
      () => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }) + document.cookie,
    );
    expect(stored).not.toMatch(/eyJ/); // no JWT anywhere a script could read it back
  });

  it('creates a versioned bucket', async () => {
    await chromium.page.getByRole('link', { name: 'Buckets', exact: true }).click();
    await chromium.page.getByRole('button', { name: 'Create bucket' }).click();
    const dialog = chromium.page.getByRole('dialog', { name: 'Create a bucket' });
    await dialog.getByLabel('Name').fill(BUCKET);
    await dialog.getByLabel(/versioning/).check();
    await dialog.getByRole('button', { name: 'Create bucket' }).click();
    await chromium.page.getByRole('heading', { name: `Objects in ${BUCKET}` }).waitFor();
    const bucket = await store.adminCall('GET', `/buckets/${BUCKET}`);
    expect((bucket.body as { versioning: string }).versioning).toBe('Enabled');
  });

  it('uploads three dropped files with a progress bar each, the large one as a multipart upload', async () => {
    // Uploads are throttled to 16 MiB/s for this test: unthrottled on a quiet machine the 21 MiB file can finish
    // between two samples, and the bar is only ever seen at 0 and 1.
    const cdp = await chromium.page.context().newCDPSession(chromium.page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 0,
      downloadThroughput: -1,
      uploadThroughput: 16 * 1024 * 1024,
    });
    // Sample the large file's progress bar while it uploads: it must move through intermediate values.
    const sampled = chromium.page.evaluate(
      () =>
        new Promise<number[]>((resolve) => {
          const seen: number[] = [];
          const timer = setInterval(() => {
            const bar = document.querySelector<HTMLProgressElement>('[data-upload-key="big.bin"] progress');
            if (bar) seen.push(bar.value / bar.max);
            if (seen.length > 0 && seen[seen.length - 1] === 1) {
              clearInterval(timer);
              resolve(seen);
            }
          }, 20);
          setTimeout(() => {
            clearInterval(timer);
            resolve(seen);
          }, 60_000);
        }),
    );
    await dropFiles([
      { name: 'notes.txt', type: 'text/plain', text: 'version one\n' },
      { name: 'hello.json', type: 'application/json', text: '{"hello": "world"}\n' },
      { name: 'big.bin', type: 'application/octet-stream', big: true },
    ]);
    const panel = chromium.page.getByTestId('upload-bar');
    await panel.getByRole('button', { name: 'Show files' }).click();
    await expect.poll(() => panel.locator('li progress').count()).toBe(3);
    await expect.poll(() => panel.getByText('Uploaded', { exact: true }).count(), { timeout: 60_000 }).toBe(3);
    const values = await sampled;
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 0,
      downloadThroughput: -1,
      uploadThroughput: -1,
    });
    await cdp.detach();
    expect(
      values.some((v) => v > 0 && v < 1),
      `progress samples ${values.join(',')}`,
    ).toBe(true);
    await screenshot(chromium.page, 'journey-uploads');

    const info = await store.adminCall('GET', `/buckets/${BUCKET}/objects/info?key=big.bin`);
    expect(info.body).toMatchObject({ size: BIG, partCount: 3 });
    expect((await objectBytes('notes.txt')).toString()).toBe('version one\n');
    await expect.poll(() => chromium.page.getByRole('row').filter({ hasText: 'big.bin' }).count()).toBe(1);
  });

  it('uploads a folder and browses into it, breadcrumbs and all', async () => {
    const folder = join(work, 'album');
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, 'cat.png'), tinyPng());
    writeFileSync(join(folder, 'about.txt'), 'An album.\n');
    await chromium.page.getByTestId('upload-folder').setInputFiles(folder);
    const panel = chromium.page.getByTestId('upload-bar');
    await expect.poll(() => panel.getByText('Uploaded', { exact: true }).count(), { timeout: 30_000 }).toBe(5);
    await chromium.page.getByRole('link', { name: 'album/' }).click();
    const crumb = chromium.page.getByRole('navigation', { name: 'Folder' }).getByRole('link', { name: 'album' });
    await expect.poll(() => crumb.getAttribute('aria-current')).toBe('page');
    await expect.poll(() => chromium.page.getByRole('row').filter({ hasText: 'cat.png' }).count()).toBe(1);
  });

  it('previews an image from a blob: URL', async () => {
    await chromium.page.getByRole('button', { name: 'cat.png', exact: true }).click();
    const dialog = chromium.page.getByRole('dialog');
    const img = dialog.getByRole('img', { name: /Preview of album\/cat.png/ });
    await img.waitFor();
    await expect.poll(() => img.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth)).toBe(96);
    expect(await img.getAttribute('src')).toMatch(/^blob:/);
    await settle(chromium.page);
    await screenshot(chromium.page, 'journey-preview');
    await dialog.getByRole('button', { name: 'Close' }).click();
  });

  it('downloads the large file with the same bytes', async () => {
    await chromium.page.getByRole('link', { name: BUCKET, exact: true }).click();
    await chromium.page.getByRole('button', { name: 'big.bin', exact: true }).click();
    const downloading = chromium.page.waitForEvent('download');
    await chromium.page.getByRole('dialog').getByRole('button', { name: 'Download' }).click();
    const download = await downloading;
    expect(download.suggestedFilename()).toBe('big.bin');
    const path = join(work, 'big.bin');
    await download.saveAs(path);
    const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');
    expect(sha(readFileSync(path))).toBe(sha(bigBytes()));
    await chromium.page.getByRole('dialog').getByRole('button', { name: 'Close' }).click();
  });

  it('creates a share link that works without credentials', async () => {
    await chromium.page.getByRole('button', { name: 'notes.txt', exact: true }).click();
    const dialog = chromium.page.getByRole('dialog');
    await dialog.getByRole('tab', { name: 'Share link' }).click();
    await dialog.getByLabel('Link expires after').selectOption('3600');
    await dialog.getByRole('button', { name: 'Create share link' }).click();
    const url = await dialog.getByLabel(/Share link \(expires/).inputValue();
    expect(url.startsWith(`${store.server.url}/${BUCKET}/notes.txt?`)).toBe(true);
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('version one\n');
    await dialog.getByRole('button', { name: 'Close' }).click();
  });

  it('deletes an object, shows its version history and restores an older version', async () => {
    await dropFiles([{ name: 'notes.txt', type: 'text/plain', text: 'version two\n' }]);
    const panel = chromium.page.getByTestId('upload-bar');
    await expect.poll(() => panel.getByText('Uploaded', { exact: true }).count(), { timeout: 20_000 }).toBe(6);
    expect((await objectBytes('notes.txt')).toString()).toBe('version two\n');

    await chromium.page.getByRole('button', { name: 'notes.txt', exact: true }).click();
    let dialog = chromium.page.getByRole('dialog');
    await dialog.getByRole('button', { name: 'Delete' }).click();
    const confirmDelete = chromium.page.getByRole('dialog', { name: /Delete notes.txt/ });
    await confirmDelete.getByRole('button', { name: 'Delete object' }).click();
    // The confirmation stays open (with its own Close) until the delete has answered.
    await confirmDelete.waitFor({ state: 'hidden' });
    await dialog.getByRole('button', { name: 'Close' }).click();
    await expect.poll(() => chromium.page.getByRole('button', { name: 'notes.txt', exact: true }).count()).toBe(0);

    await chromium.page.getByLabel('Show versions').check();
    const rows = chromium.page.getByRole('row').filter({ hasText: 'notes.txt' });
    await expect.poll(() => rows.count()).toBe(3);
    expect(await rows.filter({ hasText: 'delete marker' }).count()).toBe(1);
    await screenshot(chromium.page, 'journey-versions');

    const versions = (await store.adminCall('GET', `/buckets/${BUCKET}/objects/versions?prefix=notes.txt`)).body as {
      versions: Array<{ versionId: string; isDeleteMarker: boolean }>;
    };
    const first = versions.versions.filter((v) => !v.isDeleteMarker).at(-1);
    expect(first).toBeDefined();
    await rows
      .filter({ hasText: first!.versionId.slice(-12) })
      .getByRole('button')
      .click();
    dialog = chromium.page.getByRole('dialog');
    await dialog.getByRole('tab', { name: 'Versions' }).click();
    await dialog.getByRole('button', { name: `Restore version ${first!.versionId}` }).click();
    const confirmRestore = chromium.page.getByRole('dialog', { name: 'Restore this version?' });
    await confirmRestore.getByRole('button', { name: 'Restore version' }).click();
    await confirmRestore.waitFor({ state: 'hidden', timeout: 20_000 });
    await expect
      .poll(async () => (await objectBytes('notes.txt')).toString(), { timeout: 20_000 })
      .toBe('version one\n');
    await expect.poll(() => dialog.getByRole('row').count()).toBe(5); // header + restored + marker + two versions
    await dialog.getByRole('button', { name: 'Close' }).click();
  });

  it('signs out, and a reload does not sign back in', async () => {
    await chromium.page.getByRole('button', { name: 'Sign out' }).click();
    await chromium.page.getByRole('heading', { name: 'Sign in to Store' }).waitFor();
    await chromium.page.reload();
    await chromium.page.getByRole('heading', { name: 'Sign in to Store' }).waitFor();
    expect(chromium.problems).toEqual([]);
  });
});
