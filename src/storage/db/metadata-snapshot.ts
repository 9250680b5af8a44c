// A point-in-time, read-only view of the metadata for a backup: a second SQLite connection holding one read
// transaction for as long as the backup streams. WAL mode lets it read that snapshot while the writer goes on
// committing; writes made after it began are invisible to it, never half-visible. The cost is that the WAL cannot
// be checkpointed past the snapshot while it is open, so the WAL grows by what is written during a backup.

import BetterSqlite3 from 'better-sqlite3';
import type { BucketRow } from './buckets-repo.js';
import type { Db } from './database.js';
import { OBJECT_SELECT, objectRowOf, type ObjectPartRow, type ObjectRow, type ObjectValues } from './objects-repo.js';

interface RawBucket {
  name: string;
  created_at: number;
  region: string;
  versioning: BucketRow['versioning'];
  object_lock: number;
  config: string;
}

export class MetadataSnapshot {
  private readonly db: Db;
  private readonly bucketsStmt;
  private readonly allVersionsStmt;
  private readonly bucketVersionsStmt;
  private readonly partsStmt;
  private readonly inlineStmt;
  private readonly usageStmt;
  private readonly currentStmt;
  private readonly currentFromStmt;
  private readonly currentAfterStmt;

  private constructor(db: Db) {
    this.db = db;
    this.bucketsStmt = db.prepare<[], RawBucket>('SELECT * FROM buckets ORDER BY name');
    // Commit order (row ids only grow): the history order the archive keeps.
    this.allVersionsStmt = db
      .prepare<[number, number], ObjectValues>(`SELECT ${OBJECT_SELECT} FROM objects WHERE id > ? ORDER BY id LIMIT ?`)
      .raw(true);
    this.bucketVersionsStmt = db
      .prepare<[string, number, number], ObjectValues>(
        `SELECT ${OBJECT_SELECT} FROM objects WHERE bucket = ? AND id > ? ORDER BY id LIMIT ?`,
      )
      .raw(true);
    this.partsStmt = db.prepare<
      [number],
      { part_number: number; blob_id: string; size: number; etag: string; checksum: string | null }
    >('SELECT part_number, blob_id, size, etag, checksum FROM object_parts WHERE object_id = ? ORDER BY part_number');
    this.inlineStmt = db.prepare<[string], Buffer>('SELECT sealed FROM inline_blobs WHERE blob_id = ?').pluck();
    // Current versions (not delete markers) in key order: the objects_current index, as ListObjects reads it.
    const currentSql = (op: string): string =>
      `SELECT ${OBJECT_SELECT} FROM objects INDEXED BY objects_current
       WHERE bucket = ? AND key ${op} ? AND is_latest = 1 AND is_delete_marker = 0 ORDER BY key LIMIT ?`;
    this.currentStmt = db.prepare<[string, string, number], ObjectValues>(currentSql('=')).raw(true);
    this.currentFromStmt = db.prepare<[string, string, number], ObjectValues>(currentSql('>=')).raw(true);
    this.currentAfterStmt = db.prepare<[string, string, number], ObjectValues>(currentSql('>')).raw(true);
    this.usageStmt = db.prepare<[], { bucket: string; version_count: number; version_bytes: number }>(
      'SELECT bucket, version_count, version_bytes FROM bucket_usage',
    );
  }

  /**
   * Opens a read-only connection to the metadata file and starts its read transaction (the snapshot is taken by the
   * first read, done here, so it shows exactly the commits made before this call returns).
   */
  static open(file: string): MetadataSnapshot {
    const db = new BetterSqlite3(file, { readonly: true, fileMustExist: true });
    try {
      db.pragma('busy_timeout = 5000');
      db.exec('BEGIN');
      const snapshot = new MetadataSnapshot(db);
      snapshot.usageStmt.all();
      return snapshot;
    } catch (err) {
      db.close();
      throw err;
    }
  }

  buckets(): BucketRow[] {
    return this.bucketsStmt.all().map((raw) => ({
      name: raw.name,
      createdAt: raw.created_at,
      region: raw.region,
      versioning: raw.versioning,
      objectLock: raw.object_lock === 1,
      config: JSON.parse(raw.config) as BucketRow['config'],
    }));
  }

  /** Version rows and bytes per bucket (the usage counters, kept in the same transactions as the rows). */
  usage(): Map<string, { versions: number; bytes: number }> {
    return new Map(this.usageStmt.all().map((r) => [r.bucket, { versions: r.version_count, bytes: r.version_bytes }]));
  }

  /** Versions and delete markers after row id `afterId`, in commit order, of one bucket or all. At most `limit`. */
  versions(bucket: string | undefined, afterId: number, limit: number): ObjectRow[] {
    const raws =
      bucket === undefined
        ? this.allVersionsStmt.all(afterId, limit)
        : this.bucketVersionsStmt.all(bucket, afterId, limit);
    return raws.map(objectRowOf);
  }

  /** The current version of a key, unless it is absent or a delete marker. */
  current(bucket: string, key: string): ObjectRow | undefined {
    const raw = this.currentStmt.all(bucket, key, 1)[0];
    return raw === undefined ? undefined : objectRowOf(raw);
  }

  /**
   * Current versions in key order from `key` (`inclusive`) or after it (not delete markers). At most `limit`; the
   * caller stops at the first key outside the prefix it walks.
   */
  currentFrom(bucket: string, from: { key: string; inclusive: boolean }, limit: number): ObjectRow[] {
    const stmt = from.inclusive ? this.currentFromStmt : this.currentAfterStmt;
    return stmt.all(bucket, from.key, limit).map(objectRowOf);
  }

  parts(objectId: number): ObjectPartRow[] {
    return this.partsStmt.all(objectId).map((p) => ({
      partNumber: p.part_number,
      blobId: p.blob_id,
      size: p.size,
      etag: p.etag,
      checksum: p.checksum ?? undefined,
    }));
  }

  /** An inline blob's sealed bytes as of the snapshot (a later delete does not take them away from it). */
  inlineBlob(blobId: string): Buffer | undefined {
    return this.inlineStmt.get(blobId);
  }

  /** Ends the read transaction and closes the connection. Idempotent. */
  close(): void {
    if (!this.db.open) return;
    if (this.db.inTransaction) this.db.exec('COMMIT');
    this.db.close();
  }
}
