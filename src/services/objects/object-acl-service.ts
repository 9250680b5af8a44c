// Object ACLs (Get/PutObjectAcl), on the latest version or on one named by id. A change is one small transaction on
// the version row, checked against the bucket's ownership and public access block inside it; ACLs never touch bytes.

import type { Acl } from '../../core/acl/acl.js';
import type { BucketConfig } from '../../core/bucket-config-parts.js';
import type { MetadataStore } from '../../storage/db/metadata-store.js';
import { getBucket, getObjectVersion, type VersionTarget } from './object-versions.js';

export class ObjectAclService {
  /** `onCurrentChanged` is called inside the transaction that changes the ACL of a key's current version. */
  constructor(
    private readonly meta: MetadataStore,
    private readonly onCurrentChanged: (bucket: string, key: string) => void = () => undefined,
  ) {}

  /**
   * The version's stored ACL (undefined: the owner's FULL_CONTROL), its version id and its bucket's configuration.
   * Throws NoSuchBucket, NoSuchKey, InvalidArgument, NoSuchVersion, MethodNotAllowed (a delete marker by version id).
   */
  get(target: VersionTarget): { versionId: string; acl: Acl | undefined; bucketConfig: BucketConfig } {
    const bucket = getBucket(this.meta, target.bucket);
    const row = getObjectVersion(this.meta, target);
    return { versionId: row.versionId, acl: row.acl, bucketConfig: bucket.config };
  }

  /**
   * Sets the version's ACL to what `decide` returns for the bucket's configuration as it is in the transaction
   * (undefined: back to the owner's FULL_CONTROL); `decide` throws to refuse it. Returns the version id. Throws the
   * errors of get() and of `decide`.
   */
  put(target: VersionTarget, decide: (config: BucketConfig) => Acl | undefined): string {
    return this.meta.transaction(() => {
      const bucket = getBucket(this.meta, target.bucket);
      const row = getObjectVersion(this.meta, target, 'PUT');
      this.meta.objects.setAcl(row.id, decide(bucket.config));
      if (row.isLatest) this.onCurrentChanged(target.bucket, target.key);
      return row.versionId;
    });
  }
}
