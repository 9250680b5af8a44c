// Object tags (Put/Get/DeleteObjectTagging), on the latest version or on one named by id. Each change is one
// small transaction on the version row; tags never touch the bytes.

import { validateTagSet, type TagSet } from '../../core/tagging.js';
import type { MetadataStore } from '../../storage/db/metadata-store.js';
import { getBucket, getObjectVersion, type VersionTarget } from './object-versions.js';

export type { VersionTarget };

export class ObjectTaggingService {
  /** `onCurrentChanged` is called inside the transaction that changes the tags of a key's current version. */
  constructor(
    private readonly meta: MetadataStore,
    private readonly onCurrentChanged: (bucket: string, key: string) => void = () => undefined,
  ) {}

  /**
   * The version's tags (empty when it has none) and its version id. Throws NoSuchBucket, NoSuchKey, InvalidArgument,
   * NoSuchVersion, MethodNotAllowed (a delete marker by version id).
   */
  get(target: VersionTarget): { versionId: string; tags: TagSet } {
    getBucket(this.meta, target.bucket);
    const row = getObjectVersion(this.meta, target);
    return { versionId: row.versionId, tags: row.tags ?? [] };
  }

  /**
   * Replaces the version's tag set (an empty set removes them) and returns its version id. Throws InvalidTag
   * (validateTagSet: at most 10 tags, S3's lengths and characters) and the errors of get().
   */
  put(target: VersionTarget, tags: TagSet): string {
    validateTagSet(tags, 'object');
    return this.meta.transaction(() => {
      getBucket(this.meta, target.bucket);
      const row = getObjectVersion(this.meta, target, 'PUT');
      this.meta.objects.setTags(row.id, tags);
      if (row.isLatest) this.onCurrentChanged(target.bucket, target.key);
      return row.versionId;
    });
  }

  /** Removes every tag of the version and returns its version id. Throws the errors of get(). */
  delete(target: VersionTarget): string {
    return this.meta.transaction(() => {
      getBucket(this.meta, target.bucket);
      const row = getObjectVersion(this.meta, target, 'DELETE');
      this.meta.objects.setTags(row.id, []);
      if (row.isLatest) this.onCurrentChanged(target.bucket, target.key);
      return row.versionId;
    });
  }
}
