// Accessibility and screenshots: axe-core (WCAG 2.1 A/AA and best practices) on every page of the console, in the
// light and the dark theme, with no serious or critical violation; the sign-in and password-change screens too;
// and a phone-width pass. Each page is saved as test-artifacts/console/<page>-<theme>.png.

import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { useStore } from '../../helpers/store.js';
import {
  consoleUrl,
  newContext,
  screenshot,
  seriousViolations,
  settle,
  signIn,
  type AxeViolation,
  useBrowser,
  waitForShell,
  watchProblems,
} from './console-browser.js';
import { CONSOLE_PAGES } from './console-pages.js';
import { seedConsoleData, type Seeded } from './console-seed.js';

const store = useStore({ env: { STORE_TRUSTED_PROXIES: '127.0.0.1', AUDIT_FLUSH_MS: '250' } });
let seeded: Seeded;
beforeAll(async () => {
  seeded = await seedConsoleData(store.server);
});
const chromium = useBrowser();

const describeViolations = (page: string, v: AxeViolation[]): string[] =>
  v.map((x) => `${page}: ${x.id} (${x.impact}) ${x.help} at ${x.nodes.map((n) => n.target.join(' ')).join(', ')}`);

async function walk(
  theme: 'light' | 'dark',
  viewport?: { width: number; height: number },
  only?: string[],
): Promise<string[]> {
  const context = await newContext(chromium.browser, { colorScheme: theme, ...(viewport ? { viewport } : {}) });
  const page: Page = await context.newPage();
  const problems = watchProblems(page);
  const suffix = viewport ? `${theme}-phone` : theme;
  const found: string[] = [];

  await page.goto(consoleUrl(store.server));
  await page.getByRole('heading', { name: 'Sign in to Store' }).waitFor();
  found.push(...describeViolations('sign-in', await seriousViolations(page)));
  await screenshot(page, `sign-in-${suffix}`);
  await signIn(page, store.server);

  for (const p of CONSOLE_PAGES.filter((x) => !only || only.includes(x.name))) {
    await page.goto(consoleUrl(store.server, p.route(seeded)));
    await waitForShell(page);
    await settle(page);
    if (p.open) {
      await p.open(page);
      await settle(page);
    }
    found.push(...describeViolations(p.name, await seriousViolations(page)));
    await screenshot(page, `${p.name}-${suffix}`);
  }
  found.push(...problems);
  await context.close();
  return found;
}

describe('accessibility and screenshots', () => {
  it('has no serious violation on any page in the light theme', { timeout: 480_000 }, async () => {
    expect(await walk('light')).toEqual([]);
  });

  it('has no serious violation on any page in the dark theme', { timeout: 480_000 }, async () => {
    expect(await walk('dark')).toEqual([]);
  });

  it('is readable at phone width', { timeout: 240_000 }, async () => {
    expect(
      await walk('light', { width: 390, height: 844 }, [
        'dashboard',
        'buckets',
        'objects',
        'object-overview',
        'keys',
        'audit',
      ]),
    ).toEqual([]);
  });

  it('checks the forced password change screen', async () => {
    const context = await newContext(chromium.browser, { colorScheme: 'dark' });
    const page = await context.newPage();
    const created = await fetch(`${store.server.url}/api/admin/users`, {
      method: 'POST',
      headers: { authorization: `Bearer ${seeded.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'newcomer', role: 'read-only' }),
    });
    const { temporaryPassword } = (await created.json()) as { temporaryPassword: string };
    await signInAs(page, 'newcomer', temporaryPassword);
    await page.getByRole('heading', { name: 'Choose a new password' }).waitFor();
    expect(describeViolations('change-password', await seriousViolations(page))).toEqual([]);
    await screenshot(page, 'change-password-dark');
    await context.close();
  });
});

async function signInAs(page: Page, username: string, password: string): Promise<void> {
  await page.goto(consoleUrl(store.server));
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}
