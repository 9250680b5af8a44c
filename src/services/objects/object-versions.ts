// Finding object versions the way every object operation does (latest or by version id, delete markers answered
// as S3 does) and the object lock guard on removing a version. Shared by the object, tagging and lock services.

import { AppError, noSuchBucket } from '../../core/errors.js';
import { canDeleteVersion } from '../../core/object-lock.js';
import { NULL_VERSION_ID } from '../../core/versioning.js';
import { isUuidShaped } from '../../lib/ids.js';
import type { BucketRow } from '../../storage/db/buckets-repo.js';
import type { MetadataStore } from '../../storage/db/metadata-store.js';
import type { ObjectRow } from '../../storage/db/objects-repo.js';

/** The version an operation addresses: the latest without a versionId. */
export interface VersionTarget {
  bucket: string;
  key: string;
  versionId?: string | undefined;
}

/** The bucket, or AppError NoSuchBucket. */
export function getBucket(meta: MetadataStore, name: string): BucketRow {
  const bucket = meta.buckets.find(name);
  if (!bucket) throw noSuchBucket(name);
  return bucket;
}

export function noSuchKey(bucket: string, key: string): AppError {
  return new AppError('NoSuchKey', { resource: `/${bucket}/${key}`, details: { Key: key } });
}

/**
 * Store's version ids are `null` or UUIDs (v7). Anything else cannot name a version: AppError InvalidArgument
 * "Invalid version id specified", as S3 answers a malformed id (a well-formed unknown one is NoSuchVersion).
 */
export function checkVersionId(versionId: string): void {
  if (versionId !== NULL_VERSION_ID && !isUuidShaped(versionId)) {
    throw new AppError('InvalidArgument', {
      message: 'Invalid version id specified',
      details: { ArgumentName: 'versionId', ArgumentValue: versionId },
    });
  }
}

/**
 * The version an operation acts on: the latest without a versionId, else that version. Throws NoSuchKey (no such
 * key, or its latest version is a delete marker: with x-amz-delete-marker), InvalidArgument (malformed id),
 * NoSuchVersion, MethodNotAllowed (405: a delete marker named by its version id, which only DELETE may address).
 * `method` names the HTTP method in the 405's details.
 */
export function getObjectVersion(meta: MetadataStore, target: VersionTarget, method = 'GET'): ObjectRow {
  const { bucket, key, versionId } = target;
  if (versionId === undefined) {
    const row = meta.objects.findLatest(bucket, key);
    if (!row) throw noSuchKey(bucket, key);
    if (row.isDeleteMarker) {
      throw new AppError('NoSuchKey', {
        resource: `/${bucket}/${key}`,
        details: { Key: key },
        headers: { 'x-amz-delete-marker': 'true', 'x-amz-version-id': row.versionId },
      });
    }
    return row;
  }
  checkVersionId(versionId);
  const row = meta.objects.findVersion(bucket, key, versionId);
  if (!row) {
    throw new AppError('NoSuchVersion', { resource: `/${bucket}/${key}`, details: { Key: key, VersionId: versionId } });
  }
  if (row.isDeleteMarker) {
    throw new AppError('MethodNotAllowed', {
      resource: `/${bucket}/${key}`,
      headers: { 'x-amz-delete-marker': 'true', 'x-amz-version-id': row.versionId, Allow: 'DELETE' },
      details: { Method: method, ResourceType: 'DeleteMarker' },
    });
  }
  return row;
}

/**
 * Refuses to remove a version object lock protects (legal hold; COMPLIANCE retention; GOVERNANCE retention
 * without bypass). Delete markers carry no lock. Throws AppError AccessDenied.
 */
export function assertRemovable(row: ObjectRow, opts: { bypassGovernance: boolean; now: number }): void {
  if (row.isDeleteMarker) return;
  const decision = canDeleteVersion({
    retention: row.retention,
    legalHold: row.legalHold ? 'ON' : 'OFF',
    bypassGovernance: opts.bypassGovernance,
    now: new Date(opts.now),
  });
  if (!decision.allowed) throw decision.error;
}
