// Bucket rows.

import type { Db } from './database.js';

export type VersioningState = 'Unversioned' | 'Enabled' | 'Suspended';

export interface BucketRow {
  name: string;
  createdAt: number;
  region: string;
  versioning: VersioningState;
  objectLock: boolean;
}

interface RawBucket {
  name: string;
  created_at: number;
  region: string;
  versioning: VersioningState;
  object_lock: number;
}

function toRow(raw: RawBucket): BucketRow {
  return {
    name: raw.name,
    createdAt: raw.created_at,
    region: raw.region,
    versioning: raw.versioning,
    objectLock: raw.object_lock === 1,
  };
}

export class BucketsRepo {
  private readonly findStmt;
  private readonly listStmt;
  private readonly insertStmt;
  private readonly deleteStmt;
  private readonly hasVersionsStmt;
  private readonly hasUploadsStmt;

  constructor(db: Db) {
    this.findStmt = db.prepare<[string], RawBucket>('SELECT * FROM buckets WHERE name = ?');
    this.listStmt = db.prepare<[], RawBucket>('SELECT * FROM buckets ORDER BY name');
    this.insertStmt = db.prepare(
      'INSERT INTO buckets (name, created_at, region, versioning, object_lock) VALUES (@name, @createdAt, @region, @versioning, @objectLock)',
    );
    this.deleteStmt = db.prepare<[string]>('DELETE FROM buckets WHERE name = ?');
    this.hasVersionsStmt = db.prepare<[string], { one: number }>('SELECT 1 AS one FROM objects WHERE bucket = ? LIMIT 1');
    this.hasUploadsStmt = db.prepare<[string], { one: number }>(
      'SELECT 1 AS one FROM multipart_uploads WHERE bucket = ? LIMIT 1',
    );
  }

  find(name: string): BucketRow | undefined {
    const raw = this.findStmt.get(name);
    return raw ? toRow(raw) : undefined;
  }

  list(): BucketRow[] {
    return this.listStmt.all().map(toRow);
  }

  insert(row: BucketRow): void {
    this.insertStmt.run({ ...row, objectLock: row.objectLock ? 1 : 0 });
  }

  delete(name: string): void {
    this.deleteStmt.run(name);
  }

  /** True when the bucket holds any object version or delete marker (S3 refuses to delete it then). */
  hasVersions(name: string): boolean {
    return this.hasVersionsStmt.get(name) !== undefined;
  }

  hasUploads(name: string): boolean {
    return this.hasUploadsStmt.get(name) !== undefined;
  }
}
