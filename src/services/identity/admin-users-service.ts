// Admin users and roles (SPEC "Authentication" > Roles): list, create with a temporary password, change role,
// reset password, delete, and self-service password change. The invariants: at least one full admin always
// exists, and nobody deletes their own account. Every hash is argon2id at the instance's cost (password-hashing.ts);
// hashing happens before the transaction.

import { randomBytes } from 'node:crypto';
import argon2 from 'argon2';
import type { AdminRole } from '../../core/admin-identity.js';
import { AppError } from '../../core/errors.js';
import { passwordProblem } from '../../core/password-policy.js';
import { uuidv7 } from '../../lib/ids.js';
import type { AdminUserRow } from '../../storage/db/admin-users-repo.js';
import type { MetadataStore } from '../../storage/db/metadata-store.js';
import { hashPassword, type Argon2Cost } from './password-hashing.js';
import type { RefreshSessionService } from './refresh-session-service.js';

/** An admin user as the API shows it (never the hash). */
export interface AdminUserView {
  id: string;
  username: string;
  role: AdminRole;
  mustChangePassword: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface WithTemporaryPassword {
  user: AdminUserView;
  /** Present only when the server generated the password: shown once, never stored in plaintext. */
  temporaryPassword?: string;
}

export interface AdminUsersOptions {
  meta: MetadataStore;
  sessions: RefreshSessionService;
  now?: () => number;
  /** The argon2id cost of new hashes: that of ADMIN_PASSWORD_HASH (the library's defaults when undefined). */
  hashCost?: Argon2Cost;
}

const view = (row: AdminUserRow): AdminUserView => ({
  id: row.id,
  username: row.username,
  role: row.role,
  mustChangePassword: row.mustChangePassword,
  createdAt: new Date(row.createdAt).toISOString(),
  updatedAt: new Date(row.updatedAt).toISOString(),
});

/** 24 URL-safe characters (144 random bits), re-drawn in the vanishing case that it fails the strength rule. */
function generatePassword(username: string): string {
  for (;;) {
    const candidate = randomBytes(18).toString('base64url');
    if (passwordProblem(candidate, username) === undefined) return candidate;
  }
}

function checkStrength(field: string, password: string, username: string): void {
  const problem = passwordProblem(password, username);
  if (problem) throw new AppError('ValidationError', { message: `${field}: ${problem}` });
}

export class AdminUsersService {
  private readonly now: () => number;

  constructor(private readonly opts: AdminUsersOptions) {
    this.now = opts.now ?? Date.now;
  }

  list(): AdminUserView[] {
    return this.opts.meta.adminUsers.list().map(view);
  }

  /** NotFound (404) when no user has the id. */
  get(id: string): AdminUserView {
    return view(this.row(id));
  }

  /**
   * Creates a user who must change the password at first sign-in. Without `password`, one is generated and returned
   * once. ValidationError (400) for a weak password; Conflict (409) when the name is taken (ignoring case).
   */
  async create(input: { username: string; role: AdminRole; password?: string }): Promise<WithTemporaryPassword> {
    const { meta } = this.opts;
    const generated = input.password === undefined ? generatePassword(input.username) : undefined;
    const password = input.password ?? (generated as string);
    checkStrength('password', password, input.username);
    if (meta.adminUsers.findByUsernameIgnoringCase(input.username)) throw this.taken(input.username);
    const passwordHash = await this.hash(password);
    const row = meta.transaction(() => {
      if (meta.adminUsers.findByUsernameIgnoringCase(input.username)) throw this.taken(input.username);
      const now = this.now();
      const created: AdminUserRow = {
        id: uuidv7(now),
        username: input.username,
        passwordHash,
        role: input.role,
        mustChangePassword: true,
        createdAt: now,
        updatedAt: now,
      };
      meta.adminUsers.insert(created);
      return created;
    });
    return generated === undefined ? { user: view(row) } : { user: view(row), temporaryPassword: generated };
  }

  /**
   * Changes a user's role; the change applies to that user's next request. NotFound (404); Conflict (409) when it
   * would demote the last full admin. Returns the user and the previous role.
   */
  setRole(id: string, role: AdminRole): { user: AdminUserView; previousRole: AdminRole } {
    const { meta } = this.opts;
    return meta.transaction(() => {
      const row = this.row(id);
      if (row.role === 'full-admin' && role !== 'full-admin' && meta.adminUsers.countWithRole('full-admin') <= 1) {
        throw new AppError('Conflict', { message: 'The last full admin cannot be demoted' });
      }
      meta.adminUsers.setRole(id, role, this.now());
      return { user: view(this.row(id)), previousRole: row.role };
    });
  }

  /**
   * Gives the user a new temporary password (generated and returned once unless `password` is given), sets
   * mustChangePassword and ends every session of theirs. NotFound (404); ValidationError (400) for a weak password.
   */
  async resetPassword(id: string, password?: string): Promise<WithTemporaryPassword> {
    const { meta } = this.opts;
    const before = this.row(id);
    const generated = password === undefined ? generatePassword(before.username) : undefined;
    const chosen = password ?? (generated as string);
    checkStrength('password', chosen, before.username);
    const passwordHash = await this.hash(chosen);
    const row = meta.transaction(() => {
      if (!meta.adminUsers.setPassword(id, { passwordHash: passwordHash, mustChangePassword: true }, this.now()))
        throw this.missing(id);
      this.opts.sessions.revokeUser(id);
      return this.row(id);
    });
    return generated === undefined ? { user: view(row) } : { user: view(row), temporaryPassword: generated };
  }

  /**
   * Deletes a user (their sessions go with them). NotFound (404); Conflict (409) for the caller's own account and
   * for the last full admin. Returns the deleted user.
   */
  delete(actorId: string, id: string): AdminUserView {
    const { meta } = this.opts;
    return meta.transaction(() => {
      const row = this.row(id);
      if (row.id === actorId) throw new AppError('Conflict', { message: 'You cannot delete your own account' });
      if (row.role === 'full-admin' && meta.adminUsers.countWithRole('full-admin') <= 1) {
        throw new AppError('Conflict', { message: 'The last full admin cannot be deleted' });
      }
      meta.adminUsers.delete(id);
      return view(row);
    });
  }

  /**
   * The caller changes their own password: `currentPassword` must match (ValidationError naming it otherwise, so a
   * console shows it beside the field rather than signing the user out), `newPassword` must pass the strength rule
   * and differ from the current one. Clears mustChangePassword and ends the caller's other sessions.
   */
  async changePassword(
    userId: string,
    input: { currentPassword: string; newPassword: string; keepSessionId?: string },
  ): Promise<void> {
    const { meta } = this.opts;
    const row = this.row(userId);
    const matches = await argon2.verify(row.passwordHash, input.currentPassword).catch(() => false);
    if (!matches)
      throw new AppError('ValidationError', { message: 'currentPassword: does not match the current password' });
    checkStrength('newPassword', input.newPassword, row.username);
    if (input.newPassword === input.currentPassword) {
      throw new AppError('ValidationError', { message: 'newPassword: must differ from the current password' });
    }
    const passwordHash = await this.hash(input.newPassword);
    meta.transaction(() => {
      // Compare-and-set: a concurrent reset or change since the check above wins, and this one is refused.
      if (this.row(userId).passwordHash !== row.passwordHash)
        throw new AppError('Conflict', { message: 'The password was changed meanwhile' });
      meta.adminUsers.setPassword(userId, { passwordHash: passwordHash, mustChangePassword: false }, this.now());
      this.opts.sessions.revokeUser(userId, input.keepSessionId);
    });
  }

  private hash(password: string): Promise<string> {
    return hashPassword(password, this.opts.hashCost);
  }

  private row(id: string): AdminUserRow {
    const row = this.opts.meta.adminUsers.findById(id);
    if (!row) throw this.missing(id);
    return row;
  }

  private missing(id: string): AppError {
    return new AppError('NotFound', { message: `No admin user with id ${id}`, resource: id });
  }

  private taken(username: string): AppError {
    return new AppError('Conflict', { message: `An admin user named ${username} already exists` });
  }
}
