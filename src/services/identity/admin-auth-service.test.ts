// The bootstrap admin from the environment (applied only when it changed since the last boot) and access tokens
// bound to a live session.

import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import argon2 from 'argon2';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { isAppError } from '../../core/errors.js';
import { MetadataStore } from '../../storage/db/metadata-store.js';
import { AdminAuthService } from './admin-auth-service.js';
import { argon2CostOf } from './password-hashing.js';
import { RefreshSessionService } from './refresh-session-service.js';

const cheap = (password: string): Promise<string> =>
  argon2.hash(password, { type: argon2.argon2id, memoryCost: 1024, timeCost: 1 });
let dir: string;
let meta: MetadataStore;
let sessions: RefreshSessionService;
let auth: AdminAuthService;

beforeEach(() => {
  dir = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'store-auth-'));
  meta = MetadataStore.open(join(dir, 'meta.db'));
  sessions = new RefreshSessionService({ meta, audit: { record: () => undefined } });
  auth = new AdminAuthService({ meta, sessions, jwtSecret: 'k'.repeat(16) + 'another-secret-part-here' });
});
afterEach(async () => {
  await meta.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('ensureBootstrapAdmin', () => {
  it('creates the admin on first boot and leaves it alone while the environment is unchanged', async () => {
    const envHash = await cheap('env-password-1');
    expect(auth.ensureBootstrapAdmin('admin', envHash)).toBe('created');
    const admin = meta.adminUsers.findByUsername('admin');
    expect(admin).toMatchObject({ role: 'full-admin', mustChangePassword: false, passwordHash: envHash });
    // The admin changes their password through the API; a restart with the same env keeps it.
    const changed = await cheap('changed-password-1');
    meta.adminUsers.setPassword(admin?.id ?? '', { passwordHash: changed, mustChangePassword: false }, 1);
    expect(auth.ensureBootstrapAdmin('admin', envHash)).toBe('unchanged');
    expect(meta.adminUsers.findByUsername('admin')?.passwordHash).toBe(changed);
  });

  it('applies a rotated env hash: password set, role restored, sessions ended', async () => {
    auth.ensureBootstrapAdmin('admin', await cheap('env-password-1'));
    const admin = meta.adminUsers.findByUsername('admin');
    const id = admin?.id ?? '';
    meta.adminUsers.insert({
      id: 'other',
      username: 'other',
      passwordHash: 'x',
      role: 'full-admin',
      mustChangePassword: false,
      createdAt: 0,
      updatedAt: 0,
    });
    meta.adminUsers.setRole(id, 'read-only', 1);
    meta.adminUsers.setPassword(id, { passwordHash: await cheap('changed-password-1'), mustChangePassword: true }, 1);
    const session = sessions.start(id);
    const rotated = await cheap('env-password-2');
    expect(auth.ensureBootstrapAdmin('admin', rotated)).toBe('reset');
    expect(meta.adminUsers.findById(id)).toMatchObject({
      passwordHash: rotated,
      role: 'full-admin',
      mustChangePassword: false,
    });
    expect(sessions.isLive(session.familyId, id)).toBe(false);
    expect(auth.ensureBootstrapAdmin('admin', rotated)).toBe('unchanged');
  });

  it('does not bring back a deleted bootstrap admin until the environment changes', async () => {
    const envHash = await cheap('env-password-1');
    auth.ensureBootstrapAdmin('admin', envHash);
    meta.adminUsers.delete(meta.adminUsers.findByUsername('admin')?.id ?? '');
    expect(auth.ensureBootstrapAdmin('admin', envHash)).toBe('unchanged');
    expect(meta.adminUsers.findByUsername('admin')).toBeUndefined();
    expect(auth.ensureBootstrapAdmin('admin', await cheap('env-password-2'))).toBe('created');
  });

  it('treats a new ADMIN_USERNAME as a change (a second bootstrap admin)', async () => {
    const envHash = await cheap('env-password-1');
    auth.ensureBootstrapAdmin('admin', envHash);
    expect(auth.ensureBootstrapAdmin('root', envHash)).toBe('created');
    expect(meta.adminUsers.list().map((u) => u.username)).toEqual(['admin', 'root']);
  });

  it('adopts an existing admin when nothing was recorded (a data directory from before the record)', async () => {
    const old = await cheap('old-password-1');
    meta.adminUsers.insert({
      id: 'a',
      username: 'admin',
      passwordHash: old,
      role: 'full-admin',
      mustChangePassword: false,
      createdAt: 0,
      updatedAt: 0,
    });
    expect(auth.ensureBootstrapAdmin('admin', await cheap('env-password-1'))).toBe('unchanged');
    expect(meta.adminUsers.findById('a')?.passwordHash).toBe(old);
  });
});

describe('authenticate', () => {
  async function signedIn(): Promise<{ token: string; familyId: string; id: string }> {
    auth.ensureBootstrapAdmin('admin', await cheap('env-password-1'));
    const user = meta.adminUsers.findByUsername('admin');
    if (!user) throw new Error('no admin');
    const session = sessions.start(user.id);
    const { accessToken } = await auth.issueAccessToken(user, session.familyId);
    return { token: accessToken, familyId: session.familyId, id: user.id };
  }

  async function refusal(token: string): Promise<string> {
    try {
      await auth.authenticate(token);
      return 'accepted';
    } catch (err) {
      return isAppError(err) ? err.code : 'other';
    }
  }

  it('accepts a token of a live session and reads the role from the database', async () => {
    const { token, familyId, id } = await signedIn();
    expect(await auth.authenticate(token)).toEqual({ id, username: 'admin', role: 'full-admin' });
    expect(auth.sessionIdOf(token)).toBe(familyId);
  });

  it('refuses the access token once its session is revoked', async () => {
    const { token, familyId } = await signedIn();
    sessions.revokeFamily(familyId);
    expect(await refusal(token)).toBe('Unauthorized');
  });

  it('refuses the access token of a deleted user', async () => {
    const { token, id } = await signedIn();
    meta.adminUsers.delete(id);
    expect(await refusal(token)).toBe('Unauthorized');
  });
});

describe('verifyPassword', () => {
  // Timing itself is too noisy to assert on a shared machine; what makes the cost equal is checked instead: an
  // unknown user is verified, once, against a hash of the same argon2 cost as a real user's.
  it('refuses an unknown user and a wrong password alike, each after one verification at the same cost', async () => {
    const cost = { memoryCost: 2048, timeCost: 2, parallelism: 1 };
    const timed = new AdminAuthService({
      meta,
      sessions,
      jwtSecret: 'k'.repeat(16) + 'another-secret-part-here',
      hashCost: cost,
    });
    timed.ensureBootstrapAdmin('admin', await argon2.hash('env-password-1', { type: argon2.argon2id, ...cost }));
    const verify = vi.spyOn(argon2, 'verify');
    try {
      const outcome = async (username: string): Promise<string> => {
        try {
          await timed.verifyPassword(username, 'wrong-password');
          return 'accepted';
        } catch (err) {
          return isAppError(err) ? `${err.code}: ${err.message}` : 'other';
        }
      };
      expect(await outcome('admin')).toBe('Unauthorized: Invalid username or password');
      expect(await outcome('nobody')).toBe('Unauthorized: Invalid username or password');
      expect(verify).toHaveBeenCalledTimes(2);
      const [known, unknown] = verify.mock.calls.map(([hash]) => hash);
      expect(unknown).not.toBe(known);
      expect(argon2CostOf(unknown as string)).toEqual(cost);
      expect(argon2CostOf(known as string)).toEqual(cost);
    } finally {
      verify.mockRestore();
    }
    expect(await timed.verifyPassword('admin', 'env-password-1')).toMatchObject({ username: 'admin' });
  });
});
