// Per-bucket storage usage for the usage gauges (store_storage_bytes, store_object_count), read by the usage-rollup
// worker: the committed totals, maintained by the object commits themselves.

import type { MetadataStore } from '../storage/db/metadata-store.js';
import { UsageRepo, type BucketUsageRow } from '../storage/db/usage-repo.js';

export type { BucketUsageRow };

export class UsageService {
  private readonly repo: UsageRepo;

  constructor(meta: MetadataStore) {
    this.repo = new UsageRepo(meta.db);
  }

  /** Every existing bucket's bytes and object-version count as of the last commit. One indexed read per bucket. */
  snapshot(): BucketUsageRow[] {
    return this.repo.list();
  }
}
