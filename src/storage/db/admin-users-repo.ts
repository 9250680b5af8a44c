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
  private readonly listStmt;
  private readonly insertStmt;

  constructor(private readonly db: Db) {
    this.byIdStmt = db.prepare<[string], RawUser>('SELECT * FROM admin_users WHERE id = ?');
    this.byNameStmt = db.prepare<[string], RawUser>('SELECT * FROM admin_users WHERE username = ?');
    this.listStmt = db.prepare<[], RawUser>('SELECT * FROM admin_users ORDER BY username');
    this.insertStmt = db.prepare(
      `INSERT INTO admin_users (id, username, password_hash, role, must_change_password, created_at, updated_at)
       VALUES (@id, @username, @passwordHash, @role, @mustChangePassword, @createdAt, @updatedAt)`,
    );
  }

  findById(id: string): AdminUserRow | undefined {
    const raw = this.byIdStmt.get(id);
    return raw && toRow(raw);
  }

  findByUsername(username: string): AdminUserRow | undefined {
    const raw = this.byNameStmt.get(username);
    return raw && toRow(raw);
  }

  list(): AdminUserRow[] {
    return this.listStmt.all().map(toRow);
  }

  insert(row: AdminUserRow): void {
    this.insertStmt.run({ ...row, mustChangePassword: row.mustChangePassword ? 1 : 0 });
  }
}
