// A read-only admin in the console: the forced password change at first sign-in, then a walk through every page
// (every bucket settings tab, the object browser and each tab of an object, keys, users, audit, backups, ...)
// that finds no enabled control that would change anything, sends no state-changing request, and meets no 403.
// The same walk as a full admin finds write controls where there are some, so the check is not vacuous.

import type { Page, Request } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { useStore } from '../../helpers/store.js';
import { consoleUrl, newContext, settle, signIn, useBrowser, waitForShell, watchProblems } from './console-browser.js';
import { CONSOLE_PAGES } from './console-pages.js';
import { seedConsoleData, type Seeded } from './console-seed.js';

const store = useStore({ env: { STORE_TRUSTED_PROXIES: '127.0.0.1', AUDIT_FLUSH_MS: '250' } });
let seeded: Seeded;
beforeAll(async () => {
  seeded = await seedConsoleData(store.server);
});
const chromium = useBrowser();

/** Requests a read-only admin may send that are not GETs: their own session and password, and simulations. */
const SELF_SERVICE =
  /\/api\/admin\/(auth\/(login|refresh|logout)|settings\/change-password|keys\/[A-Z0-9]+\/simulate)$/;

/** Buttons a read-only admin may use: navigation, views, questions and their own account. */
const WRITE_WORDS =
  /\b(create|delete|remove|upload|save|restore|rotate|revoke|retry|reconcile|run now|scrub|reset|abort|add|enable|suspend|turn|set sse|new folder|insert)\b/i;

/** What a read-only admin may do: their own password, and share links (docs/console.md "Share links"). */
const READ_ONLY_MAY = new Set(['Change password', 'Create share link']);

interface Control {
  tag: string;
  name: string;
  write: boolean;
}

/**
 * Every enabled control on the page (dialogs included), with its accessible-ish name and whether it is marked write.
 */
function enabledControls(page: Page): Promise<Control[]> {
  return page.evaluate(() => {
    const out: Control[] = [];
    for (const el of document.querySelectorAll<HTMLElement>(
      'button, input, select, textarea, fieldset, [data-write]',
    )) {
      if (!el.matches(':enabled') || el.closest('[hidden]')) continue;
      if (el instanceof HTMLInputElement && el.type === 'hidden') continue;
      const name = (el.getAttribute('aria-label') ?? el.textContent ?? el.getAttribute('name') ?? '')
        .trim()
        .replace(/\s+/g, ' ');
      const write = el.closest('[data-write]') !== null;
      out.push({ tag: el.tagName.toLowerCase(), name, write });
    }
    return out;
  });
}

async function visit(page: Page, p: (typeof CONSOLE_PAGES)[number]): Promise<void> {
  await page.goto(consoleUrl(store.server, p.route(seeded)));
  await waitForShell(page);
  await settle(page);
  if (p.open) {
    await p.open(page);
    await settle(page);
  }
}

describe('a read-only admin', () => {
  let page: Page;
  const writes: string[] = [];
  const refused: string[] = [];

  beforeAll(async () => {
    const context = await newContext(chromium.browser);
    page = await context.newPage();
    page.on('request', (req: Request) => {
      const url = new URL(req.url());
      if (req.method() !== 'GET' && req.method() !== 'HEAD' && !SELF_SERVICE.test(url.pathname))
        writes.push(`${req.method()} ${url.pathname}`);
    });
    page.on('response', (res) => {
      if (res.status() === 403) refused.push(`${res.request().method()} ${new URL(res.url()).pathname}`);
    });
  });

  it('must choose a new password at first sign-in', async () => {
    // An admin reset the reader's password: a temporary one, which must be changed before anything else.
    const reset = await fetch(`${store.server.url}/api/admin/users`, {
      headers: { authorization: `Bearer ${seeded.token}` },
    });
    const reader = ((await reset.json()) as { items: Array<{ id: string; username: string }> }).items.find(
      (u) => u.username === 'reader',
    );
    const res = await fetch(`${store.server.url}/api/admin/users/${reader?.id}/reset-password`, {
      method: 'POST',
      headers: { authorization: `Bearer ${seeded.token}`, 'content-type': 'application/json' },
      body: '{}',
    });
    const temporary = ((await res.json()) as { temporaryPassword: string }).temporaryPassword;
    await page.goto(consoleUrl(store.server));
    await page.getByLabel('Username').fill('reader');
    await page.getByLabel('Password').fill(temporary);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Choose a new password' }).waitFor();
    await page.getByLabel('Current password').fill(temporary);
    await page.getByLabel('New password', { exact: true }).fill(seeded.reader.password);
    await page.getByLabel('Repeat the new password').fill(seeded.reader.password);
    await page.getByRole('button', { name: 'Change password' }).click();
    await waitForShell(page);
    await page.getByText('You are signed in as a read-only admin').waitFor();
  });

  it('sees every page and no enabled control that would change anything', async () => {
    const problems = watchProblems(page);
    const found: string[] = [];
    for (const p of CONSOLE_PAGES.filter((x) => !x.adminOnly)) {
      await visit(page, p);
      for (const c of await enabledControls(page)) {
        if (c.write) found.push(`${p.name}: ${c.tag} "${c.name}" is marked write and enabled`);
        else if (c.tag === 'button' && WRITE_WORDS.test(c.name) && !READ_ONLY_MAY.has(c.name))
          found.push(`${p.name}: button "${c.name}"`);
      }
    }
    expect(found).toEqual([]);
    expect(writes).toEqual([]);
    expect(refused).toEqual([]);
    expect(problems).toEqual([]);
  });
});

describe('a full admin, on the same pages', () => {
  it('has write controls wherever the read-only walk found none', async () => {
    const context = await newContext(chromium.browser);
    const page = await context.newPage();
    await signIn(page, store.server);
    const missing: string[] = [];
    for (const p of CONSOLE_PAGES.filter((x) => x.hasWrites)) {
      await visit(page, p);
      const controls = await enabledControls(page);
      if (!controls.some((c) => c.write)) missing.push(p.name);
    }
    expect(missing).toEqual([]);
    await context.close();
  });
});
