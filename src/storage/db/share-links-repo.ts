// Share links (table share_links): one row per presigned URL the admin API signed with a key created for it. The key
// itself is an access_keys row of the same id; both are written and deleted together by services.

import type { Db } from './database.js';

export interface ShareLinkRow {
  /** The id of the key that signed the URL (the link's id). */
  accessKeyId: string;
  bucket: string;
  key: string;
  versionId: string | undefined;
  method: 'GET' | 'PUT';
  /** The admin username that created it. */
  createdBy: string;
  createdAt: number;
  expiresAt: number;
}

interface RawLink {
  access_key_id: string;
  bucket: string;
  object_key: string;
  version_id: string | null;
  method: string;
  created_by: string;
  created_at: number;
  expires_at: number;
}

const toRow = (raw: RawLink): ShareLinkRow => ({
  accessKeyId: raw.access_key_id,
  bucket: raw.bucket,
  key: raw.object_key,
  versionId: raw.version_id ?? undefined,
  method: raw.method === 'PUT' ? 'PUT' : 'GET',
  createdBy: raw.created_by,
  createdAt: raw.created_at,
  expiresAt: raw.expires_at,
});

export class ShareLinksRepo {
  private readonly findStmt;
  private readonly listStmt;
  private readonly insertStmt;
  private readonly expiredStmt;
  private readonly deleteLinkStmt;
  private readonly deleteKeyStmt;

  constructor(db: Db) {
    this.findStmt = db.prepare<[string], RawLink>('SELECT * FROM share_links WHERE access_key_id = ?');
    this.listStmt = db.prepare<[], RawLink>('SELECT * FROM share_links ORDER BY created_at DESC, access_key_id');
    this.insertStmt = db.prepare(
      `INSERT INTO share_links (access_key_id, bucket, object_key, version_id, method, created_by, created_at, expires_at)
       VALUES (@accessKeyId, @bucket, @key, @versionId, @method, @createdBy, @createdAt, @expiresAt)`,
    );
    this.expiredStmt = db
      .prepare<[number], string>('SELECT access_key_id FROM share_links WHERE expires_at <= ?')
      .pluck();
    this.deleteLinkStmt = db.prepare<[string]>('DELETE FROM share_links WHERE access_key_id = ?');
    this.deleteKeyStmt = db.prepare<[string]>('DELETE FROM access_keys WHERE access_key_id = ?');
  }

  find(accessKeyId: string): ShareLinkRow | undefined {
    const raw = this.findStmt.get(accessKeyId);
    return raw && toRow(raw);
  }

  /** Every link, newest first. */
  list(): ShareLinkRow[] {
    return this.listStmt.all().map(toRow);
  }

  /** Inserts the link; its access_keys row must exist already (foreign key). */
  insert(row: ShareLinkRow): void {
    this.insertStmt.run({ ...row, versionId: row.versionId ?? null });
  }

  /** Deletes the link and its key; false when no such link exists. */
  delete(accessKeyId: string): boolean {
    const deleted = this.deleteLinkStmt.run(accessKeyId).changes === 1;
    if (deleted) this.deleteKeyStmt.run(accessKeyId);
    return deleted;
  }

  /** Deletes every link (and key) expired at `now`; returns their ids. */
  deleteExpired(now: number): string[] {
    const ids = this.expiredStmt.all(now) as string[];
    for (const id of ids) this.delete(id);
    return ids;
  }
}
