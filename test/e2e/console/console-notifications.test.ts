// Bucket notifications in the console (docs/console.md "Notifications"), in Chromium at 1440x900 and 390x844, one
// server and one browser for the file: a full admin adds webhook targets (secrets write-only: never shown, kept on
// edit), sends a bucket's ObjectCreated:* under a prefix to a real receiver and sees the delivered count; a target
// that the receiver refuses turns red, its dead letter is retried once the target points elsewhere; the server's
// refusals show in words; a read-only admin sees no change buttons; axe-core is clean and nothing scrolls sideways at
// 390 px.
// Retries are quick (STORE_NOTIFY_RETRY_BASE_MS, two attempts): the test waits on the page's state, never a clock.

import { randomBytes } from 'node:crypto';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import type { Locator, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { adminCall, adminLogin } from '../../helpers/admin-session.js';
import { useStore } from '../../helpers/store.js';
import { useWebhookReceiver } from '../../helpers/webhook-receiver.js';
import {
  consoleUrl,
  DESKTOP,
  newContext,
  PHONE,
  screenshot,
  seriousViolations,
  settle,
  signIn,
  useBrowser,
  waitForShell,
  watchProblems,
} from './console-browser.js';

const SECRET = randomBytes(36).toString('base64url');
const TOKEN = `tok-${randomBytes(16).toString('hex')}`;
const receiver = useWebhookReceiver(SECRET);
const store = useStore({
  env: {
    STORE_TRUSTED_PROXIES: '127.0.0.1',
    STORE_NOTIFY_MAX_ATTEMPTS: '2',
    STORE_NOTIFY_RETRY_BASE_MS: '20',
    STORE_NOTIFY_RETRY_CAP_MS: '50',
  },
});
const chromium = useBrowser();

let page: Page;
let problems: string[];
let bucket: string;
/** An endpoint of the receiver that answers 503 to everything (a target that is reached and refuses). */
let refusing: (tag: string) => string;
const started = Date.now();

const card = (id: string): Locator => page.locator('section.card', { has: page.locator(`[data-target="${id}"]`) });
const stat = (id: string, label: string): Locator =>
  card(id).locator('.stat', { has: page.locator('.stat-label', { hasText: label }) });
const statValue = async (id: string, label: string): Promise<string> =>
  (await stat(id, label).locator('.stat-value').textContent()) ?? '';
/** A stat's value once it reads `expected`, asking the page to refresh between looks (it also polls every 2 s). */
async function untilStat(id: string, label: string, expected: string): Promise<void> {
  await expect
    .poll(
      async () => {
        await page.getByRole('button', { name: 'Refresh' }).click();
        return statValue(id, label);
      },
      { timeout: 15_000 },
    )
    .toBe(expected);
}
const statusTone = (id: string): Promise<string | null> =>
  card(id).locator('[data-status]').getAttribute('data-status');

async function go(route: string): Promise<void> {
  await page.goto(consoleUrl(store.server, route));
  await waitForShell(page);
  await settle(page);
}

/** The outermost elements reaching past the right edge (what to fix when a page is too wide). */
const culprits = (): Promise<string[]> =>
  page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    return Array.from(document.body.querySelectorAll('*'))
      .filter((el) => el.getBoundingClientRect().right > width + 0.5)
      .filter((el) => !(el.parentElement && el.parentElement.getBoundingClientRect().right > width + 0.5))
      .map((el) => `${el.tagName.toLowerCase()}.${el.className}`)
      .slice(0, 4);
  });

/** No sideways scroll; with `axe`, no serious axe-core violation; with `shot`, a screenshot. */
async function expectClean(name: string, opts: { axe?: boolean; shot?: boolean } = {}): Promise<void> {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow, `${name} scrolls sideways: ${(await culprits()).join(', ')}`).toBeLessThanOrEqual(0);
  if (opts.axe) expect(await seriousViolations(page), name).toEqual([]);
  if (opts.shot) await screenshot(page, name);
}

async function addTarget(id: string, fill: Record<string, string>): Promise<void> {
  await page.getByRole('button', { name: 'Add target' }).click();
  const dialog = page.getByRole('dialog', { name: 'Add a notification target' });
  await dialog.getByLabel('Id (required)').fill(id);
  for (const [label, value] of Object.entries(fill)) await dialog.getByLabel(label, { exact: true }).fill(value);
  await dialog.getByRole('button', { name: 'Add target' }).click();
  await page.getByText(`Target ${id} added.`).waitFor();
}

beforeAll(async () => {
  receiver.respond = (req) => (req.path.includes('refuse=') ? { status: 503 } : { status: 200 });
  refusing = (tag) => `${receiver.url}?refuse=${tag}`;
  bucket = await store.bucket('cn');
  const context = await newContext(chromium.browser, { viewport: DESKTOP });
  page = await context.newPage();
  problems = watchProblems(page);
  await signIn(page, store.server, { route: 'notifications' });
});

describe('notification targets', () => {
  it('adds webhook targets whose secrets are never shown and kept on edit', async () => {
    await settle(page);
    await page.getByText('No notification targets yet.').waitFor();
    await addTarget('orders', { 'Endpoint (required)': receiver.url, 'Bearer token': TOKEN, 'Signing secret': SECRET });
    await addTarget('down', { 'Endpoint (required)': refusing('down') });
    expect(await card('orders').locator('[data-arn]').textContent()).toBe('arn:store:sqs:us-east-1:orders:webhook');
    expect(await statusTone('orders')).toBe('none');

    await card('orders').getByRole('button', { name: 'Edit' }).click();
    const dialog = page.getByRole('dialog', { name: 'Edit target orders' });
    const token = dialog.getByLabel('Bearer token');
    expect(await token.inputValue()).toBe('');
    expect(await token.getAttribute('placeholder')).toBe('unchanged');
    await dialog.getByText('Set: leave empty to keep it unchanged.', { exact: false }).first().waitFor();
    await dialog.getByLabel('Timeout (ms)').fill('3000');
    await dialog.getByRole('button', { name: 'Save target' }).click();
    await page.getByText('Target orders saved.').waitFor();

    const listed = await store.adminCall('GET', '/notification-targets');
    expect(JSON.stringify(listed.body)).not.toContain(SECRET);
    expect(JSON.stringify(listed.body)).not.toContain(TOKEN);
    const items = (listed.body as { items: Array<{ id: string; config: unknown; secretsSet: string[] }> }).items;
    const orders = items.find((t) => t.id === 'orders');
    expect(orders).toMatchObject({ id: 'orders', config: { timeoutMs: 3000 }, secretsSet: ['bearerToken', 'secret'] });
    const html = await page.content();
    expect(html).not.toContain(SECRET);
    expect(html).not.toContain(TOKEN);
  });

  it("configures a bucket's events, with the server's refusals in words", async () => {
    await go(`buckets/${bucket}?tab=events`);
    await page.getByText('No event notifications').waitFor();
    await page.getByRole('button', { name: 'Add configuration' }).click();
    const first = page.getByRole('group', { name: 'Configuration 1', exact: true });
    await first.getByLabel('Id', { exact: true }).fill('uploads');
    await first.getByLabel('Target').selectOption('arn:store:sqs:us-east-1:orders:webhook');
    await first.getByLabel('All (s3:ObjectCreated:*)').check();
    await first.getByLabel('Key prefix').fill('incoming/');

    // A second configuration whose Put overlaps the first's prefix: refused, and the reason is shown.
    await page.getByRole('button', { name: 'Add configuration' }).click();
    const second = page.getByRole('group', { name: 'Configuration 2', exact: true });
    await second.getByLabel('Id', { exact: true }).fill('logs');
    await second.getByLabel('Target').selectOption('arn:store:sqs:us-east-1:down:webhook');
    await second.getByRole('group', { name: 'Object created events' }).getByLabel('Put', { exact: true }).check();
    await second.getByLabel('Key prefix').fill('incoming/logs/');
    await page.getByRole('button', { name: 'Save event notifications' }).click();
    await page.getByRole('alert').getByText('Configurations uploads and logs overlap').waitFor();
    expect((await store.adminCall('GET', `/buckets/${bucket}/notification`)).body).toEqual({ rules: [] });
    await expectClean('bucket-events-desktop', { axe: true });

    await second.getByLabel('Key prefix').fill('logs/');
    await page.getByRole('button', { name: 'Save event notifications' }).click();
    await page.getByText('Event notifications saved.').waitFor();
    expect((await store.adminCall('GET', `/buckets/${bucket}/notification`)).body).toEqual({
      rules: [
        {
          id: 'uploads',
          kind: 'Queue',
          arn: 'arn:store:sqs:us-east-1:orders:webhook',
          events: ['s3:ObjectCreated:*'],
          prefix: 'incoming/',
        },
        {
          id: 'logs',
          kind: 'Queue',
          arn: 'arn:store:sqs:us-east-1:down:webhook',
          events: ['s3:ObjectCreated:Put'],
          prefix: 'logs/',
        },
      ],
    });
    await page.getByRole('tab', { name: 'Overview' }).click();
    await page.getByText('uploads: ObjectCreated:* for keys starting incoming/, to orders (webhook)').waitFor();
  });

  it('delivers an upload to the receiver and shows it; a refusing target is red', async () => {
    await store.s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'other/skip.txt', Body: 'no' }));
    await store.s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'incoming/a b.txt', Body: 'hello' }));
    await receiver.waitForAccepted(2);
    const [test, created] = receiver.events();
    expect(test).toMatchObject({ Event: 's3:TestEvent', Bucket: bucket });
    expect(created).toMatchObject({
      Records: [{ eventName: 'ObjectCreated:Put', s3: { object: { key: 'incoming/a+b.txt' } } }],
    });
    // The bearer token typed at creation still goes out after the edit that left it "unchanged".
    expect([...receiver.accepted.values()][1]?.headers['authorization']).toBe(`Bearer ${TOKEN}`);

    await go('notifications');
    // Exactly the test event and the one matching upload: other/skip.txt was never queued.
    await untilStat('orders', 'Delivered', '2');
    expect(await statusTone('orders')).toBe('ok');
    await untilStat('down', 'Failed', '1');
    expect(await statusTone('down')).toBe('bad');
    expect(await stat('down', 'Status').getAttribute('class')).toContain('stat-bad');
    await card('down').locator('.badge-bad').first().waitFor();
  });

  it('lists dead letters and retries them all after a confirmation', async () => {
    await card('down').getByRole('button', { name: 'Dead letters' }).click();
    const letters = page.locator('[data-dead-letters="down"]');
    await letters.getByRole('cell', { name: 'TestEvent', exact: true }).waitFor();
    await expectClean('console-notifications-desktop', { axe: true, shot: true });

    // Point the target at the receiver (its signing secret was never set: the form says so), then retry.
    await card('down').getByRole('button', { name: 'Edit' }).click();
    const dialog = page.getByRole('dialog', { name: 'Edit target down' });
    await dialog.getByText('Not set. At least 32 characters', { exact: false }).waitFor();
    await dialog.getByLabel('Endpoint (required)').fill(`${receiver.url}?from=down`);
    await dialog.getByLabel('Signing secret').fill(SECRET);
    await dialog.getByRole('button', { name: 'Save target' }).click();
    await page.getByText('Target down saved.').waitFor();

    await letters.getByRole('button', { name: 'Retry all' }).click();
    const confirm = page.getByRole('dialog', { name: 'Retry every dead letter of down?' });
    await confirm.getByRole('button', { name: 'Retry all' }).click();
    await page.getByText('1 delivery queued again.').waitFor();
    // The same test event went to orders: it arrives again, under its own URL (X-Store-Delivery hashes the message).
    await expect.poll(() => receiver.requests.some((r) => r.path === '/hook?from=down' && r.signatureOk)).toBe(true);
    await untilStat('down', 'Delivered', '1');
    expect(await statValue('down', 'Failed')).toBe('0');
    expect(await statusTone('down')).toBe('ok');
    await letters.getByText('No dead letters').waitFor();
  });

  it('deletes a target after a confirmation; a configuration naming it is refused in words', async () => {
    await addTarget('spare', { 'Endpoint (required)': receiver.url });
    const other = await store.bucket('cn');
    const arn = 'arn:store:sqs:us-east-1:spare:webhook';
    const set = await store.adminCall('PUT', `/buckets/${other}/notification`, {
      rules: [{ id: 'gone', arn, events: ['s3:ObjectRemoved:*'] }],
    });
    expect(set.status).toBe(200);
    await card('spare').getByRole('button', { name: 'Delete' }).click();
    await page
      .getByRole('dialog', { name: 'Delete target spare?' })
      .getByRole('button', { name: 'Delete target' })
      .click();
    await page.getByText('Target spare deleted.').waitFor();
    await expect.poll(() => card('spare').count()).toBe(0);

    await go(`buckets/${other}?tab=events`);
    expect(await page.getByLabel('Target').inputValue()).toBe(arn);
    await page.getByRole('button', { name: 'Save event notifications' }).click();
    await page.getByRole('alert').getByText(`no notification target has the ARN ${arn}`, { exact: false }).waitFor();
  });
});

describe('at phone width, and for a read-only admin', () => {
  it('fits 390 px with no sideways scroll and no serious axe violation; adds a PostgreSQL target', async () => {
    await page.setViewportSize(PHONE);
    // A refusing target with a dead letter (the test event of the bucket that names it).
    expect(
      (
        await store.adminCall('POST', '/notification-targets', {
          id: 'dead',
          kind: 'webhook',
          config: { endpoint: refusing('dead') },
        })
      ).status,
    ).toBe(201);
    const quiet = await store.bucket('cn');
    const rules = [{ arn: 'arn:store:sqs:us-east-1:dead:webhook', events: ['s3:ObjectCreated:*'] }];
    expect((await store.adminCall('PUT', `/buckets/${quiet}/notification`, { rules })).status).toBe(200);
    await go('notifications?deadLetters=dead');
    await page.locator('[data-dead-letters="dead"]').getByRole('cell', { name: 'TestEvent', exact: true }).waitFor();
    await expectClean('console-notifications-phone', { shot: true });
    await page.getByRole('button', { name: 'Add target' }).click();
    // Another kind through the same form: numbers, selects and a password as its server schema takes them.
    const dialog = page.getByRole('dialog', { name: 'Add a notification target' });
    await dialog.getByLabel('Id (required)').fill('warehouse');
    await dialog.getByLabel('Kind').selectOption('postgres');
    const fields = {
      'Host (required)': '127.0.0.1',
      'Database (required)': 'events',
      'User (required)': 'store',
      Password: 'pg-secret-value',
      'Table (required)': 'store_events',
    };
    for (const [label, value] of Object.entries(fields)) await dialog.getByLabel(label, { exact: true }).fill(value);
    await dialog.getByLabel('Format', { exact: true }).selectOption('access');
    await expectClean('notification-target-dialog-phone', { axe: true });
    await dialog.getByRole('button', { name: 'Add target' }).click();
    await page.getByText('Target warehouse added.').waitFor();
    expect((await store.adminCall('GET', '/notification-targets/warehouse')).body).toMatchObject({
      kind: 'postgres',
      config: {
        host: '127.0.0.1',
        port: 5432,
        database: 'events',
        user: 'store',
        table: 'store_events',
        format: 'access',
      },
      secretsSet: ['password'],
    });
    await go(`buckets/${bucket}?tab=events`);
    await expectClean('bucket-events-phone');
    expect(problems).toEqual([]);
  });

  it('shows a read-only admin the targets, dead letters and configurations without a change button', async () => {
    const made = await store.adminCall('POST', '/users', {
      username: 'watcher',
      role: 'read-only',
      password: 'quiet-observer-4821',
    });
    expect(made.status).toBe(201);
    const own = await adminLogin(store.server, 'watcher', 'quiet-observer-4821');
    const changed = await adminCall(store.server, own, {
      method: 'POST',
      path: '/settings/change-password',
      body: { currentPassword: 'quiet-observer-4821', newPassword: 'steady-observer-9153' },
    });
    expect(changed.status).toBe(204);
    await page.setViewportSize(DESKTOP);
    await page.getByRole('button', { name: 'Sign out' }).click();
    const reader = page;
    await signIn(reader, store.server, {
      username: 'watcher',
      password: 'steady-observer-9153',
      route: 'notifications?deadLetters=dead',
    });
    await settle(reader);
    await reader.locator('[data-dead-letters="dead"]').getByRole('cell', { name: 'TestEvent', exact: true }).waitFor();
    await reader.locator('[data-target="orders"]').waitFor();
    await reader.getByRole('button', { name: 'Dead letters' }).first().waitFor();
    for (const name of ['Add target', 'Edit', 'Delete', 'Retry all', 'Retry'])
      expect(await reader.getByRole('button', { name }).count(), name).toBe(0);
    await reader.goto(consoleUrl(store.server, `buckets/${bucket}?tab=events`));
    await settle(reader);
    const fieldset = reader.getByRole('group', { name: 'Configuration 1', exact: true });
    expect(await fieldset.getAttribute('disabled')).not.toBeNull();
    expect(await fieldset.getByLabel('Key prefix').isDisabled()).toBe(true);
    for (const name of ['Add configuration', 'Save event notifications', 'Remove configuration 1'])
      expect(await reader.getByRole('button', { name }).count(), name).toBe(0);
    expect(problems).toEqual([]);
    console.log(`console-notifications: ${((Date.now() - started) / 1000).toFixed(1)} s from import to the last test`);
  });
});
