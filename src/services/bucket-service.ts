// Bucket use cases: create, look up, list and delete buckets.

import { AppError } from '../core/errors.js';
import { validateBucketName } from '../core/names.js';
import type { BucketRow } from '../storage/db/buckets-repo.js';
import type { MetadataStore } from '../storage/db/metadata-store.js';

export type { BucketRow };

export interface BucketServiceOptions {
  meta: MetadataStore;
  region: string;
  now?: () => number;
}

export class BucketService {
  private readonly meta: MetadataStore;
  private readonly region: string;
  private readonly now: () => number;

  constructor(opts: BucketServiceOptions) {
    this.meta = opts.meta;
    this.region = opts.region;
    this.now = opts.now ?? Date.now;
  }

  /** Returns the bucket or throws NoSuchBucket. */
  get(name: string): BucketRow {
    const bucket = this.meta.buckets.find(name);
    if (!bucket) throw new AppError('NoSuchBucket', { resource: `/${name}`, details: { BucketName: name } });
    return bucket;
  }

  list(): BucketRow[] {
    return this.meta.buckets.list();
  }

  /**
   * Creates a bucket. Throws InvalidBucketName, BucketAlreadyOwnedByYou (single-tenant: every existing bucket is
   * the caller's), InvalidLocationConstraint when the constraint names another region.
   */
  create(name: string, opts: { locationConstraint?: string | undefined } = {}): BucketRow {
    validateBucketName(name);
    const constraint = opts.locationConstraint;
    // AWS: us-east-1 is the empty constraint; any other value must name this endpoint's region.
    if (constraint !== undefined && constraint !== '' && constraint !== this.region) {
      throw new AppError('InvalidLocationConstraint', {
        message: `The ${constraint} location constraint is incompatible for the region specific endpoint this request was sent to.`,
        details: { LocationConstraint: constraint },
      });
    }
    const row: BucketRow = { name, createdAt: this.now(), region: this.region, versioning: 'Unversioned', objectLock: false };
    this.meta.transaction(() => {
      if (this.meta.buckets.find(name)) {
        throw new AppError('BucketAlreadyOwnedByYou', { resource: `/${name}`, details: { BucketName: name } });
      }
      this.meta.buckets.insert(row);
    });
    return row;
  }

  /** Deletes an empty bucket. Throws NoSuchBucket, BucketNotEmpty (versions, delete markers or uploads remain). */
  delete(name: string): void {
    this.meta.transaction(() => {
      this.get(name);
      if (this.meta.buckets.hasVersions(name) || this.meta.buckets.hasUploads(name)) {
        throw new AppError('BucketNotEmpty', { resource: `/${name}`, details: { BucketName: name } });
      }
      this.meta.buckets.delete(name);
    });
  }
}
