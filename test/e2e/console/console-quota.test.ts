// The bucket quota in the console, at desktop (1440x900) and phone (390x844) widths: a full admin sets a quota on
// the Quota tab, sees the usage against each limit, the S3 API then refuses a write over it, and the admin removes
// it. The page has no serious accessibility violation and no horizontal overflow at either width.

import { PutObjectCommand } from '@aws-sdk/client-s3';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { useStore } from '../../helpers/store.js';
import {
  consoleUrl,
  newContext,
  screenshot,
  seriousViolations,
  settle,
  signIn,
  useBrowser,
  VIEWPORTS,
  watchProblems,
} from './console-browser.js';

const store = useStore({ env: { STORE_TRUSTED_PROXIES: '127.0.0.1' } });
const chromium = useBrowser();

async function quotaLine(page: Page, which: 'bytes' | 'objects'): Promise<string> {
  return ((await page.locator(`[data-quota="${which}"] p`).textContent()) ?? '').replace(/\s+/g, ' ').trim();
}

describe('the bucket Quota tab', () => {
  for (const { name, viewport } of VIEWPORTS) {
    it(`sets a quota, shows usage against it and removes it (${name})`, { timeout: 120_000 }, async () => {
      const bucket = await store.bucket(`cq${name.slice(0, 1)}`);
      await store.s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'a', Body: 'x'.repeat(100) }));
      await store.s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'b', Body: 'x'.repeat(100) }));

      const context = await newContext(chromium.browser, { viewport });
      const page = await context.newPage();
      const problems = watchProblems(page);
      await signIn(page, store.server, { route: `buckets/${bucket}?tab=quota` });
      await page.goto(consoleUrl(store.server, `buckets/${bucket}?tab=quota`));
      await settle(page);
      expect(await quotaLine(page, 'bytes')).toBe('Bytes: 200 B, no limit');
      expect(await quotaLine(page, 'objects')).toBe('Objects: 2, no limit');

      // A bad limit is refused in the form, before any request.
      await page.getByLabel('Byte limit').fill('lots');
      await page.getByRole('button', { name: 'Save quota' }).click();
      await page.getByText('The byte limit must be a size such as 10 GiB.').waitFor();

      await page.getByLabel('Byte limit').fill('1 KiB');
      await page.getByLabel('Object limit').fill('2');
      await page.getByRole('button', { name: 'Save quota' }).click();
      await page.getByText('Quota saved.').waitFor();
      await expect.poll(() => quotaLine(page, 'bytes')).toBe('Bytes: 200 B of 1 KiB (19.5%)');
      expect(await quotaLine(page, 'objects')).toBe('Objects: 2 of 2 (100%) full');
      expect(await page.locator('[data-quota="bytes"] progress').getAttribute('value')).toBe(String(200 / 1024));
      expect(await page.getByLabel('Byte limit').inputValue()).toBe('1 KiB');

      const admin = await store.adminCall('GET', `/buckets/${bucket}/quota`);
      expect(admin.body).toEqual({ quota: { maxBytes: 1024, maxObjects: 2 }, usage: { bytes: 200, objects: 2 } });
      await expect(store.s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'c', Body: 'x' }))).rejects.toMatchObject({
        name: 'QuotaExceeded',
      });

      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow).toBeLessThanOrEqual(0);
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, `bucket-quota-${name}`);

      await page.getByRole('button', { name: 'Remove quota' }).click();
      await page.getByText('Quota removed.').waitFor();
      await expect.poll(() => quotaLine(page, 'bytes')).toBe('Bytes: 200 B, no limit');
      await store.s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'c', Body: 'x' }));
      expect(problems).toEqual([]);
      await context.close();
    });
  }
});
