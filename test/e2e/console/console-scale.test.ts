// The object browser with 100,000 keys under one prefix: the first page shows at once, the DOM holds only the rows
// in view (virtualized), and scrolling to the end pages through every key with the API's cursor. And the time each
// main page takes to show its data, measured in the page, beside a 5,000-object bucket (docs/console.md, "Size").

import type { Page } from 'playwright-core';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { useStore, useTempDir } from '../../helpers/store.js';
import { consoleUrl, DESKTOP, newContext, screenshot, signIn, useBrowser, watchProblems } from './console-browser.js';
import { manyKey, seedManyKeys } from './seed-many-keys.js';

const COUNT = 100_000;
const BUCKET = 'big-bucket';
const PREFIX = 'logs/';
const root = useTempDir('console-scale-');
const dataDir = join(root, 'data');
const SMALL = 'five-thousand';
beforeAll(async () => {
  await seedManyKeys({ dataDir, bucket: BUCKET, prefix: PREFIX, count: COUNT });
  await seedManyKeys({ dataDir, bucket: SMALL, prefix: '', count: 5_000 });
}, 180_000);
const store = useStore({ dataDir, env: { STORE_TRUSTED_PROXIES: '127.0.0.1' } });
const chromium = useBrowser({ page: true });

const renderedRows = (p: Page): Promise<number> => p.locator('.olist-item').count();

describe('the object browser at scale', () => {
  it('shows the first rows of a 100,000-key prefix quickly and keeps the DOM small', async () => {
    const problems = watchProblems(chromium.page);
    await signIn(chromium.page, store.server);
    const started = Date.now();
    await chromium.page.goto(consoleUrl(store.server, `buckets/${BUCKET}/browse?prefix=${encodeURIComponent(PREFIX)}`));
    await chromium.page.getByRole('button', { name: 'obj-000000.txt' }).waitFor();
    const firstPaintMs = Date.now() - started;
    console.log(`first rows of ${COUNT} keys after ${firstPaintMs} ms (page load, refresh, first page of 1000)`);
    expect(firstPaintMs).toBeLessThan(10_000);
    expect(await renderedRows(chromium.page)).toBeLessThan(80);
    await screenshot(chromium.page, 'objects-100k');
    expect(problems).toEqual([]);
  });

  it('pages through every key by cursor as the list is scrolled to the end', { timeout: 300_000 }, async () => {
    const body = chromium.page.locator('.olist-body');
    const last = manyKey('', COUNT - 1);
    const started = Date.now();
    let maxRows = 0;
    for (let i = 0; i < 400; i++) {
      await body.evaluate((el) => {
        el.scrollTop = el.scrollHeight;
      });
      maxRows = Math.max(maxRows, await renderedRows(chromium.page));
      if ((await chromium.page.getByRole('button', { name: last }).count()) > 0) break;
      await chromium.page.waitForTimeout(50);
    }
    await chromium.page.getByRole('button', { name: last }).waitFor({ timeout: 10_000 });
    console.log(`scrolled through ${COUNT} keys in ${Date.now() - started} ms; at most ${maxRows} rows in the DOM`);
    expect(maxRows).toBeLessThan(80);
    // The table says how many rows it has once the listing is complete.
    expect(await chromium.page.getByRole('table').getAttribute('aria-rowcount')).toBe(String(COUNT + 1));
  });
});

/**
 * Loads a console route and answers, from the page's own clock, when its data showed: the first animation frame, from
 * the start of the navigation, at which the page has its heading, at least one admin API answer has arrived since
 * the session was restored, and no "Loading…" status is left.
 */
async function timeToData(page: Page, route: string): Promise<number> {
  await page.goto(consoleUrl(store.server, route), { waitUntil: 'commit' });
  return page.evaluate(
    () =>
      new Promise<number>((resolve) => {
        const ready = (): boolean =>
          document.querySelector('main h1') !== null &&
          document.querySelectorAll('.loading').length === 0 &&
          performance
            .getEntriesByType('resource')
            .some((e) => e.name.includes('/api/admin/') && !e.name.includes('/auth/'));
        const check = (): void => {
          if (ready()) resolve(performance.now());
          else if (performance.now() > 20_000) resolve(-1);
          else requestAnimationFrame(check);
        };
        check();
      }),
  );
}

/**
 * Moves the signed-in console to a route the way its own links do (history and popstate, no page load) and answers how
 * long, on the page's clock, until its heading shows, an admin API answer has arrived since, and nothing is loading.
 */
async function timeInApp(page: Page, route: string): Promise<number> {
  return page.evaluate(
    (url) =>
      new Promise<number>((resolve) => {
        performance.clearResourceTimings();
        const t0 = performance.now();
        history.pushState(null, '', url);
        window.dispatchEvent(new PopStateEvent('popstate'));
        const ready = (): boolean =>
          document.querySelector('main h1') !== null &&
          document.querySelectorAll('.loading').length === 0 &&
          performance.getEntriesByType('resource').some((e) => e.name.includes('/api/admin/'));
        // A page that never settles answers -1 after 20 s (the test then fails, naming it).
        const check = (): void => {
          if (ready()) resolve(performance.now() - t0);
          else if (performance.now() - t0 > 20_000) resolve(-1);
          else requestAnimationFrame(check);
        };
        requestAnimationFrame(check);
      }),
    consoleUrl(store.server, route),
  );
}

describe('every main page beside a 5,000-object bucket', () => {
  it('shows its data in about half a second or less (measured in the page, reported)', async () => {
    // A session of its own: this test does not lean on the sign-in of the tests above.
    const page = await (await newContext(chromium.browser, { viewport: DESKTOP })).newPage();
    await signIn(page, store.server);
    const routes = [
      '',
      'buckets',
      `buckets/${SMALL}`,
      `buckets/${SMALL}/browse`,
      `buckets/${SMALL}/browse?view=versions`,
      `search?q=obj-0049&bucket=${SMALL}`,
      'keys',
      'users',
      'audit',
      'backups',
      'replication',
      'notifications',
      'integrity',
    ];
    const loaded: Record<string, number> = {};
    for (const route of routes) loaded[route || 'dashboard'] = Math.round(await timeToData(page, route));
    const moved: Record<string, number> = {};
    for (const route of routes) moved[route || 'dashboard'] = Math.round(await timeInApp(page, route));
    console.log(`time to data, page loaded afresh (ms from navigation start): ${JSON.stringify(loaded)}`);
    console.log(`time to data, moving within the console (ms from the move): ${JSON.stringify(moved)}`);
    // Reported, not judged here (performance is judged by the benchmark): only a page that never settles fails.
    const unsettled = Object.entries({ ...loaded, ...moved }).filter(([, ms]) => ms < 0);
    expect(unsettled).toEqual([]);
    await page.context().close();
  });
});
