// Plumbing for the console's end-to-end tests: Debian's Chromium driven by playwright-core, one browser context per
// scenario (each with its own client address, so the login throttle counts them apart on a server that trusts
// loopback as a proxy), sign-in through the real form, axe-core, screenshots, and a watch for page errors and CSP
// violations (the console must run under its own strict CSP).

import { randomInt } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { REPO_ROOT, type RunningServer } from '../../helpers/server.js';
import type { Store } from '../../helpers/store.js';

export const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** Where screenshots go (gitignored). */
export const ARTIFACTS = join(REPO_ROOT, 'test-artifacts', 'console');

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}

export interface ContextOptions {
  colorScheme?: 'light' | 'dark';
  viewport?: { width: number; height: number };
}

/** A fresh context: its own cookies, its own X-Forwarded-For (counted as its own client by the throttles). */
export function newContext(browser: Browser, opts: ContextOptions = {}): Promise<BrowserContext> {
  return browser.newContext({
    colorScheme: opts.colorScheme ?? 'light',
    viewport: opts.viewport ?? { width: 1280, height: 860 },
    acceptDownloads: true,
    extraHTTPHeaders: { 'x-forwarded-for': `198.18.${randomInt(256)}.${randomInt(1, 255)}` },
  });
}

export interface BrowserSession {
  readonly browser: Browser;
  /** A context of its own (see newContext), with `page` or `signIn` only. */
  readonly context: BrowserContext;
  /** A page in that context, watched for problems from its start. */
  readonly page: Page;
  /** What watchProblems saw on `page`. */
  readonly problems: string[];
}

/**
 * Chromium for the tests of the enclosing file or describe block: launched in beforeAll, closed in afterAll. With
 * `page`, a page in a fresh context, watched for problems; with `signIn`, that page signed in to the store's console
 * (under its MOUNT_PATH) as the bootstrap admin. Hooks declared before this one (seeding data) run first.
 */
export function useBrowser(opts: { page?: boolean; signIn?: Store } = {}): BrowserSession {
  let browser: Browser | undefined;
  let session: { context: BrowserContext; page: Page; problems: string[] } | undefined;
  beforeAll(async () => {
    browser = await launchBrowser();
    if (!opts.page && opts.signIn === undefined) return;
    const context = await newContext(browser);
    const page = await context.newPage();
    session = { context, page, problems: watchProblems(page) };
    if (opts.signIn !== undefined)
      await signIn(page, opts.signIn.server, { mount: opts.signIn.server.env['MOUNT_PATH'] ?? '' });
  });
  afterAll(() => browser?.close());
  const page = (): { context: BrowserContext; page: Page; problems: string[] } => {
    if (session === undefined) throw new Error('no page: useBrowser({ page: true }) makes one in beforeAll');
    return session;
  };
  return {
    get browser() {
      if (browser === undefined) throw new Error('the browser has not started: useBrowser() launches it in beforeAll');
      return browser;
    },
    get context() {
      return page().context;
    },
    get page() {
      return page().page;
    },
    get problems() {
      return page().problems;
    },
  };
}

/** Page errors, console errors and CSP violations seen so far. */
export function watchProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('pageerror', (err) => problems.push(`pageerror: ${err.message}`));
  page.on('console', (msg) => {
    if (msg.type() !== 'error') return;
    const text = msg.text();
    // Expected answers the console handles (a config that is not set, a route this server lacks, a refused action)
    // are logged by Chromium as failed resource loads; they are not problems of the console.
    if (/Failed to load resource: the server responded with a status of (4\d\d)/.test(text)) return;
    problems.push(`console: ${text}`);
  });
  return problems;
}

/** The console's URL for a route ('' is the dashboard). */
export function consoleUrl(server: RunningServer, route = '', mount = ''): string {
  return `${server.url}${mount}/admin/${route}`;
}

/** Signs in through the form and waits for the shell. */
export async function signIn(
  page: Page,
  server: RunningServer,
  opts: { mount?: string; username?: string; password?: string; route?: string } = {},
): Promise<void> {
  await page.goto(consoleUrl(server, opts.route ?? '', opts.mount));
  await page.getByLabel('Username').fill(opts.username ?? 'admin');
  await page.getByLabel('Password').fill(opts.password ?? server.credentials.adminPassword);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await waitForShell(page);
}

/** Waits for the signed-in shell (its Sign out button shows at every width; the navigation folds away on phones). */
export async function waitForShell(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}

/** Waits until no "Loading…" status is on the page. */
export async function settle(page: Page): Promise<void> {
  await page.waitForLoadState('networkidle');
  await expect.poll(() => page.locator('.loading').count(), { timeout: 15_000 }).toBe(0);
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: string[] }>;
}

/**
 * Runs axe-core on the page (WCAG 2.1 A and AA rules, best practices) and returns the serious and critical
 * violations. axe is injected with evaluate() (a script, not a <script> element), so the console's CSP stays on.
 */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  const hasAxe = await page.evaluate(() => 'axe' in window);
  if (!hasAxe) await page.evaluate(axeSource);
  const result = await page.evaluate(async () => {
    const axe = (
      window as unknown as { axe: { run: (ctx: Document, opts: unknown) => Promise<{ violations: AxeViolation[] }> } }
    ).axe;
    const r = await axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] },
    });
    return r.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.slice(0, 5).map((n) => ({ target: n.target })),
    }));
  });
  return result.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/**
 * Screenshots are for people (docs/console.md, "Tests and screenshots"): a CI run, whose files nobody looks at, skips
 * them (a few hundred full-page captures cost it minutes of its hour) unless STORE_SCREENSHOTS=1.
 */
const TAKE_SCREENSHOTS = !process.env['CI'] || process.env['STORE_SCREENSHOTS'] === '1';

/** Saves a full-page screenshot as test-artifacts/console/<name>.png (see TAKE_SCREENSHOTS). */
export async function screenshot(page: Page, name: string): Promise<void> {
  if (!TAKE_SCREENSHOTS) return;
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
}

/** The two screens: a desktop and a phone. */
export const DESKTOP = { width: 1440, height: 900 };
export const PHONE = { width: 390, height: 844 };

/** Each flow runs on the desktop in the light theme and on the phone in the dark one. */
export const VIEWPORTS = [
  { name: 'desktop', theme: 'light', viewport: DESKTOP },
  { name: 'phone', theme: 'dark', viewport: PHONE },
] as const;

/** PUTs a text object through the admin API as the fixture's admin; expects 200. */
export async function putText(store: Store, object: { bucket: string; key: string; body: string }): Promise<void> {
  const { bucket, key, body } = object;
  const res = await fetch(
    `${store.server.url}/api/admin/buckets/${bucket}/objects/content?key=${encodeURIComponent(key)}`,
    { method: 'PUT', headers: { authorization: `Bearer ${await store.admin()}`, 'content-type': 'text/plain' }, body },
  );
  expect(res.status, `PUT ${key}`).toBe(200);
}
