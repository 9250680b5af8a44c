// Bucket use cases: create, look up, list and delete buckets; versioning; the bucket configuration document, each part
// validated by its rule in core/bucket-config-parts.ts (tagging, default encryption, lifecycle, CORS, policy, object
// lock).

import {
  checkConfigPartWith,
  missingConfigPart,
  validateConfigPart,
  type BucketConfig,
  type ConfigPart,
} from '../core/bucket-config-parts.js';
import type { Acl } from '../core/acl/acl.js';
import type { ObjectOwnership } from '../core/acl/ownership.js';
import { AppError, noSuchBucket } from '../core/errors.js';
import { validateBucketName } from '../core/names.js';
import { validateObjectLockBucketState, type ObjectLockConfiguration } from '../core/object-lock.js';
import { validateVersioningChange, type VersioningStatus } from '../core/versioning.js';
import type { BucketRow, BucketUsage } from '../storage/db/buckets-repo.js';
import type { MetadataStore } from '../storage/db/metadata-store.js';
import { validateBucketQuota, type BucketQuota, type QuotaUsage } from '../core/quota.js';
import { quotaUsage } from './objects/quota-gate.js';

export type { BucketConfig, BucketQuota, BucketRow, BucketUsage, ConfigPart, QuotaUsage };

/** A bucket's quota (undefined: none) beside the usage it is checked against (docs/quotas.md). */
export interface BucketQuotaView {
  quota: BucketQuota | undefined;
  usage: QuotaUsage;
}

/** A bucket with its usage counters. */
export interface BucketWithUsage {
  bucket: BucketRow;
  usage: BucketUsage;
}

export interface BucketServiceOptions {
  meta: MetadataStore;
  region: string;
  /**
   * Object ownership of a new bucket that does not name one (STORE_DEFAULT_OBJECT_OWNERSHIP; default
   * BucketOwnerEnforced).
   */
  defaultOwnership?: ObjectOwnership;
  now?: () => number;
}

export interface CreateBucketOptions {
  locationConstraint?: string | undefined;
  objectLock?: boolean;
  versioning?: boolean;
  /** x-amz-object-ownership (default: the instance's default). */
  ownership?: ObjectOwnership | undefined;
  acl?: Acl | undefined;
}

export class BucketService {
  private readonly meta: MetadataStore;
  private readonly region: string;
  private readonly now: () => number;
  private readonly defaultOwnership: ObjectOwnership;

  constructor(opts: BucketServiceOptions) {
    this.defaultOwnership = opts.defaultOwnership ?? 'BucketOwnerEnforced';
    this.meta = opts.meta;
    this.region = opts.region;
    this.now = opts.now ?? Date.now;
  }

  /** The ownership of a new bucket that names none. */
  get newBucketOwnership(): ObjectOwnership {
    return this.defaultOwnership;
  }

  /** Returns the bucket or throws NoSuchBucket. */
  get(name: string): BucketRow {
    const bucket = this.meta.buckets.find(name);
    if (!bucket) throw noSuchBucket(name);
    return bucket;
  }

  list(): BucketRow[] {
    return this.meta.buckets.list();
  }

  /** Every bucket, by name, with its object and version counts and bytes (counters, never a scan). */
  listWithUsage(): BucketWithUsage[] {
    // Both reads run in one synchronous turn: no write can land between them.
    const usage = this.meta.buckets.allUsage();
    const none: BucketUsage = { objectCount: 0, objectBytes: 0, versionCount: 0, versionBytes: 0 };
    return this.list().map((bucket) => ({ bucket, usage: usage.get(bucket.name) ?? none }));
  }

  /** The bucket's object and version counts and bytes. Throws NoSuchBucket. */
  usage(name: string): BucketUsage {
    this.get(name);
    return this.meta.buckets.usage(name);
  }

  /**
   * Creates a bucket. Throws InvalidBucketName, BucketAlreadyOwnedByYou (single-tenant: every existing bucket is
   * the caller's), InvalidLocationConstraint when the constraint names another region. `versioning` starts the
   * bucket with versioning Enabled (in the same transaction); object lock always does. `ownership` defaults to the
   * instance's; `acl` (already checked against it by the caller, core/acl/acl-write.ts) is the bucket ACL.
   */
  create(name: string, opts: CreateBucketOptions = {}): BucketRow {
    validateBucketName(name);
    const constraint = opts.locationConstraint;
    // AWS: us-east-1 is the empty constraint; any other value must name this endpoint's region.
    if (constraint !== undefined && constraint !== '' && constraint !== this.region) {
      throw new AppError('InvalidLocationConstraint', {
        message: `The ${constraint} location constraint is incompatible for the region specific endpoint this request was sent to.`,
        details: { LocationConstraint: constraint },
      });
    }
    // Object lock needs versioning: a bucket created with it starts Enabled and can never be suspended.
    const access: BucketConfig = {
      ownershipControls: opts.ownership ?? this.defaultOwnership,
      ...(opts.acl === undefined ? {} : { acl: opts.acl }),
    };
    const row: BucketRow = opts.objectLock
      ? {
          name,
          createdAt: this.now(),
          region: this.region,
          versioning: 'Enabled',
          objectLock: true,
          config: { objectLock: { enabled: true }, ...access },
        }
      : {
          name,
          createdAt: this.now(),
          region: this.region,
          versioning: opts.versioning ? 'Enabled' : 'Unversioned',
          objectLock: false,
          config: access,
        };
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

  /** Turns versioning on or suspends it. Throws NoSuchBucket, InvalidBucketState (suspending an object-lock bucket). */
  setVersioning(name: string, status: VersioningStatus): BucketRow {
    return this.meta.transaction(() => {
      const bucket = this.get(name);
      validateVersioningChange({ next: status, objectLockEnabled: bucket.objectLock });
      this.meta.buckets.setVersioning(name, status, bucket.objectLock);
      return { ...bucket, versioning: status };
    });
  }

  /**
   * Changes the bucket's configuration document in one transaction: `change` gets the current configuration and
   * returns the new one (it validates its own part and may throw). Throws NoSuchBucket.
   */
  updateConfig(name: string, change: (config: BucketConfig, bucket: BucketRow) => BucketConfig): BucketRow {
    return this.meta.transaction(() => {
      const bucket = this.get(name);
      const config = change(structuredClone(bucket.config), bucket);
      this.meta.buckets.setConfig(name, config);
      return { ...bucket, config };
    });
  }

  /** Object lock on an existing bucket (PutObjectLockConfiguration) also requires, and keeps, versioning Enabled. */
  enableObjectLock(name: string, change: (config: BucketConfig, bucket: BucketRow) => BucketConfig): BucketRow {
    return this.meta.transaction(() => {
      const bucket = this.get(name);
      const config = change(structuredClone(bucket.config), bucket);
      this.meta.buckets.setConfig(name, config);
      this.meta.buckets.setVersioning(name, bucket.versioning, true);
      return { ...bucket, objectLock: true, config };
    });
  }

  /**
   * PutObjectLockConfiguration from a model: validates it (MalformedXML, InvalidArgument from core/object-lock), then
   * turns object lock on for good with this default retention (or none). Throws NoSuchBucket, InvalidBucketState
   * (versioning is not Enabled, checked in the same transaction as the change).
   */
  setObjectLock(name: string, config: ObjectLockConfiguration): BucketRow {
    this.get(name);
    validateConfigPart('objectLock', config, name);
    return this.enableObjectLock(name, (current, bucket) => {
      validateObjectLockBucketState(bucket.versioning);
      return { ...current, objectLock: config };
    });
  }

  /** A configuration part, or the S3 error for a part never set (NoSuchTagSet, NoSuchBucketPolicy, ...). */
  getConfig<K extends ConfigPart>(name: string, part: K): NonNullable<BucketConfig[K]> {
    const value = this.get(name).config[part];
    if (value === undefined) throw missingConfigPart(part, name);
    return value as NonNullable<BucketConfig[K]>;
  }

  /**
   * Validates and sets a configuration part, replacing the previous one. Throws NoSuchBucket (checked first, as S3
   * answers a missing bucket whatever the document) and the part's validation errors.
   */
  putConfig<K extends ConfigPart>(name: string, part: K, value: NonNullable<BucketConfig[K]>): void {
    this.get(name);
    // Each part's validation (core/bucket-config-parts.ts), shared by the S3 plane and the admin API: nothing invalid
    // is ever stored.
    validateConfigPart(part, value, name);
    this.updateConfig(name, (config) => {
      checkConfigPartWith(part, value, { config, bucket: name });
      return { ...config, [part]: value };
    });
  }

  /** Removes a configuration part (a no-op when unset, as S3 answers 204 either way). Throws NoSuchBucket. */
  deleteConfig(name: string, part: ConfigPart): void {
    this.updateConfig(name, (config) => {
      const next = { ...config };
      delete next[part];
      return next;
    });
  }

  /** The bucket's quota and the usage it counts (every version's bytes and open uploads' parts; objects). */
  quota(name: string): BucketQuotaView {
    const bucket = this.get(name);
    return { quota: bucket.config.quota, usage: quotaUsage(this.meta, name) };
  }

  /**
   * Sets the bucket's quota, replacing the previous one; the next write is checked against it. Usage already over a
   * lowered quota stays (nothing is deleted): writes that would raise it are refused. Throws NoSuchBucket and
   * ValidationError (core/quota.ts).
   */
  setQuota(name: string, quota: BucketQuota): BucketQuotaView {
    this.get(name);
    validateBucketQuota(quota);
    const value: BucketQuota = {
      ...(quota.maxBytes !== undefined ? { maxBytes: quota.maxBytes } : {}),
      ...(quota.maxObjects !== undefined ? { maxObjects: quota.maxObjects } : {}),
    };
    this.updateConfig(name, (config) => ({ ...config, quota: value }));
    return this.quota(name);
  }

  /** Removes the bucket's quota (a no-op when it has none). Throws NoSuchBucket. */
  clearQuota(name: string): void {
    this.updateConfig(name, (config) => {
      const next = { ...config };
      delete next.quota;
      return next;
    });
  }
}
