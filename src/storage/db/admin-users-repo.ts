// Admin user rows (table admin_users).

import type { AdminRole } from '../../core/admin-identity.js';
import type { Db } from './database.js';

export interface AdminUserRow {
  id: string;
  username: string;
  passwordHash: string;
  role: AdminRole;
  mustChangePassword: boolean;
  createdAt: number;
  updatedAt: number;
}

interface RawUser {
  id: string;
  username: string;
  password_hash: string;
  role: AdminRole;
  must_change_password: number;
  created_at: number;
  updated_at: number;
}

const toRow = (raw: RawUser): AdminUserRow => ({
  id: raw.id,
  username: raw.username,
  passwordHash: raw.password_hash,
  role: raw.role,
  mustChangePassword: raw.must_change_password === 1,
  createdAt: raw.created_at,
  updatedAt: raw.updated_at,
});

export class AdminUsersRepo {
  private readonly byIdStmt;
  private readonly byNameStmt;
  private readonly byNameNoCaseStmt;
  private readonly listStmt;
  private readonly insertStmt;
  private readonly roleStmt;
  private readonly passwordStmt;
  private readonly deleteStmt;
  private readonly countRoleStmt;

  constructor(private readonly db: Db) {
    this.byIdStmt = db.prepare<[string], RawUser>('SELECT * FROM admin_users WHERE id = ?');
    this.byNameStmt = db.prepare<[string], RawUser>('SELECT * FROM admin_users WHERE username = ?');
    this.byNameNoCaseStmt = db.prepare<[string], RawUser>(
      'SELECT * FROM admin_users WHERE username = ? COLLATE NOCASE LIMIT 1',
    );
    this.listStmt = db.prepare<[], RawUser>('SELECT * FROM admin_users ORDER BY username');
    this.insertStmt = db.prepare(
      `INSERT INTO admin_users (id, username, password_hash, role, must_change_password, created_at, updated_at)
       VALUES (@id, @username, @passwordHash, @role, @mustChangePassword, @createdAt, @updatedAt)`,
    );
    this.roleStmt = db.prepare<[AdminRole, number, string]>(
      'UPDATE admin_users SET role = ?, updated_at = ? WHERE id = ?',
    );
    this.passwordStmt = db.prepare<[string, number, number, string]>(
      'UPDATE admin_users SET password_hash = ?, must_change_password = ?, updated_at = ? WHERE id = ?',
    );
    this.deleteStmt = db.prepare<[string]>('DELETE FROM admin_users WHERE id = ?');
    this.countRoleStmt = db.prepare<[AdminRole], number>('SELECT count(*) FROM admin_users WHERE role = ?').pluck();
  }

  findById(id: string): AdminUserRow | undefined {
    const raw = this.byIdStmt.get(id);
    return raw && toRow(raw);
  }

  findByUsername(username: string): AdminUserRow | undefined {
    const raw = this.byNameStmt.get(username);
    return raw && toRow(raw);
  }

  /** A user whose name equals `username` ignoring ASCII case (new names must not differ from one only by case). */
  findByUsernameIgnoringCase(username: string): AdminUserRow | undefined {
    const raw = this.byNameNoCaseStmt.get(username);
    return raw && toRow(raw);
  }

  list(): AdminUserRow[] {
    return this.listStmt.all().map(toRow);
  }

  insert(row: AdminUserRow): void {
    this.insertStmt.run({ ...row, mustChangePassword: row.mustChangePassword ? 1 : 0 });
  }

  /** Returns false when no user has this id. */
  setRole(id: string, role: AdminRole, now: number): boolean {
    return this.roleStmt.run(role, now, id).changes === 1;
  }

  /** Returns false when no user has this id. */
  setPassword(
    id: string,
    { passwordHash, mustChangePassword }: { passwordHash: string; mustChangePassword: boolean },
    now: number,
  ): boolean {
    return this.passwordStmt.run(passwordHash, mustChangePassword ? 1 : 0, now, id).changes === 1;
  }

  /** Deletes the user; their refresh tokens go with them (ON DELETE CASCADE). Returns false when absent. */
  delete(id: string): boolean {
    return this.deleteStmt.run(id).changes === 1;
  }

  countWithRole(role: AdminRole): number {
    return this.countRoleStmt.get(role) as number;
  }
}
