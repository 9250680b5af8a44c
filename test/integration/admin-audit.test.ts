// The audit log against the real server: actions appear after a flush (AUDIT_FLUSH_MS=250 here) with their subject,
// filters and keyset paging, the catalog, validation of the query, and no secret ever reaching the database file.

import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { AUDIT_EVENTS } from '../../src/services/audit/audit-events.js';
import { login, logout, refresh, signIn } from '../helpers/admin-flow.js';
import { adminCall } from '../helpers/admin-session.js';
import { useStore } from '../helpers/store.js';

interface Item {
  id: string;
  time: string;
  event: string;
  subject: string;
  bucket: string | null;
  details: Record<string, unknown>;
}
interface Page {
  items: Item[];
  nextCursor: string | null;
}

const store = useStore({ env: { STORE_TRUSTED_PROXIES: '127.0.0.1', AUDIT_FLUSH_MS: '250' } });
let admin: string;
/** Every secret the tests handed to or received from the server: none may be in the database file. */
const secrets: string[] = [];

beforeAll(async () => {
  const session = await signIn(store.server);
  admin = session.token;
  secrets.push(store.server.credentials.adminPassword, session.token, session.cookie);
});

const list = async (query: string, token = admin): Promise<Page> => {
  const res = await adminCall(store.server, token, { method: 'GET', path: `/audit${query}` });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as Page;
};

/** Polls until `predicate` holds for the newest page (flushes run every 250 ms). */
async function eventually(query: string, predicate: (items: Item[]) => boolean): Promise<Item[]> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const { items } = await list(query);
    if (predicate(items) || Date.now() > deadline) return items;
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('recording', () => {
  it('records sign-ins, failures, logouts, refresh reuse and every user action after a flush', async () => {
    const started = new Date().toISOString();
    const failed = await login(store.server, { username: 'admin', password: 'Wrong-Password-Secret-1' });
    expect(failed.status).toBe(401);
    secrets.push('Wrong-Password-Secret-1');

    const created = await adminCall(store.server, admin, {
      method: 'POST',
      path: '/users',
      body: { username: 'audited', role: 'read-only', password: 'Chosen-Secret-Pass-2' },
    });
    const userId = (created.body as { user: { id: string } }).user.id;
    secrets.push('Chosen-Secret-Pass-2');
    await adminCall(store.server, admin, { method: 'PATCH', path: `/users/${userId}`, body: { role: 'full-admin' } });
    const reset = await adminCall(store.server, admin, {
      method: 'POST',
      path: `/users/${userId}/reset-password`,
      body: {},
    });
    const temporary = (reset.body as { temporaryPassword: string }).temporaryPassword;
    secrets.push(temporary);

    const theirs = await signIn(store.server, { username: 'audited', password: temporary });
    secrets.push(theirs.token, theirs.cookie);
    const changed = await adminCall(store.server, theirs.token, {
      method: 'POST',
      path: '/settings/change-password',
      body: { currentPassword: temporary, newPassword: 'Brand-New-Secret-3' },
    });
    expect(changed.status).toBe(204);
    secrets.push('Brand-New-Secret-3');
    const rotated = await refresh(store.server, theirs.cookie);
    secrets.push(rotated.cookie as string, rotated.accessToken as string);
    expect((await refresh(store.server, theirs.cookie)).status).toBe(401); // reuse
    const again = await signIn(store.server, { username: 'audited', password: 'Brand-New-Secret-3' });
    secrets.push(again.token, again.cookie);
    expect((await logout(store.server, again.token, { cookie: again.cookie })).status).toBe(204);
    expect((await adminCall(store.server, admin, { method: 'DELETE', path: `/users/${userId}` })).status).toBe(204);

    const expected: [string, string][] = [
      ['auth.login_failed', 'admin'],
      ['user.created', 'admin'],
      ['user.role_changed', 'admin'],
      ['user.password_reset', 'admin'],
      ['auth.login', 'audited'],
      ['user.password_changed', 'audited'],
      ['auth.refresh_reused', 'audited'],
      ['auth.logout', 'audited'],
      ['user.deleted', 'admin'],
    ];
    const items = await eventually(`?from=${encodeURIComponent(started)}&limit=200`, (found) =>
      found.some((i) => i.event === 'user.deleted'),
    );
    const seen = items.map((i) => [i.event, i.subject]);
    for (const pair of expected) expect(seen, pair.join(' by ')).toContainEqual(pair);
    // Newest first.
    const times = items.map((i) => Date.parse(i.time));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    const roleChange = items.find((i) => i.event === 'user.role_changed');
    expect(roleChange?.details).toMatchObject({ userId, username: 'audited', from: 'read-only', to: 'full-admin' });
    const failure = items.find((i) => i.event === 'auth.login_failed');
    expect(failure?.details).toEqual({ ip: expect.stringMatching(/^198\.1[89]\./) });
  });

  it('does not record reads', async () => {
    const before = (await list('?limit=200')).items.length;
    for (const path of ['/users', '/auth/me', '/audit/catalog', '/version'])
      await adminCall(store.server, admin, { method: 'GET', path: path });
    await new Promise((r) => setTimeout(r, 600));
    expect((await list('?limit=200')).items.length).toBe(before);
  });

  it('never writes a password, token or cookie into the database file', async () => {
    await new Promise((r) => setTimeout(r, 600)); // a flush after the last action
    const files = ['meta.db', 'meta.db-wal'].map((f) => join(store.server.dataDir, f)).filter((f) => existsSync(f));
    const bytes = Buffer.concat(files.map((f) => readFileSync(f)));
    expect(bytes.includes('auth.login_failed')).toBe(true); // the control: audit rows are in these files
    expect(secrets.length).toBeGreaterThan(10);
    for (const secret of secrets)
      expect(bytes.includes(secret), `a secret of ${secret.length} chars is in the database`).toBe(false);
  });
});

describe('querying', () => {
  it('filters by event and subject, and an unknown value finds nothing', async () => {
    const created = await list('?event=user.created');
    expect(created.items.length).toBeGreaterThan(0);
    expect(created.items.every((i) => i.event === 'user.created')).toBe(true);
    const byAudited = await list('?subject=audited');
    expect(byAudited.items.length).toBeGreaterThan(0);
    expect(byAudited.items.every((i) => i.subject === 'audited')).toBe(true);
    expect((await list('?subject=audited&event=auth.logout')).items).toHaveLength(1);
    expect(await list('?bucket=no-such-bucket')).toEqual({ items: [], nextCursor: null });
    expect((await list('?event=key.created')).items).toEqual([]);
  });

  it('filters by time: from inclusive, to exclusive', async () => {
    const all = (await list('?limit=200')).items;
    const pivot = all[Math.floor(all.length / 2)] as Item;
    const older = (await list(`?to=${encodeURIComponent(pivot.time)}&limit=200`)).items;
    const newer = (await list(`?from=${encodeURIComponent(pivot.time)}&limit=200`)).items;
    expect(older.every((i) => Date.parse(i.time) < Date.parse(pivot.time))).toBe(true);
    expect(newer.every((i) => Date.parse(i.time) >= Date.parse(pivot.time))).toBe(true);
    expect(older.length + newer.length).toBe(all.length);
  });

  it('pages newest first with an opaque cursor, without repeats, to a null cursor', async () => {
    const all = (await list('?limit=200')).items;
    expect(all.length).toBeGreaterThan(5);
    const walked: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Page = await list(`?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(page.items.length).toBeLessThanOrEqual(2);
      walked.push(...page.items.map((i) => i.id));
      cursor = page.nextCursor;
    } while (cursor !== null && walked.length < 500);
    expect(walked).toEqual(all.map((i) => i.id));
  });

  it('refuses a bad limit, cursor or date with 400 naming the field', async () => {
    for (const [query, field] of [
      ['?limit=0', 'limit'],
      ['?limit=201', 'limit'],
      ['?limit=x', 'limit'],
      ['?cursor=bogus', 'cursor'],
      ['?from=yesterday', 'from'],
      ['?to=2030-02-30', 'to'],
    ]) {
      const res = await adminCall(store.server, admin, { method: 'GET', path: `/audit${query}` });
      expect(res.status, query).toBe(400);
      expect(res.body).toMatchObject({ error: 'ValidationError' });
      expect((res.body as { message: string }).message, query).toContain(field);
    }
    expect((await list('?limit=200')).items.length).toBeLessThanOrEqual(200);
  });

  it('serves the catalog of event names', async () => {
    const res = await adminCall(store.server, admin, { method: 'GET', path: '/audit/catalog' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ events: [...AUDIT_EVENTS] });
  });
});
