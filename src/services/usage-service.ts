// Per-bucket storage usage for the usage gauges (store_storage_bytes, store_object_count), read by the usage-rollup
// worker from the bucket_usage counters that triggers keep inside every object commit (one row per bucket).

import type { MetadataStore } from '../storage/db/metadata-store.js';

export interface BucketUsageRow {
  bucket: string;
  /** Bytes of every stored version, current and noncurrent: what the bucket holds on disk. */
  bytes: number;
  /** Current objects (delete markers excluded): what a listing shows. */
  objects: number;
}

export class UsageService {
  constructor(private readonly meta: MetadataStore) {}

  /** Every existing bucket's usage as of the last commit, in name order. Never scans the objects table. */
  snapshot(): BucketUsageRow[] {
    const usage = this.meta.buckets.allUsage();
    return this.meta.buckets.list().map(({ name }) => {
      const u = usage.get(name);
      return { bucket: name, bytes: u?.versionBytes ?? 0, objects: u?.objectCount ?? 0 };
    });
  }
}
