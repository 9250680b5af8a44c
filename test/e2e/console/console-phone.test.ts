// The console at phone width (390x844, as an iPhone 12-15 shows it): every route fits the screen with no sideways
// scroll of the page (tables scroll inside their own region), dialogs open on-screen, and the controls of a row
// (the role select on Users) keep a usable width. docs/console.md, "Themes and layout".

import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { useStore } from '../../helpers/store.js';
import {
  consoleUrl,
  newContext,
  PHONE,
  screenshot,
  settle,
  signIn,
  useBrowser,
  waitForShell,
} from './console-browser.js';
import { CONSOLE_PAGES } from './console-pages.js';
import { seedConsoleData, type Seeded } from './console-seed.js';

const store = useStore({ env: { STORE_TRUSTED_PROXIES: '127.0.0.1' } });
let seeded: Seeded;
beforeAll(async () => {
  seeded = await seedConsoleData(store.server);
});
const chromium = useBrowser();

/** How far the page scrolls sideways: the document's scrollWidth beyond the viewport's width. */
const overflow = (page: Page): Promise<number> =>
  page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

/** The outermost elements that reach past the right edge (what to fix when a page is too wide). */
const culprits = (page: Page): Promise<string[]> =>
  page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const out: string[] = [];
    for (const el of Array.from(document.body.querySelectorAll('*'))) {
      if (el.getBoundingClientRect().right <= width + 0.5) continue;
      const parent = el.parentElement;
      if (parent && parent.getBoundingClientRect().right > width + 0.5) continue;
      out.push(`${el.tagName.toLowerCase()}.${el.className}`);
    }
    return out.slice(0, 4);
  });

async function phonePage(theme: 'light' | 'dark'): Promise<Page> {
  const context = await newContext(chromium.browser, { colorScheme: theme, viewport: PHONE });
  const page = await context.newPage();
  await signIn(page, store.server);
  return page;
}

describe('the console on a phone', () => {
  // Width does not depend on the theme (colours only): one walk, in the dark theme; console-a11y.test.ts walks the
  // light theme at this width.
  it('fits every route in 390 px with no horizontal scroll (dark)', { timeout: 300_000 }, async () => {
    const page = await phonePage('dark');
    const wide: string[] = [];
    for (const p of CONSOLE_PAGES) {
      await page.goto(consoleUrl(store.server, p.route(seeded)));
      await waitForShell(page);
      await settle(page);
      if (p.open) {
        await p.open(page);
        await settle(page);
      }
      const extra = await overflow(page);
      if (extra > 0) wide.push(`${p.name}: ${extra} px too wide (${(await culprits(page)).join(', ')})`);
      await screenshot(page, `${p.name}-phone`);
    }
    expect(wide).toEqual([]);
    await page.context().close();
  });

  it('opens "Create bucket" on-screen', async () => {
    const page = await phonePage('light');
    await page.goto(consoleUrl(store.server, 'buckets'));
    await settle(page);
    await page.getByRole('button', { name: 'Create bucket' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create a bucket' });
    const box = await dialog.boundingBox();
    expect(box).not.toBeNull();
    expect(box!.x).toBeGreaterThanOrEqual(0);
    expect(box!.x + box!.width).toBeLessThanOrEqual(PHONE.width);
    const submit = await dialog.getByRole('button', { name: 'Create bucket' }).boundingBox();
    expect(submit!.x + submit!.width).toBeLessThanOrEqual(PHONE.width);
    expect(submit!.y + submit!.height).toBeLessThanOrEqual(PHONE.height);
    expect(await overflow(page)).toBe(0);
    await page.context().close();
  });

  it('keeps the role selects on Users readable', async () => {
    const page = await phonePage('light');
    await page.goto(consoleUrl(store.server, 'users'));
    await settle(page);
    const select = page.getByLabel('Role of reader');
    const box = await select.boundingBox();
    expect(box!.width).toBeGreaterThanOrEqual(110);
    expect(box!.x + box!.width).toBeLessThanOrEqual(PHONE.width);
    // The chosen option is shown in full: the select is at least as wide as its text.
    const fits = await select.evaluate((el: HTMLSelectElement) => el.scrollWidth <= el.clientWidth);
    expect(fits).toBe(true);
    await page.context().close();
  });
});
