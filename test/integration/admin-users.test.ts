// Admin users and roles against the real server: create with a temporary password, the read-only role's 403s,
// demotion applying to the very next request, the last-full-admin and self-deletion rules, password reset ending the
// user's sessions, deletion ending them too, and self-service password change.

import { beforeAll, describe, expect, it } from 'vitest';
import { login, refresh, signIn } from '../helpers/admin-flow.js';
import { adminCall } from '../helpers/admin-session.js';
import { useStore } from '../helpers/store.js';

interface User {
  id: string;
  username: string;
  role: string;
  mustChangePassword: boolean;
}
interface Created {
  user: User;
  temporaryPassword?: string;
}

// Loopback is a trusted proxy: each sign-in comes from its own X-Forwarded-For address (see admin-flow.ts).
const store = useStore({ env: { STORE_TRUSTED_PROXIES: '127.0.0.1' } });
let admin: string;

beforeAll(async () => {
  admin = await store.admin();
});

const call = (token: string | undefined, method: string, path: string) =>
  adminCall(store.server, token, { method, path });
const send = (token: string | undefined, request: { method: string; path: string; body: unknown }) =>
  adminCall(store.server, token, request);

async function createUser(username: string, role: 'full-admin' | 'read-only', password?: string): Promise<Created> {
  const res = await send(admin, {
    method: 'POST',
    path: '/users',
    body: password === undefined ? { username, role } : { username, role, password },
  });
  expect(res.status).toBe(201);
  return res.body as Created;
}

describe('creating users', () => {
  it('lists the bootstrap admin', async () => {
    const res = await call(admin, 'GET', '/users');
    expect(res.status).toBe(200);
    expect((res.body as { items: User[] }).items).toEqual([
      expect.objectContaining({ username: 'admin', role: 'full-admin', mustChangePassword: false }),
    ]);
  });

  it('creates a user with a temporary password shown once; the user must change it', async () => {
    const { user, temporaryPassword } = await createUser('reader', 'read-only');
    expect(user).toMatchObject({ username: 'reader', role: 'read-only', mustChangePassword: true });
    expect(temporaryPassword).toMatch(/^[A-Za-z0-9_-]{24}$/);
    const got = await call(admin, 'GET', `/users/${user.id}`);
    expect(got.body).toEqual(expect.objectContaining({ id: user.id, username: 'reader' }));
    expect(JSON.stringify(got.body)).not.toContain(temporaryPassword);
    const session = await signIn(store.server, { username: 'reader', password: temporaryPassword });
    expect((await call(session.token, 'GET', '/auth/me')).body).toMatchObject({
      username: 'reader',
      role: 'read-only',
      mustChangePassword: true,
    });
  });

  it('takes a chosen password, never echoing it', async () => {
    const created = await createUser('chosen', 'read-only', 'my-first-password-42');
    expect(created.temporaryPassword).toBeUndefined();
    expect(created.user.mustChangePassword).toBe(true);
    await signIn(store.server, { username: 'chosen', password: 'my-first-password-42' });
  });

  it('refuses a taken name (any case) with 409, and bad input with 400 naming the field', async () => {
    expect(
      (await send(admin, { method: 'POST', path: '/users', body: { username: 'READER', role: 'read-only' } })).status,
    ).toBe(409);
    const cases: [unknown, string][] = [
      [{ username: 'bad name', role: 'read-only' }, 'username'],
      [{ username: 'x', role: 'owner' }, 'role'],
      [{ username: 'weakling', role: 'read-only', password: 'short' }, 'password'],
      [{ username: 'weakling', role: 'read-only', password: 'weakling-weakling' }, 'password'],
      [{ role: 'read-only' }, 'username'],
      [{ username: 'typo', role: 'read-only', pasword: 'never-silently-dropped' }, 'pasword'],
    ];
    for (const [body, field] of cases) {
      const res = await send(admin, { method: 'POST', path: '/users', body: body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body).toMatchObject({ error: 'ValidationError', statusCode: 400 });
      expect((res.body as { message: string }).message).toContain(field);
    }
  });

  it('answers 404 for an unknown id on every user route', async () => {
    for (const [method, path, body] of [
      ['GET', '/users/nope', undefined],
      ['PATCH', '/users/nope', { role: 'read-only' }],
      ['POST', '/users/nope/reset-password', {}],
      ['DELETE', '/users/nope', undefined],
    ] as const) {
      const res = await send(admin, { method: method, path: path, body: body });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body).toMatchObject({ error: 'NotFound' });
    }
  });

  it('answers 401 without a token on every user route', async () => {
    for (const [method, path] of [
      ['GET', '/users'],
      ['POST', '/users'],
      ['GET', '/users/x'],
      ['PATCH', '/users/x'],
      ['POST', '/users/x/reset-password'],
      ['DELETE', '/users/x'],
    ]) {
      expect((await call(undefined, method as string, path as string)).status, `${method} ${path}`).toBe(401);
    }
  });
});

describe('roles', () => {
  it('a read-only admin reads users but gets 403 on every change', async () => {
    const { user, temporaryPassword } = await createUser('viewer', 'read-only');
    const viewer = (await signIn(store.server, { username: 'viewer', password: temporaryPassword })).token;
    expect((await call(viewer, 'GET', '/users')).status).toBe(200);
    expect((await call(viewer, 'GET', `/users/${user.id}`)).status).toBe(200);
    for (const [method, path, body] of [
      ['POST', '/users', { username: 'sneaky', role: 'full-admin' }],
      ['PATCH', `/users/${user.id}`, { role: 'full-admin' }],
      ['POST', `/users/${user.id}/reset-password`, {}],
      ['DELETE', `/users/${user.id}`, undefined],
    ] as const) {
      const res = await send(viewer, { method: method, path: path, body: body });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body).toMatchObject({ error: 'Forbidden', statusCode: 403 });
    }
    expect((await call(admin, 'GET', `/users/${user.id}`)).body).toMatchObject({ role: 'read-only' });
  });

  it('a demotion applies to the next request of an already signed-in admin, and a promotion too', async () => {
    const { user, temporaryPassword } = await createUser('ops', 'full-admin');
    const ops = (await signIn(store.server, { username: 'ops', password: temporaryPassword })).token;
    const probe = () =>
      send(ops, { method: 'POST', path: '/users', body: { username: 'probe', role: 'read-only', password: 'short' } });
    expect((await probe()).status).toBe(400); // past the gate: only the body is wrong
    expect(
      (await send(admin, { method: 'PATCH', path: `/users/${user.id}`, body: { role: 'read-only' } })).body,
    ).toMatchObject({ role: 'read-only' });
    expect((await probe()).status).toBe(403);
    expect(
      (await send(admin, { method: 'PATCH', path: `/users/${user.id}`, body: { role: 'full-admin' } })).status,
    ).toBe(200);
    expect((await probe()).status).toBe(400);
  });
});

describe('the last full admin and self-deletion', () => {
  it('nobody deletes themselves; the last full admin is neither demoted nor deleted; deletion ends sessions', async () => {
    const { user: boss, temporaryPassword } = await createUser('boss', 'full-admin');
    const bossSession = await signIn(store.server, { username: 'boss', password: temporaryPassword });
    const adminId = ((await call(admin, 'GET', '/auth/me')).body as User).id;

    expect((await call(admin, 'DELETE', `/users/${adminId}`)).status).toBe(409);
    // Demote every other full admin so that `boss` is the last one.
    const all = ((await call(admin, 'GET', '/users')).body as { items: User[] }).items;
    for (const u of all)
      if (u.role === 'full-admin' && u.id !== boss.id && u.id !== adminId)
        await send(admin, { method: 'PATCH', path: `/users/${u.id}`, body: { role: 'read-only' } });
    expect(
      (await send(bossSession.token, { method: 'PATCH', path: `/users/${adminId}`, body: { role: 'read-only' } }))
        .status,
    ).toBe(200);

    const demoteLast = await send(bossSession.token, {
      method: 'PATCH',
      path: `/users/${boss.id}`,
      body: { role: 'read-only' },
    });
    expect(demoteLast.status).toBe(409);
    expect(demoteLast.body).toMatchObject({ error: 'Conflict', statusCode: 409 });
    expect((await call(bossSession.token, 'DELETE', `/users/${boss.id}`)).status).toBe(409);
    // admin is read-only now: the gate refuses before any rule is looked at.
    expect((await call(admin, 'DELETE', `/users/${boss.id}`)).status).toBe(403);

    expect(
      (await send(bossSession.token, { method: 'PATCH', path: `/users/${adminId}`, body: { role: 'full-admin' } }))
        .status,
    ).toBe(200);
    expect((await call(admin, 'DELETE', `/users/${boss.id}`)).status).toBe(204);
    expect((await call(admin, 'GET', `/users/${boss.id}`)).status).toBe(404);
    // The deleted user's access token and refresh cookie are dead.
    expect((await call(bossSession.token, 'GET', '/auth/me')).status).toBe(401);
    expect((await refresh(store.server, bossSession.cookie)).status).toBe(401);
  });
});

describe('passwords', () => {
  it('reset gives a new temporary password and ends every session of the user', async () => {
    const { user, temporaryPassword } = await createUser('forgetful', 'read-only');
    const session = await signIn(store.server, { username: 'forgetful', password: temporaryPassword });
    const res = await send(admin, { method: 'POST', path: `/users/${user.id}/reset-password`, body: {} });
    expect(res.status).toBe(200);
    const reset = res.body as Created;
    expect(reset.user.mustChangePassword).toBe(true);
    expect(reset.temporaryPassword).toBeDefined();
    expect((await call(session.token, 'GET', '/auth/me')).status).toBe(401);
    expect((await refresh(store.server, session.cookie)).status).toBe(401);
    expect((await login(store.server, { username: 'forgetful', password: temporaryPassword })).status).toBe(401);
    await signIn(store.server, { username: 'forgetful', password: reset.temporaryPassword });
  });

  it('change-password is self-service: checks the current password and the strength rule, clears the flag, ends other sessions', async () => {
    const { temporaryPassword } = await createUser('changer', 'read-only');
    const first = await signIn(store.server, { username: 'changer', password: temporaryPassword });
    const current = await signIn(store.server, { username: 'changer', password: temporaryPassword });
    const change = (body: unknown) =>
      send(current.token, { method: 'POST', path: '/settings/change-password', body: body });

    const wrong = await change({ currentPassword: 'not-it-at-all', newPassword: 'a-much-better-password' });
    expect(wrong.status).toBe(400);
    expect((wrong.body as { message: string }).message).toMatch(/^currentPassword/);
    const weak = await change({ currentPassword: temporaryPassword, newPassword: 'aaaaaaaaaaaaaaaa' });
    expect(weak.status).toBe(400);
    expect((weak.body as { message: string }).message).toMatch(/^newPassword/);
    expect((await change({ currentPassword: temporaryPassword })).status).toBe(400);

    const ok = await change({ currentPassword: temporaryPassword, newPassword: 'a-much-better-password' });
    expect(ok.status).toBe(204);
    expect((await call(current.token, 'GET', '/auth/me')).body).toMatchObject({ mustChangePassword: false });
    // This session lives on; the other one is over.
    expect((await refresh(store.server, current.cookie)).status).toBe(200);
    expect((await call(first.token, 'GET', '/auth/me')).status).toBe(401);
    expect((await refresh(store.server, first.cookie)).status).toBe(401);
    expect((await login(store.server, { username: 'changer', password: temporaryPassword })).status).toBe(401);
    await signIn(store.server, { username: 'changer', password: 'a-much-better-password' });
    expect(
      (
        await send(undefined, {
          method: 'POST',
          path: '/settings/change-password',
          body: { currentPassword: 'x', newPassword: 'y' },
        })
      ).status,
    ).toBe(401);
  });
});
