// Bucket rows.

import type { BucketConfig } from '../../core/bucket-config-parts.js';
import type { VersioningState } from '../../core/versioning.js';
import type { Db } from './database.js';

export type { VersioningState };
/** The configuration column: one JSON document of the parts core/bucket-config-parts.ts lists. */
export type { BucketConfig };

/** A bucket's usage, kept by the bucket_usage triggers in the transaction of every object row change. */
export interface BucketUsage {
  /** Current versions that are not delete markers: what a listing shows. */
  objectCount: number;
  objectBytes: number;
  /** Every version row (noncurrent versions and delete markers included) and their bytes: what the disk holds. */
  versionCount: number;
  versionBytes: number;
}

interface RawUsage {
  bucket: string;
  object_count: number;
  object_bytes: number;
  version_count: number;
  version_bytes: number;
}

const NO_USAGE: BucketUsage = { objectCount: 0, objectBytes: 0, versionCount: 0, versionBytes: 0 };

function toUsage(raw: RawUsage | undefined): BucketUsage {
  if (!raw) return NO_USAGE;
  return {
    objectCount: raw.object_count,
    objectBytes: raw.object_bytes,
    versionCount: raw.version_count,
    versionBytes: raw.version_bytes,
  };
}

export interface BucketRow {
  name: string;
  createdAt: number;
  region: string;
  versioning: VersioningState;
  objectLock: boolean;
  config: BucketConfig;
}

interface RawBucket {
  name: string;
  created_at: number;
  region: string;
  versioning: VersioningState;
  object_lock: number;
  config: string;
}

function toRow(raw: RawBucket): BucketRow {
  return {
    name: raw.name,
    createdAt: raw.created_at,
    region: raw.region,
    versioning: raw.versioning,
    objectLock: raw.object_lock === 1,
    config: JSON.parse(raw.config) as BucketConfig,
  };
}

export class BucketsRepo {
  /**
   * Committed bucket rows by name: every S3 request reads its bucket (often several times), and parsing the
   * configuration JSON each time showed in profiles. Writes evict; reads inside a transaction bypass the cache,
   * so a row from a transaction that later rolls back is never cached.
   */
  private readonly cache = new Map<string, BucketRow>();
  private readonly findStmt;
  private readonly listStmt;
  private readonly insertStmt;
  private readonly deleteStmt;
  private readonly hasVersionsStmt;
  private readonly hasUploadsStmt;
  private readonly setConfigStmt;
  private readonly setVersioningStmt;
  private readonly usageStmt;
  private readonly allUsageStmt;
  private readonly uploadBytesStmt;

  constructor(private readonly db: Db) {
    this.findStmt = db.prepare<[string], RawBucket>('SELECT * FROM buckets WHERE name = ?');
    this.listStmt = db.prepare<[], RawBucket>('SELECT * FROM buckets ORDER BY name');
    this.insertStmt = db.prepare(
      `INSERT INTO buckets (name, created_at, region, versioning, object_lock, config)
       VALUES (@name, @createdAt, @region, @versioning, @objectLock, @config)`,
    );
    this.setConfigStmt = db.prepare<[string, string]>('UPDATE buckets SET config = ? WHERE name = ?');
    this.setVersioningStmt = db.prepare<[string, number, string]>(
      'UPDATE buckets SET versioning = ?, object_lock = ? WHERE name = ?',
    );
    this.deleteStmt = db.prepare<[string]>('DELETE FROM buckets WHERE name = ?');
    this.hasVersionsStmt = db.prepare<[string], { one: number }>(
      'SELECT 1 AS one FROM objects WHERE bucket = ? LIMIT 1',
    );
    this.hasUploadsStmt = db.prepare<[string], { one: number }>(
      'SELECT 1 AS one FROM multipart_uploads WHERE bucket = ? LIMIT 1',
    );
    this.usageStmt = db.prepare<[string], RawUsage>('SELECT * FROM bucket_usage WHERE bucket = ?');
    this.allUsageStmt = db.prepare<[], RawUsage>('SELECT * FROM bucket_usage');
    this.uploadBytesStmt = db.prepare<[string], { bytes: number }>(
      `SELECT coalesce(sum(p.size), 0) AS bytes FROM multipart_uploads u
       JOIN upload_parts p ON p.upload_id = u.upload_id WHERE u.bucket = ?`,
    );
  }

  /** The bucket row (shared with other readers: never mutate it; copy what you change). */
  find(name: string): BucketRow | undefined {
    const cached = this.cache.get(name);
    if (cached) return cached;
    const raw = this.findStmt.get(name);
    if (!raw) return undefined;
    const row = toRow(raw);
    if (!this.db.inTransaction) this.cache.set(name, row);
    return row;
  }

  list(): BucketRow[] {
    return this.listStmt.all().map(toRow);
  }

  insert(row: BucketRow): void {
    this.cache.delete(row.name);
    this.insertStmt.run({ ...row, objectLock: row.objectLock ? 1 : 0, config: JSON.stringify(row.config) });
  }

  setConfig(name: string, config: BucketConfig): void {
    this.cache.delete(name);
    this.setConfigStmt.run(JSON.stringify(config), name);
  }

  setVersioning(name: string, versioning: VersioningState, objectLock: boolean): void {
    this.cache.delete(name);
    this.setVersioningStmt.run(versioning, objectLock ? 1 : 0, name);
  }

  delete(name: string): void {
    this.cache.delete(name);
    this.deleteStmt.run(name);
  }

  /** True when the bucket holds any object version or delete marker (S3 refuses to delete it then). */
  hasVersions(name: string): boolean {
    return this.hasVersionsStmt.get(name) !== undefined;
  }

  hasUploads(name: string): boolean {
    return this.hasUploadsStmt.get(name) !== undefined;
  }

  /** The bucket's object and version counts and bytes (zeros for an unknown bucket). One primary-key read. */
  usage(name: string): BucketUsage {
    return toUsage(this.usageStmt.get(name));
  }

  /** Every bucket's usage by name: one read of a table with a row per bucket, never a scan of the objects. */
  allUsage(): Map<string, BucketUsage> {
    return new Map(this.allUsageStmt.all().map((raw) => [raw.bucket, toUsage(raw)]));
  }

  /** Bytes of the uploaded parts of the bucket's open multipart uploads (what its quota counts beside versions). */
  uploadBytes(name: string): number {
    return this.uploadBytesStmt.get(name)?.bytes ?? 0;
  }
}
