// The console's settings and status pages for daily work, at desktop (1440x900) and phone (390x844) size: a role
// change is confirmed before granting full admin or demoting oneself; health colours follow the real state (a
// failed replication drain, a backlog, versions never checked) and a one-sample chart shows its point; the bucket
// Overview follows edits made in the other tabs, summarises each setting and says when and why a bucket is public;
// lifecycle transitions are marked inert while tiering is off; search ignores case by default, takes sizes with
// units and filters by tag. docs/console.md.

import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { useStore } from '../../helpers/store.js';
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

// Replication to a port nothing listens on: every drain fails as "unreachable".
const store = useStore({
  env: {
    STORE_TRUSTED_PROXIES: '127.0.0.1',
    STORE_REPLICATION_ENABLED: 'true',
    STORE_REPLICATION_BUCKET: 'mirror',
    STORE_REPLICATION_ACCESS_KEY_ID: 'AKIADOWNTARGET0001',
    STORE_REPLICATION_SECRET_ACCESS_KEY: 'down-target-secret-0000000000000000000',
    STORE_REPLICATION_ENDPOINT: 'http://127.0.0.1:9',
    STORE_REPLICATION_DRAIN_INTERVAL_MS: '200',
  },
});
const chromium = useBrowser();

async function ok(call: Promise<{ status: number; body: unknown }>): Promise<unknown> {
  const res = await call;
  expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
  return res.body;
}

/** PUTs a text object through the admin API. */
function put(bucket: string, key: string, body: string): Promise<void> {
  return putText(store, { bucket, key, body });
}

beforeAll(async () => {
  for (const v of VIEWPORTS) {
    const b = `site-${v.name}`;
    await ok(store.adminCall('POST', '/buckets', { name: b }));
    await put(b, 'README.md', '# Read me\n');
    await put(b, 'big/blob.bin', 'x'.repeat(3000));
    await ok(
      store.adminCall('PUT', `/buckets/${b}/objects/tagging?key=big%2Fblob.bin`, {
        tags: [{ key: 'team', value: 'media' }],
      }),
    );
    await ok(
      store.adminCall('PUT', `/buckets/${b}/lifecycle`, {
        rules: [
          {
            id: 'cold',
            status: 'Enabled',
            filter: { prefix: 'big/' },
            transitions: [{ days: 30, storageClass: 'GLACIER' }],
          },
        ],
      }),
    );
    await ok(
      store.adminCall('POST', '/users', {
        username: `dana-${v.name}`,
        role: 'read-only',
        password: 'quiet-observer-4821',
      }),
    );
  }
  // The first drain fails at once (connection refused); wait for its status, a bounded poll.
  const drainError = async (): Promise<string | undefined> =>
    ((await store.adminCall('GET', '/replication/status')).body as { lastDrain?: { errorClass?: string } }).lastDrain
      ?.errorClass;
  for (let i = 0; i < 300 && (await drainError()) === undefined; i++) await new Promise((r) => setTimeout(r, 100));
  expect(await drainError()).toBe('unreachable');
});

const role = async (username: string): Promise<string> => {
  const users = (await store.adminCall('GET', '/users')).body as { items: Array<{ username: string; role: string }> };
  return users.items.find((u) => u.username === username)?.role ?? 'missing';
};

const tone = (page: Page, label: string): Promise<string | null> =>
  page
    .locator('.stat', { has: page.locator('.stat-label', { hasText: new RegExp(`^${label}$`) }) })
    .first()
    .getAttribute('class');

for (const v of VIEWPORTS) {
  describe(`daily admin work (${v.name}, ${v.theme})`, () => {
    const bucket = `site-${v.name}`;
    const dana = `dana-${v.name}`;
    let page: Page;
    let problems: string[];
    beforeAll(async () => {
      const context = await newContext(chromium.browser, { colorScheme: v.theme, viewport: v.viewport });
      page = await context.newPage();
      problems = watchProblems(page);
      await signIn(page, store.server);
    });

    it('confirms granting full admin and demoting oneself before sending', async () => {
      await page.goto(consoleUrl(store.server, 'users'));
      await settle(page);
      await page.getByLabel(`Role of ${dana}`).selectOption('full-admin');
      const grant = page.getByRole('dialog', { name: `Make ${dana} a full admin?` });
      await grant.waitFor();
      expect(await role(dana)).toBe('read-only'); // nothing sent yet
      await screenshot(page, `users-role-confirm-${v.name}`);
      await grant.getByRole('button', { name: 'Cancel' }).click();
      expect(await page.getByLabel(`Role of ${dana}`).inputValue()).toBe('read-only');
      expect(await role(dana)).toBe('read-only');
      await page.getByLabel(`Role of ${dana}`).selectOption('full-admin');
      await grant.getByRole('button', { name: 'Make full admin' }).click();
      await expect.poll(() => role(dana)).toBe('full-admin');
      await expect.poll(() => page.getByLabel(`Role of ${dana}`).inputValue()).toBe('full-admin');
      // Demoting oneself asks first (possible while another full admin exists); demoting someone else is sent at once.
      await page.getByLabel('Role of admin').selectOption('read-only');
      const self = page.getByRole('dialog', { name: 'Make yourself read-only?' });
      await self.getByRole('button', { name: 'Cancel' }).click();
      expect(await role('admin')).toBe('full-admin');
      await page.getByLabel(`Role of ${dana}`).selectOption('read-only');
      await expect.poll(() => role(dana)).toBe('read-only');
    });

    it('colours health by the real state and draws a one-sample chart', async () => {
      await page.goto(consoleUrl(store.server, ''));
      await settle(page);
      expect(await tone(page, 'Replication')).toContain('stat-bad');
      expect(await page.locator('.stat', { hasText: 'Replication' }).first().textContent()).toMatch(
        /Last drain failed.*unreachable/,
      );
      expect(await tone(page, 'Integrity')).toContain('stat-warn');
      expect(await page.locator('.stat', { hasText: 'Integrity' }).first().textContent()).toMatch(/unchecked/);
      // The storage chart has one sample (taken at boot): its dot is drawn and the chart says it is collecting.
      const storage = page.locator('.card', { hasText: 'Storage over 7 days' });
      expect(await storage.getByTestId('chart-dot').count()).toBeGreaterThanOrEqual(1);
      await storage.getByText(/Collecting data/).waitFor();
      await screenshot(page, `dashboard-health-${v.name}`);
      await page.goto(consoleUrl(store.server, 'replication'));
      await settle(page);
      expect(await tone(page, 'Replication')).toContain('stat-bad');
      expect(await page.locator('.card', { hasText: 'Last drain' }).textContent()).toMatch(/Resultfailed/);
      await page.goto(consoleUrl(store.server, 'integrity'));
      await settle(page);
      expect(await tone(page, 'Verified')).not.toContain('stat-ok');
      expect(await tone(page, 'Not checked yet')).toContain('stat-warn');
    });

    it('keeps the bucket Overview current, summarised, and says when and why it is public', async () => {
      await page.goto(consoleUrl(store.server, `buckets/${bucket}`));
      await settle(page);
      const facts = page.locator('.facts');
      expect(await facts.textContent()).toMatch(
        /LifecycleObjects under “big\/”: move to GLACIER after 30 days\..*tiering is off/,
      );
      expect(await page.getByTestId('public-note').textContent()).toMatch(/Not public/);
      // An edit in the Tags tab shows in the Overview without a reload.
      await page.getByRole('tab', { name: 'Tags' }).click();
      await page.getByRole('button', { name: 'Add tag' }).click();
      await page.getByLabel('Tag 1 key').fill('owner');
      await page.getByLabel('Tag 1 value').fill('web');
      await page.getByRole('button', { name: 'Save tags' }).click();
      await expect.poll(async () => (await store.adminCall('GET', `/buckets/${bucket}/tagging`)).status).toBe(200);
      // A public policy set elsewhere (another admin, the S3 API) shows too.
      await ok(
        store.adminCall('PUT', `/buckets/${bucket}/policy`, {
          Version: '2012-10-17',
          Statement: [
            {
              Sid: 'PublicRead',
              Effect: 'Allow',
              Principal: '*',
              Action: 's3:GetObject',
              Resource: `arn:aws:s3:::${bucket}/*`,
            },
          ],
        }),
      );
      await page.getByRole('tab', { name: 'Overview' }).click();
      await expect.poll(() => facts.textContent()).toMatch(/Tagsowner=web/);
      const note = page.getByTestId('public-note');
      await expect.poll(() => note.textContent()).toMatch(/Public \(bucket policy\)/);
      expect(await note.textContent()).toMatch(
        /statement PublicRead\) allows s3:GetObject on arn:aws:s3:::.*\/\*, always, for anyone/,
      );
      await screenshot(page, `bucket-overview-public-${v.name}`);
    });

    it('marks lifecycle transitions as doing nothing while tiering is off', async () => {
      await page.goto(consoleUrl(store.server, `buckets/${bucket}?tab=lifecycle`));
      await settle(page);
      await page.getByTestId('transitions-inert').waitFor();
      expect(await page.locator('.rule-summary').textContent()).toMatch(/Its transitions do nothing: tiering is off/);
    });

    it('searches ignoring case by default, with units for sizes and a tag filter', async () => {
      await page.goto(consoleUrl(store.server, `search?bucket=${bucket}&q=readme`));
      await settle(page);
      const results = page.getByRole('region', { name: 'Search results' });
      await results.getByRole('link', { name: 'README.md' }).waitFor();
      await page.getByLabel('Match case').check();
      await page.getByRole('search', { name: 'Objects' }).getByRole('button', { name: 'Search' }).click();
      await page.getByText('Nothing matches.').waitFor();
      expect(new URL(page.url()).searchParams.get('matchCase')).toBe('true');

      await page.goto(consoleUrl(store.server, `search?bucket=${bucket}`));
      await page.getByLabel('At least: amount').fill('2');
      await page.getByLabel('At least: unit').selectOption('KiB');
      await page.getByRole('search', { name: 'Objects' }).getByRole('button', { name: 'Search' }).click();
      await results.getByRole('link', { name: 'big/blob.bin' }).waitFor();
      expect(await results.getByRole('link').count()).toBe(1);
      expect(new URL(page.url()).searchParams.get('minSize')).toBe('2048');
      await page.reload();
      await settle(page);
      expect(await page.getByLabel('At least: amount').inputValue()).toBe('2');
      expect(await page.getByLabel('At least: unit').inputValue()).toBe('KiB');

      await page.goto(consoleUrl(store.server, `search?bucket=${bucket}`));
      await page.getByLabel('Tag key').fill('team');
      await page.getByLabel('Tag value').fill('media');
      await page.getByRole('search', { name: 'Objects' }).getByRole('button', { name: 'Search' }).click();
      await results.getByRole('link', { name: 'big/blob.bin' }).waitFor();
      expect(await results.getByRole('link').count()).toBe(1);
      await screenshot(page, `search-filters-${v.name}`);
    });

    it('saw no page error', () => {
      expect(problems).toEqual([]);
    });
  });
}
