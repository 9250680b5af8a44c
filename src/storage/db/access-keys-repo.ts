// Access key rows (table access_keys) and the key-encryption check value (table instance). Secrets arrive and leave
// sealed: this repo never sees a plaintext secret.

import type { Db } from './database.js';

export interface AccessKeyRow {
  accessKeyId: string;
  name: string;
  description: string;
  enabled: boolean;
  /** The secret sealed by services (lib/secret-box.ts), bound to accessKeyId. */
  secretSealed: Buffer;
  /** The permissions document as stored JSON text (`{"scope":...}` or `{"policy":...}`); undefined for none. */
  permissions: string | undefined;
  createdAt: number;
  updatedAt: number;
  /** The admin username that created the key. */
  createdBy: string;
  lastUsedAt: number | undefined;
  /** When the key stops authenticating (epoch ms); undefined: never. */
  expiresAt: number | undefined;
}

/** The fields an update may change (each optional); updatedAt always changes. */
export interface AccessKeyChanges {
  name?: string;
  description?: string;
  enabled?: boolean;
  /** null removes the permissions (the key is then denied everything). */
  permissions?: string | null;
  secretSealed?: Buffer;
  /** null removes the expiry. */
  expiresAt?: number | null;
  updatedAt: number;
}

interface RawKey {
  access_key_id: string;
  name: string;
  description: string;
  enabled: number;
  secret_sealed: Buffer;
  permissions: string | null;
  created_at: number;
  updated_at: number;
  created_by: string;
  last_used_at: number | null;
  expires_at: number | null;
}

const toRow = (raw: RawKey): AccessKeyRow => ({
  accessKeyId: raw.access_key_id,
  name: raw.name,
  description: raw.description,
  enabled: raw.enabled === 1,
  secretSealed: raw.secret_sealed,
  permissions: raw.permissions ?? undefined,
  createdAt: raw.created_at,
  updatedAt: raw.updated_at,
  createdBy: raw.created_by,
  lastUsedAt: raw.last_used_at ?? undefined,
  expiresAt: raw.expires_at ?? undefined,
});

const CHECK_NAME = 'key_encryption_check';

export class AccessKeysRepo {
  private readonly findStmt;
  private readonly listStmt;
  private readonly countStmt;
  private readonly insertStmt;
  private readonly deleteStmt;
  private readonly touchStmt;
  private readonly checkStmt;
  private readonly setCheckStmt;

  constructor(private readonly db: Db) {
    this.findStmt = db.prepare<[string], RawKey>('SELECT * FROM access_keys WHERE access_key_id = ?');
    // Share-link keys (share-links-repo.ts) are listed with their links, not as access keys.
    this.listStmt = db.prepare<[], RawKey>(
      `SELECT * FROM access_keys k WHERE NOT EXISTS (SELECT 1 FROM share_links s WHERE s.access_key_id = k.access_key_id)
       ORDER BY created_at, access_key_id`,
    );
    this.countStmt = db.prepare<[], number>('SELECT count(*) FROM access_keys').pluck();
    this.insertStmt = db.prepare(
      `INSERT INTO access_keys (access_key_id, name, description, enabled, secret_sealed, permissions, created_at,
         updated_at, created_by, expires_at)
       VALUES (@accessKeyId, @name, @description, @enabled, @secretSealed, @permissions, @createdAt, @updatedAt,
         @createdBy, @expiresAt)`,
    );
    this.deleteStmt = db.prepare<[string]>('DELETE FROM access_keys WHERE access_key_id = ?');
    this.touchStmt = db.prepare<[number, string]>('UPDATE access_keys SET last_used_at = ? WHERE access_key_id = ?');
    this.checkStmt = db.prepare<[string], string>('SELECT value FROM instance WHERE name = ?').pluck();
    this.setCheckStmt = db.prepare<[string, string]>(
      'INSERT INTO instance (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value',
    );
  }

  find(accessKeyId: string): AccessKeyRow | undefined {
    const raw = this.findStmt.get(accessKeyId);
    return raw && toRow(raw);
  }

  /** Every access key, oldest first (share-link keys excepted). */
  list(): AccessKeyRow[] {
    return this.listStmt.all().map(toRow);
  }

  count(): number {
    return this.countStmt.get() as number;
  }

  insert(row: Omit<AccessKeyRow, 'lastUsedAt' | 'expiresAt'> & { expiresAt?: number | undefined }): void {
    this.insertStmt.run({
      ...row,
      enabled: row.enabled ? 1 : 0,
      permissions: row.permissions ?? null,
      expiresAt: row.expiresAt ?? null,
    });
  }

  /** Applies the given changes; false when no such key exists. */
  update(accessKeyId: string, changes: AccessKeyChanges): boolean {
    const columns: Record<string, unknown> = { updated_at: changes.updatedAt };
    if (changes.name !== undefined) columns['name'] = changes.name;
    if (changes.description !== undefined) columns['description'] = changes.description;
    if (changes.enabled !== undefined) columns['enabled'] = changes.enabled ? 1 : 0;
    if (changes.permissions !== undefined) columns['permissions'] = changes.permissions;
    if (changes.secretSealed !== undefined) columns['secret_sealed'] = changes.secretSealed;
    if (changes.expiresAt !== undefined) columns['expires_at'] = changes.expiresAt;
    // Column names come from the fixed list above, never from input; values are bound parameters.
    const names = Object.keys(columns);
    const sql = `UPDATE access_keys SET ${names.map((n) => `${n} = @${n}`).join(', ')} WHERE access_key_id = @id`;
    return this.db.prepare(sql).run({ ...columns, id: accessKeyId }).changes === 1;
  }

  /** Deletes the key; false when it did not exist. */
  delete(accessKeyId: string): boolean {
    return this.deleteStmt.run(accessKeyId).changes === 1;
  }

  /** Records when the key last authenticated a request. */
  touch(accessKeyId: string, at: number): void {
    this.touchStmt.run(at, accessKeyId);
  }

  /** The stored key-encryption check value (undefined before the first boot that wrote one). */
  findEncryptionCheck(): string | undefined {
    return this.checkStmt.get(CHECK_NAME) as string | undefined;
  }

  setEncryptionCheck(value: string): void {
    this.setCheckStmt.run(CHECK_NAME, value);
  }
}
