// Refresh-token families over a real database: rotation, reuse detection revoking the family, expiry, revocation.

import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isAppError } from '../../core/errors.js';
import { MetadataStore } from '../../storage/db/metadata-store.js';
import type { AuditRecord } from '../audit/audit-events.js';
import { RefreshSessionService } from './refresh-session-service.js';

let dir: string;
let meta: MetadataStore;
let clock: { ms: number };
let audited: AuditRecord[];
let sessions: RefreshSessionService;

beforeEach(() => {
  dir = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'store-sessions-'));
  meta = MetadataStore.open(join(dir, 'meta.db'));
  clock = { ms: Date.parse('2030-01-01T00:00:00Z') };
  audited = [];
  sessions = new RefreshSessionService({
    meta,
    audit: { record: (e) => audited.push(e) },
    now: () => clock.ms,
    ttlSeconds: 3600,
  });
  for (const [id, username] of [
    ['u1', 'alice'],
    ['u2', 'bob'],
  ]) {
    meta.adminUsers.insert({
      id: id as string,
      username: username as string,
      passwordHash: 'x',
      role: 'full-admin',
      mustChangePassword: false,
      createdAt: 0,
      updatedAt: 0,
    });
  }
});
afterEach(async () => {
  await meta.close();
  rmSync(dir, { recursive: true, force: true });
});

function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    if (isAppError(err)) return err.code;
    throw err;
  }
  throw new Error('expected a refusal');
}

describe('RefreshSessionService', () => {
  it('stores only a digest of the token', () => {
    const issued = sessions.start('u1');
    const stored = meta.db.prepare('SELECT token_hash FROM refresh_tokens').pluck().all() as string[];
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatch(/^[0-9a-f]{64}$/);
    expect(stored[0]).not.toContain(issued.token);
  });

  it('rotates a token into a new one of the same family and refuses the old one as reuse', () => {
    const first = sessions.start('u1');
    const second = sessions.rotate(first.token);
    expect(second).toMatchObject({ familyId: first.familyId, userId: 'u1', maxAgeSeconds: 3600 });
    expect(second.token).not.toBe(first.token);
    const third = sessions.rotate(second.token);
    expect(sessions.isLive(first.familyId, 'u1')).toBe(true);

    expect(refusal(() => sessions.rotate(first.token))).toBe('Unauthorized');
    expect(audited).toEqual([
      { event: 'auth.refresh_reused', subject: 'alice', details: { familyId: first.familyId } },
    ]);
    // The whole family is revoked: the newest token too, and the session's access tokens.
    expect(refusal(() => sessions.rotate(third.token))).toBe('Unauthorized');
    expect(sessions.isLive(first.familyId, 'u1')).toBe(false);
    // Presenting the reused token again is just revoked: audited once.
    expect(refusal(() => sessions.rotate(first.token))).toBe('Unauthorized');
    expect(audited).toHaveLength(1);
  });

  it('leaves other families alone when one is revoked for reuse', () => {
    const a = sessions.start('u1');
    const b = sessions.start('u1');
    sessions.rotate(a.token);
    refusal(() => sessions.rotate(a.token));
    expect(sessions.isLive(b.familyId, 'u1')).toBe(true);
    expect(sessions.rotate(b.token).familyId).toBe(b.familyId);
  });

  it('refuses an expired token, and the session ends with it', () => {
    const issued = sessions.start('u1');
    clock.ms += 3600_000 - 1;
    expect(sessions.isLive(issued.familyId, 'u1')).toBe(true);
    const next = sessions.rotate(issued.token);
    clock.ms += 3600_000;
    expect(refusal(() => sessions.rotate(next.token))).toBe('Unauthorized');
    expect(sessions.isLive(issued.familyId, 'u1')).toBe(false);
  });

  it('refuses unknown, malformed and missing tokens without auditing', () => {
    expect(refusal(() => sessions.rotate(undefined))).toBe('Unauthorized');
    expect(refusal(() => sessions.rotate('short'))).toBe('Unauthorized');
    expect(refusal(() => sessions.rotate('A'.repeat(43)))).toBe('Unauthorized');
    expect(audited).toEqual([]);
  });

  it('revokes one family, every family of a user, or all but one', () => {
    const a = sessions.start('u1');
    const b = sessions.start('u1');
    const c = sessions.start('u1');
    const other = sessions.start('u2');
    expect(sessions.revokeFamily(a.familyId)).toBe(true);
    expect(sessions.revokeFamily(a.familyId)).toBe(false);
    expect(refusal(() => sessions.rotate(a.token))).toBe('Unauthorized');
    meta.transaction(() => sessions.revokeUser('u1', c.familyId));
    expect(sessions.isLive(b.familyId, 'u1')).toBe(false);
    expect(sessions.isLive(c.familyId, 'u1')).toBe(true);
    meta.transaction(() => sessions.revokeUser('u1'));
    expect(sessions.isLive(c.familyId, 'u1')).toBe(false);
    expect(sessions.isLive(other.familyId, 'u2')).toBe(true);
  });

  it("does not count a family as another user's session", () => {
    const a = sessions.start('u1');
    expect(sessions.isLive(a.familyId, 'u2')).toBe(false);
  });

  it("ends a deleted user's sessions", () => {
    const a = sessions.start('u1');
    meta.adminUsers.delete('u1');
    expect(refusal(() => sessions.rotate(a.token))).toBe('Unauthorized');
    expect(sessions.familyOf(a.token)).toBeUndefined();
  });

  it('drops expired rows when a session starts', () => {
    sessions.start('u1');
    clock.ms += 3600_000;
    sessions.start('u2');
    expect(meta.db.prepare('SELECT count(*) FROM refresh_tokens').pluck().get()).toBe(1);
  });
});
