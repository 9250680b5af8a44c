// Per-bucket storage usage for the usage gauges (store_storage_bytes, store_object_count) and the quota gauges, read
// by the usage-rollup worker from the bucket_usage counters that triggers keep inside every object commit (one row per
// bucket).

import type { BucketService } from './bucket-service.js';

export interface BucketUsageRow {
  bucket: string;
  /** Bytes of every stored version, current and noncurrent: what the bucket holds on disk. */
  bytes: number;
  /** Current objects (delete markers excluded): what a listing shows. */
  objects: number;
  /** The bucket's quota limits, when set (store_bucket_quota_bytes, store_bucket_quota_objects). */
  quotaBytes?: number | undefined;
  quotaObjects?: number | undefined;
}

export class UsageService {
  constructor(private readonly buckets: BucketService) {}

  /** Every existing bucket's usage as of the last commit, in name order. Never scans the objects table. */
  snapshot(): BucketUsageRow[] {
    return this.buckets.listWithUsage().map(({ bucket, usage }) => ({
      bucket: bucket.name,
      bytes: usage.versionBytes,
      objects: usage.objectCount,
      quotaBytes: bucket.config.quota?.maxBytes,
      quotaObjects: bucket.config.quota?.maxObjects,
    }));
  }
}
