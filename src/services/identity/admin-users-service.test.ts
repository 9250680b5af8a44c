// Admin users over a real database: the last-admin and self-deletion rules, temporary passwords, password change
// and the sessions each action ends. Hashes use cheap argon2 costs (the rules, not the cost, are under test).

import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import argon2 from 'argon2';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isAppError } from '../../core/errors.js';
import { MetadataStore } from '../../storage/db/metadata-store.js';
import { AdminUsersService } from './admin-users-service.js';
import { RefreshSessionService } from './refresh-session-service.js';

const CHEAP = { memoryCost: 1024, timeCost: 1, parallelism: 1 };
let dir: string;
let meta: MetadataStore;
let sessions: RefreshSessionService;
let users: AdminUsersService;
let rootId: string;

beforeEach(async () => {
  dir = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'store-users-'));
  meta = MetadataStore.open(join(dir, 'meta.db'));
  sessions = new RefreshSessionService({ meta, audit: { record: () => undefined } });
  users = new AdminUsersService({ meta, sessions, hashCost: CHEAP });
  rootId = (await users.create({ username: 'root', role: 'full-admin', password: 'root-password-1' })).user.id;
});
afterEach(async () => {
  await meta.close();
  rmSync(dir, { recursive: true, force: true });
});

async function code(fn: () => unknown): Promise<string> {
  try {
    await fn();
  } catch (err) {
    if (isAppError(err)) return err.code;
    throw err;
  }
  return 'none';
}

describe('AdminUsersService: create', () => {
  it('generates a temporary password that is returned once and must be changed', async () => {
    const { user, temporaryPassword } = await users.create({ username: 'bob', role: 'read-only' });
    expect(user).toMatchObject({ username: 'bob', role: 'read-only', mustChangePassword: true });
    expect(temporaryPassword).toMatch(/^[A-Za-z0-9_-]{24}$/);
    const stored = meta.adminUsers.findById(user.id);
    expect(stored?.passwordHash).toMatch(/^\$argon2id\$/);
    expect(await argon2.verify(stored?.passwordHash ?? '', temporaryPassword ?? '')).toBe(true);
    expect(JSON.stringify(users.list())).not.toContain('argon2');
  });

  it('takes a chosen password without echoing it, still temporary', async () => {
    const created = await users.create({ username: 'carol', role: 'full-admin', password: 'carols-first-pass' });
    expect(created.temporaryPassword).toBeUndefined();
    expect(created.user.mustChangePassword).toBe(true);
  });

  it('refuses a weak password and a taken name, ignoring case', async () => {
    expect(await code(() => users.create({ username: 'dave', role: 'read-only', password: 'short' }))).toBe(
      'ValidationError',
    );
    expect(await code(() => users.create({ username: 'ROOT', role: 'read-only' }))).toBe('Conflict');
    expect(users.list().map((u) => u.username)).toEqual(['root']);
  });
});

describe('AdminUsersService: roles and deletion', () => {
  it('refuses to demote or delete the last full admin, and allows it once another exists', async () => {
    expect(await code(() => users.setRole(rootId, 'read-only'))).toBe('Conflict');
    const other = (await users.create({ username: 'other', role: 'full-admin' })).user;
    expect(users.setRole(rootId, 'read-only')).toMatchObject({
      user: { role: 'read-only' },
      previousRole: 'full-admin',
    });
    // `other` is now the last full admin.
    expect(await code(() => users.setRole(other.id, 'read-only'))).toBe('Conflict');
    expect(await code(() => users.delete(rootId, other.id))).toBe('Conflict');
    expect(users.setRole(rootId, 'full-admin').user.role).toBe('full-admin');
    expect(users.delete(rootId, other.id).username).toBe('other');
    expect(users.list().map((u) => u.username)).toEqual(['root']);
  });

  it('refuses to delete your own account', async () => {
    await users.create({ username: 'second', role: 'full-admin' });
    expect(await code(() => users.delete(rootId, rootId))).toBe('Conflict');
  });

  it('answers NotFound for an unknown id everywhere', async () => {
    expect(await code(() => users.get('nope'))).toBe('NotFound');
    expect(await code(() => users.setRole('nope', 'read-only'))).toBe('NotFound');
    expect(await code(() => users.resetPassword('nope'))).toBe('NotFound');
    expect(await code(() => users.delete(rootId, 'nope'))).toBe('NotFound');
  });

  it("a deleted user's sessions end", async () => {
    const bob = (await users.create({ username: 'bob', role: 'read-only' })).user;
    const session = sessions.start(bob.id);
    users.delete(rootId, bob.id);
    expect(sessions.isLive(session.familyId, bob.id)).toBe(false);
  });
});

describe('AdminUsersService: passwords', () => {
  it('reset gives a new temporary password and ends every session of the user', async () => {
    const bob = (await users.create({ username: 'bob', role: 'read-only' })).user;
    meta.adminUsers.setPassword(
      bob.id,
      { passwordHash: meta.adminUsers.findById(bob.id)?.passwordHash ?? '', mustChangePassword: false },
      0,
    );
    const a = sessions.start(bob.id);
    const mine = sessions.start(rootId);
    const reset = await users.resetPassword(bob.id);
    expect(reset.user.mustChangePassword).toBe(true);
    expect(reset.temporaryPassword).toBeDefined();
    expect(sessions.isLive(a.familyId, bob.id)).toBe(false);
    expect(sessions.isLive(mine.familyId, rootId)).toBe(true);
  });

  it('change checks the current password, the strength rule and sameness, then clears mustChangePassword', async () => {
    const keep = sessions.start(rootId);
    const other = sessions.start(rootId);
    const change = (currentPassword: string, newPassword: string) =>
      users.changePassword(rootId, { currentPassword, newPassword, keepSessionId: keep.familyId });
    expect(await code(() => change('wrong-password-1', 'a-brand-new-passphrase'))).toBe('ValidationError');
    expect(await code(() => change('root-password-1', 'tiny'))).toBe('ValidationError');
    expect(await code(() => change('root-password-1', 'root-password-1'))).toBe('ValidationError');
    expect(await code(() => change('root-password-1', 'xx-root-is-my-name'))).toBe('none'); // 'root' is short: allowed
    expect(users.get(rootId).mustChangePassword).toBe(false);
    expect(sessions.isLive(keep.familyId, rootId)).toBe(true);
    expect(sessions.isLive(other.familyId, rootId)).toBe(false);
    const stored = meta.adminUsers.findById(rootId)?.passwordHash ?? '';
    expect(await argon2.verify(stored, 'xx-root-is-my-name')).toBe(true);
  });

  it('names the field that failed', async () => {
    try {
      await users.changePassword(rootId, { currentPassword: 'root-password-1', newPassword: 'short' });
      expect.unreachable();
    } catch (err) {
      expect((err as Error).message).toMatch(/^newPassword:/);
    }
    try {
      await users.changePassword(rootId, { currentPassword: 'nope', newPassword: 'long-enough-pass-1' });
      expect.unreachable();
    } catch (err) {
      expect((err as Error).message).toMatch(/^currentPassword:/);
    }
  });
});
