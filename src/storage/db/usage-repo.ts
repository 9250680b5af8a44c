// Per-bucket usage, read from the bucket_usage table that triggers keep exact inside every object commit
// (migration 6). One row per bucket: the read costs the same for a bucket of ten objects or ten million.

import type { Db } from './database.js';

export interface BucketUsageRow {
  bucket: string;
  /** Bytes of every stored version (current and noncurrent); delete markers have none. */
  bytes: number;
  /** Stored versions, delete markers excluded. */
  objects: number;
}

export class UsageRepo {
  private readonly listStmt;

  constructor(db: Db) {
    // From buckets, so an empty bucket reads 0 and a deleted bucket is absent.
    this.listStmt = db.prepare<[], BucketUsageRow>(
      `SELECT b.name AS bucket, COALESCE(u.bytes, 0) AS bytes, COALESCE(u.objects, 0) AS objects
       FROM buckets b LEFT JOIN bucket_usage u ON u.bucket = b.name ORDER BY b.name`,
    );
  }

  /** Every existing bucket's usage, in name order. */
  list(): BucketUsageRow[] {
    return this.listStmt.all();
  }
}
