// A restore's scratch database: the versions staged from an archive (their rows, part lists and inline bytes) and
// the blob files already written for them, kept on disk rather than in memory so a restore of a million versions
// costs the same memory as one of ten. Disposable: a file in DATA_DIR/tmp (emptied at boot), no journal, no fsync.

import { rmSync } from 'node:fs';
import BetterSqlite3 from 'better-sqlite3';
import { privateDatabaseFile } from '../private-files.js';
import type { Db } from './database.js';
import type { NewObjectRow, ObjectPartRow } from './objects-repo.js';

/** A staged version: its row (with blob ids of this instance), part list, and an inline blob's sealed bytes. */
export interface StagedVersion {
  seq: number;
  row: NewObjectRow;
  parts: ObjectPartRow[];
  sealed: Buffer | undefined;
}

interface RawStaged {
  seq: number;
  row: string;
  parts: string | null;
  sealed: Buffer | null;
  is_latest: number;
}

export class RestoreScratch {
  private readonly db: Db;
  private readonly insertStmt;
  private readonly findStmt;
  private readonly pageStmt;
  private readonly addBlobStmt;
  private readonly blobPageStmt;

  constructor(private readonly file: string) {
    privateDatabaseFile(file);
    this.db = new BetterSqlite3(file);
    this.db.pragma('journal_mode = OFF');
    this.db.pragma('synchronous = OFF');
    this.db.exec(`
      CREATE TABLE staged (
        seq        INTEGER PRIMARY KEY,
        bucket     TEXT NOT NULL,
        key        TEXT NOT NULL,
        version_id TEXT NOT NULL,
        row        TEXT NOT NULL,
        parts      TEXT,
        sealed     BLOB,
        is_latest  INTEGER NOT NULL DEFAULT 0
      );
      CREATE UNIQUE INDEX staged_version ON staged(bucket, key, version_id);
      CREATE INDEX staged_key ON staged(bucket, key, seq);
      CREATE TABLE blobs (blob_id TEXT PRIMARY KEY) WITHOUT ROWID;
    `);
    this.insertStmt = this.db.prepare(
      `INSERT INTO staged (seq, bucket, key, version_id, row, parts, sealed)
       VALUES (@seq, @bucket, @key, @versionId, @row, @parts, @sealed)`,
    );
    this.findStmt = this.db
      .prepare<[string, string, string], string>(
        'SELECT row FROM staged WHERE bucket = ? AND key = ? AND version_id = ?',
      )
      .pluck();
    this.pageStmt = this.db.prepare<[number, number], RawStaged>(
      'SELECT seq, row, parts, sealed, is_latest FROM staged WHERE seq > ? ORDER BY seq LIMIT ?',
    );
    this.addBlobStmt = this.db.prepare<[string]>('INSERT OR IGNORE INTO blobs (blob_id) VALUES (?)');
    this.blobPageStmt = this.db
      .prepare<[string, number], string>('SELECT blob_id FROM blobs WHERE blob_id > ? ORDER BY blob_id LIMIT ?')
      .pluck();
  }

  /** Records a blob file written for this restore (removed again if the restore fails). */
  addBlob(blobId: string): void {
    this.addBlobStmt.run(blobId);
  }

  /** Stages a version. Returns false, storing nothing, when the archive already staged that version. */
  add(version: StagedVersion): boolean {
    const { row } = version;
    try {
      this.insertStmt.run({
        seq: version.seq,
        bucket: row.bucket,
        key: row.key,
        versionId: row.versionId,
        row: JSON.stringify(row),
        parts: version.parts.length > 0 ? JSON.stringify(version.parts) : null,
        sealed: version.sealed ?? null,
      });
      return true;
    } catch (err) {
      if ((err as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE') return false;
      throw err;
    }
  }

  /** The staged row of this version (by its bucket here, key and version id), if any. */
  find(bucket: string, key: string, versionId: string): NewObjectRow | undefined {
    const row = this.findStmt.get(bucket, key, versionId);
    return row === undefined ? undefined : (JSON.parse(row) as NewObjectRow);
  }

  /** Marks the last staged version of each key as its latest (the newest version is the current one). */
  markLatest(): void {
    this.db.exec('UPDATE staged SET is_latest = 1 WHERE seq IN (SELECT max(seq) FROM staged GROUP BY bucket, key)');
  }

  /** Staged versions after `afterSeq`, in staging (history) order, with isLatest set by markLatest. */
  page(afterSeq: number, limit: number): StagedVersion[] {
    return this.pageStmt.all(afterSeq, limit).map((raw) => ({
      seq: raw.seq,
      row: { ...(JSON.parse(raw.row) as NewObjectRow), isLatest: raw.is_latest === 1 },
      parts: raw.parts ? (JSON.parse(raw.parts) as ObjectPartRow[]) : [],
      sealed: raw.sealed ?? undefined,
    }));
  }

  /** Blob ids recorded with addBlob after `after` (in id order), at most `limit`. */
  blobs(after: string, limit: number): string[] {
    return this.blobPageStmt.all(after, limit);
  }

  /** Closes and deletes the scratch file. Idempotent. */
  dispose(): void {
    if (this.db.open) this.db.close();
    rmSync(this.file, { force: true });
  }
}
