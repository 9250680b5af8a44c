// Bucket versioning: the configuration PutBucketVersioning sets, and the rules for version ids, the
// `null` version and simple deletes in each state.
// https://docs.aws.amazon.com/AmazonS3/latest/userguide/versioning-workflows.html
//
// AWS's rules for the null version, which the functions below encode:
// - Unversioned (never enabled): every object has one version, id `null`. A PUT replaces it; a DELETE
//   removes it for good.
// - Enabled: a PUT adds a version with a new unique id and leaves every existing version, a `null` one
//   included, in place as noncurrent. A DELETE without versionId adds a delete marker with a new id.
// - Suspended: a PUT writes version id `null`, permanently replacing the existing `null` version
//   wherever it sits in the stack (current or noncurrent); versions with real ids are untouched. A DELETE
//   without versionId removes the `null` version (if any) and adds a delete marker whose id is `null`.
// - A DELETE with a versionId removes exactly that version in every state (object lock permitting).
// - A bucket never returns to Unversioned once versioning was enabled.

import { AppError } from './errors.js';

export type VersioningStatus = 'Enabled' | 'Suspended';
/** The bucket's state: Unversioned until versioning is first enabled. */
export type VersioningState = 'Unversioned' | VersioningStatus;

/** PutBucketVersioning's model. MFA delete is not supported: only `Disabled` is accepted (and ignored). */
export interface VersioningConfiguration {
  status: VersioningStatus;
}

/** The version id of every object written while a bucket is unversioned or suspended. */
export const NULL_VERSION_ID = 'null';

/**
 * A version id as responses report it (x-amz-version-id, admin JSON): only for buckets that are or were versioned,
 * never the `null` id of an unversioned write.
 */
export function reportedVersionId(versionId: string): string | undefined {
  return versionId === NULL_VERSION_ID ? undefined : versionId;
}

/**
 * Checks a versioning configuration (from XML or the admin API): status Enabled or Suspended.
 * Throws AppError MalformedXML otherwise, as S3 answers an unknown Status.
 */
export function validateVersioningConfiguration(config: VersioningConfiguration): void {
  if (config.status !== 'Enabled' && config.status !== 'Suspended') {
    throw new AppError('MalformedXML', { message: 'Versioning Status must be Enabled or Suspended.' });
  }
}

/**
 * Checks a change of versioning state. A bucket with object lock cannot suspend versioning.
 * Throws AppError InvalidBucketState (409).
 */
export function validateVersioningChange(input: { next: VersioningStatus; objectLockEnabled: boolean }): void {
  if (input.objectLockEnabled && input.next !== 'Enabled') {
    throw new AppError('InvalidBucketState', {
      message: 'An Object Lock configuration is present on this bucket, so the versioning state cannot be changed.',
    });
  }
}

/** The version id a PUT, COPY or CompleteMultipartUpload gives the new version: `newId()` only when Enabled. */
export function versionIdForWrite(state: VersioningState, newId: () => string): string {
  return state === 'Enabled' ? newId() : NULL_VERSION_ID;
}

/**
 * True when a write permanently replaces the existing `null` version of the key (Unversioned and
 * Suspended); false when it only pushes existing versions down to noncurrent (Enabled).
 */
export function writeReplacesNullVersion(state: VersioningState): boolean {
  return state !== 'Enabled';
}

/** What a DELETE without versionId does to a key. */
export interface SimpleDeletePlan {
  /** Permanently remove the key's `null` version, if it has one. */
  removeNullVersion: boolean;
  /** Add a delete marker with this version id as the new current version; undefined: no marker. */
  deleteMarkerVersionId: string | undefined;
}

/** The effect of DeleteObject without versionId in each versioning state (see the header comment). */
export function simpleDeletePlan(state: VersioningState, newId: () => string): SimpleDeletePlan {
  switch (state) {
    case 'Unversioned':
      return { removeNullVersion: true, deleteMarkerVersionId: undefined };
    case 'Enabled':
      return { removeNullVersion: false, deleteMarkerVersionId: newId() };
    case 'Suspended':
      return { removeNullVersion: true, deleteMarkerVersionId: NULL_VERSION_ID };
  }
}
