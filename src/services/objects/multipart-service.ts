// Multipart uploads: create, upload (or copy) parts, complete, abort, list. Each part is its own durable blob;
// completing only moves part references into the object (bytes are never copied again).

import type { Acl } from '../../core/acl/acl.js';
import type { Readable } from 'node:stream';
import type { ChecksumAlgorithm } from '../../core/checksums.js';
import { AppError, isAppError, noSuchBucket } from '../../core/errors.js';
import type { HashPool } from '../../lib/hash-pool.js';
import { multipartEtag } from '../../core/etag.js';
import { validateObjectKey } from '../../core/names.js';
import { checkObjectLockEnabled, type RequestedObjectLock } from '../../core/object-lock.js';
import type { StorageClass } from '../../core/storage-class.js';
import type { TagSet } from '../../core/tagging.js';
import { uuidv7 } from '../../lib/ids.js';
import type { BlobStore } from '../../storage/blobs/blob-store.js';
import type { MetadataStore } from '../../storage/db/metadata-store.js';
import type { UploadPartRow, UploadRow } from '../../storage/db/multipart-repo.js';
import type { ObjectHeaders, ObjectRow } from '../../storage/db/objects-repo.js';
import { ingestBody, type BodyInput } from './body-ingest.js';
import { canonicalParts, COMPLETION_REPLAY_MS, replayOf, type CompletedUploadResult } from './completed-uploads.js';
import { checkPartNumber, checkStatedChecksum, chooseParts, objectChecksum } from './multipart-checks.js';
import type { CompleteInput } from './multipart-checks.js';

export { MAX_PART_NUMBER, MIN_PART_BYTES, type CompleteInput, type CompletePart } from './multipart-checks.js';
import { hasLockSettings, lockFields, type ObjectService, type WriteConditions } from './object-service.js';
import { getBucket } from './object-versions.js';
import { chargeQuota, NO_QUOTA_LEASE, quotaCommitCheck, type QuotaLease } from './quota-gate.js';
import { listUploadsPage, type ListUploadsInput, type UploadsPage } from './upload-listing.js';

export type { ListUploadsInput, UploadsPage };

export type { CompletedUploadResult, UploadPartRow, UploadRow };

export const MAX_PART_BYTES = 5 * 1024 ** 3;

export interface MultipartServiceOptions {
  meta: MetadataStore;
  blobs: BlobStore;
  objects: ObjectService;
  now?: () => number;
  /** Threads for the MD5 of parts (lib/hash-pool.ts); without them it runs on the event loop. */
  hashes?: HashPool | undefined;
}

export class MultipartService {
  private readonly meta: MetadataStore;
  private readonly blobs: BlobStore;
  private readonly objects: ObjectService;
  private readonly now: () => number;
  private readonly hashes: HashPool | undefined;

  constructor(opts: MultipartServiceOptions) {
    this.meta = opts.meta;
    this.blobs = opts.blobs;
    this.objects = opts.objects;
    this.now = opts.now ?? Date.now;
    this.hashes = opts.hashes;
  }

  private getBucket(bucket: string): { objectLock: boolean } {
    const row = this.meta.buckets.find(bucket);
    if (!row) throw noSuchBucket(bucket);
    return row;
  }

  /** Returns the upload or throws NoSuchUpload (also when it belongs to another bucket or key). */
  getUpload(bucket: string, key: string, uploadId: string): UploadRow {
    this.getBucket(bucket);
    const upload = this.meta.multipart.find(uploadId);
    if (!upload || upload.bucket !== bucket || upload.key !== key) {
      throw new AppError('NoSuchUpload', { resource: `/${bucket}/${key}`, details: { UploadId: uploadId } });
    }
    return upload;
  }

  /**
   * Starts an upload. Tags and lock settings are kept on the upload and given to the object at completion (the
   * bucket's default retention is applied then too). Throws NoSuchBucket, KeyTooLongError, InvalidRequest (a
   * FULL_OBJECT checksum type for a non-CRC algorithm; lock settings on a bucket without object lock).
   */
  create(input: {
    bucket: string;
    key: string;
    headers: ObjectHeaders;
    userMeta: Record<string, string>;
    checksumAlgorithm?: ChecksumAlgorithm | undefined;
    checksumType?: 'FULL_OBJECT' | 'COMPOSITE' | undefined;
    tags?: TagSet | undefined;
    lock?: RequestedObjectLock | undefined;
    /** x-amz-storage-class (default STANDARD), given to the object at completion. */
    storageClass?: StorageClass | undefined;
    /** The ACL to give the object at completion (checked against the bucket by the caller). */
    acl?: Acl | undefined;
  }): UploadRow {
    validateObjectKey(input.key);
    const bucket = this.getBucket(input.bucket);
    if (hasLockSettings(input.lock)) checkObjectLockEnabled(bucket.objectLock);
    if (input.checksumType === 'FULL_OBJECT' && input.checksumAlgorithm && !input.checksumAlgorithm.startsWith('CRC')) {
      throw new AppError('InvalidRequest', {
        message: `The FULL_OBJECT checksum type is not supported for ${input.checksumAlgorithm}.`,
      });
    }
    const row: UploadRow = {
      uploadId: uuidv7().replace(/-/g, ''),
      bucket: input.bucket,
      key: input.key,
      initiated: this.now(),
      headers: input.headers,
      userMeta: input.userMeta,
      checksumAlgorithm: input.checksumAlgorithm,
      checksumType: input.checksumAlgorithm ? (input.checksumType ?? 'COMPOSITE') : undefined,
      storageClass: input.storageClass ?? 'STANDARD',
      tags: input.tags,
      lock: input.lock,
      acl: input.acl,
    };
    this.meta.multipart.insert(row);
    return row;
  }

  /**
   * Stores one part. Throws NoSuchUpload, InvalidArgument (part number), EntityTooLarge, InsufficientStorage (the
   * free-space reserve) and the body errors.
   */
  async uploadPart(input: {
    bucket: string;
    key: string;
    uploadId: string;
    partNumber: number;
    body: BodyInput;
  }): Promise<UploadPartRow> {
    checkPartNumber(input.partNumber);
    const upload = this.getUpload(input.bucket, input.key, input.uploadId);
    const algorithm = upload.checksumAlgorithm;
    if (algorithm && input.body.checksum && input.body.checksum.algorithm !== algorithm) {
      throw new AppError('InvalidRequest', {
        message: `Checksum Type mismatch occurred, expected checksum Type: ${algorithm.toLowerCase()}, actual checksum Type: ${input.body.checksum.algorithm.toLowerCase()}`,
      });
    }
    // A part of an upload created with an algorithm always gets that checksum, computed if the client sent none.
    const body =
      input.body.checksum || !algorithm ? input.body : { ...input.body, checksum: { algorithm, expected: undefined } };
    if (input.body.size !== undefined && input.body.size > MAX_PART_BYTES) throw new AppError('EntityTooLarge');
    const quota = this.admitPartQuota(input, input.body.size);
    try {
      const lease = await this.objects.admitWrite(input.body.size, quota);
      const ingested = await ingestBody(this.blobs, body, {
        maxSize: MAX_PART_BYTES,
        hashes: this.hashes,
        lease: chargeQuota(lease, quota),
      });
      return await this.commitPart(input, ingested.staged, {
        size: ingested.size,
        etag: ingested.md5.toString('hex'),
        checksums: ingested.checksum ? { [ingested.checksum.algorithm]: ingested.checksum.value } : {},
      });
    } finally {
      quota.release();
    }
  }

  /**
   * Admits a part against its bucket's quota: open uploads' parts count toward the byte quota as they are uploaded
   * (docs/decisions.md, "Bucket quotas"), and a part uploaded again frees the bytes of the one it replaces.
   */
  private admitPartQuota(input: { bucket: string; uploadId: string; partNumber: number }, bytes: number | undefined) {
    const bucket = getBucket(this.meta, input.bucket);
    if (bucket.config.quota === undefined) return NO_QUOTA_LEASE;
    const replaced = this.meta.multipart.findPart(input.uploadId, input.partNumber);
    return this.objects.admitPartQuota(bucket, bytes, replaced?.size ?? 0);
  }

  /**
   * UploadPartCopy: a part from a byte range of an existing object (copy-source conditions are checked by the caller
   * via open()).
   */
  async uploadPartCopy(input: {
    bucket: string;
    key: string;
    uploadId: string;
    partNumber: number;
    source: { stream: () => Readable; size: number };
  }): Promise<UploadPartRow> {
    checkPartNumber(input.partNumber);
    const upload = this.getUpload(input.bucket, input.key, input.uploadId);
    const algorithm = upload.checksumAlgorithm;
    // Opened before anything awaits, in the tick of the caller's lookup (ObjectService.admitCopy says why).
    const quota = this.admitPartQuota(input, input.source.size);
    const sourceBytes = input.source.stream();
    try {
      const lease = await this.objects.admitCopy(sourceBytes, input.source.size, quota);
      const ingested = await ingestBody(
        this.blobs,
        {
          source: sourceBytes,
          size: input.source.size,
          checksum: algorithm ? { algorithm, expected: undefined } : undefined,
        },
        { maxSize: MAX_PART_BYTES, hashes: this.hashes, lease: chargeQuota(lease, quota) },
      );
      return await this.commitPart(input, ingested.staged, {
        size: ingested.size,
        etag: ingested.md5.toString('hex'),
        checksums: ingested.checksum ? { [ingested.checksum.algorithm]: ingested.checksum.value } : {},
      });
    } finally {
      quota.release();
    }
  }

  private async commitPart(
    { bucket, uploadId, partNumber }: { bucket: string; uploadId: string; partNumber: number },
    staged: { id: string; commit(): Promise<void>; discard(): Promise<void> },
    fields: Pick<UploadPartRow, 'size' | 'etag' | 'checksums'>,
  ): Promise<UploadPartRow> {
    const part: UploadPartRow = { partNumber, blobId: staged.id, lastModified: this.now(), ...fields };
    let blobCommitted = false;
    try {
      await staged.commit();
      blobCommitted = true;
      this.meta.transaction(() => {
        if (!this.meta.multipart.find(uploadId))
          throw new AppError('NoSuchUpload', { details: { UploadId: uploadId } });
        // Parts count toward the bucket's byte quota, checked on the change itself (docs/quotas.md).
        quotaCommitCheck(this.meta, getBucket(this.meta, bucket), () => {
          const previous = this.meta.multipart.findPart(uploadId, partNumber);
          if (previous) this.meta.releaseBlob(previous.blobId, this.now());
          this.meta.multipart.upsertPart(uploadId, part);
        });
      });
    } catch (err) {
      // A part in place but refused (the upload was aborted or completed meanwhile) is unreferenced: remove it.
      await (blobCommitted ? this.blobs.remove(staged.id) : staged.discard());
      throw err;
    }
    return part;
  }

  /**
   * Completes an upload from the listed parts. `expectedChecksum` / `expectedChecksumType` are what the client states
   * about the whole object (x-amz-checksum-*, x-amz-checksum-type) and are verified against what the parts combine to.
   * A retry of a completion that succeeded (same parts, within an hour: completed-uploads.ts) is answered the same.
   * Throws NoSuchUpload, InvalidPartOrder, InvalidPart (missing part, ETag or checksum mismatch), EntityTooSmall
   * (a part other than the last under 5 MiB), InvalidRequest (a stated algorithm or type the upload was not created
   * with), BadDigest (a stated checksum that does not match), PreconditionFailed, InsufficientStorage (the free-space
   * reserve), ConditionalRequestConflict (parts kept being replaced while it tried).
   */
  async complete(input: CompleteInput): Promise<CompletedUploadResult> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.completeOnce(input);
      } catch (err) {
        // A part uploaded again while this completion waited for its commit: select the parts again, from the state
        // that will commit, so the part that finished last is the one assembled (or refused, by its ETag).
        if (err instanceof PartsChanged) {
          if (attempt < MAX_COMPLETE_ATTEMPTS) continue;
          throw new AppError('ConditionalRequestConflict', { cause: err });
        }
        if (isAppError(err) && err.code === 'NoSuchUpload') {
          const replay = replayOf(this.meta.completedUploads.find(input.uploadId), input, this.now());
          if (replay !== undefined) return replay;
        }
        throw err;
      }
    }
  }

  private async completeOnce(input: CompleteInput): Promise<CompletedUploadResult> {
    const upload = this.getUpload(input.bucket, input.key, input.uploadId);
    const stored = new Map(this.meta.multipart.parts(input.uploadId).map((p) => [p.partNumber, p]));
    const chosen = chooseParts(input.parts, stored);
    const checksum = objectChecksum(upload, chosen);
    checkStatedChecksum(upload, checksum, {
      expected: input.expectedChecksum,
      expectedType: input.expectedChecksumType,
    });
    // A completion writes no object bytes (the parts are its bytes, already counted by the bucket's quota), but its
    // commit is refused under the reserve, and one that adds an object is held against an object quota.
    const quota = this.objects.admitQuota(getBucket(this.meta, input.bucket), input.key, 0);
    try {
      (await this.objects.admitWrite(0, quota)).release();
      return await this.commitCompletion(input, { upload, stored, chosen, quota });
    } finally {
      quota.release();
    }
  }

  private commitCompletion(
    input: CompleteInput,
    selected: { upload: UploadRow; stored: Map<number, UploadPartRow>; chosen: UploadPartRow[]; quota: QuotaLease },
  ): Promise<ObjectRow> {
    const { upload, stored, chosen, quota } = selected;
    const checksum = objectChecksum(upload, chosen);
    const size = chosen.reduce((n, p) => n + p.size, 0);
    const etag = multipartEtag(chosen.map((p) => Buffer.from(p.etag, 'hex')));
    const chosenNumbers = new Set(chosen.map((p) => p.partNumber));
    return this.objects.commitVersion(
      undefined,
      {
        bucket: input.bucket,
        key: input.key,
        size,
        etag: unquote(etag),
        headers: upload.headers,
        userMeta: upload.userMeta,
        checksumAlgorithm: checksum?.algorithm,
        checksumValue: checksum?.value,
        checksumType: checksum?.type,
        blobId: undefined,
        partCount: chosen.length,
        storageClass: upload.storageClass,
        tags: upload.tags,
        acl: upload.acl,
        ...lockFields(upload.lock),
      },
      {
        conditions: input.conditions,
        parts: chosen.map((p) => ({
          partNumber: p.partNumber,
          blobId: p.blobId,
          size: p.size,
          etag: p.etag,
          checksum: upload.checksumAlgorithm ? p.checksums[upload.checksumAlgorithm] : undefined,
        })),
        inTransaction: (row) => {
          if (!this.meta.multipart.find(input.uploadId))
            throw new AppError('NoSuchUpload', { details: { UploadId: input.uploadId } });
          // The parts read above must still be the upload's parts: an UploadPart that committed since replaced one.
          const current = this.meta.multipart.parts(input.uploadId);
          if (current.length !== stored.size || current.some((p) => stored.get(p.partNumber)?.blobId !== p.blobId))
            throw new PartsChanged();
          for (const part of current) {
            if (!chosenNumbers.has(part.partNumber)) this.meta.releaseBlob(part.blobId, this.now());
          }
          this.meta.multipart.delete(input.uploadId);
          const now = this.now();
          this.meta.completedUploads.pruneBefore(now - COMPLETION_REPLAY_MS);
          this.meta.completedUploads.insert({
            uploadId: input.uploadId,
            parts: canonicalParts(input.parts),
            completedAt: now,
            result: {
              bucket: row.bucket,
              key: row.key,
              etag: row.etag,
              size: row.size,
              versionId: row.versionId,
              checksumAlgorithm: row.checksumAlgorithm,
              checksumValue: row.checksumValue,
              checksumType: row.checksumType,
            },
          });
        },
        quota,
      },
    );
  }

  /** Aborts an upload and frees its parts. Throws NoSuchUpload. */
  abort(bucket: string, key: string, uploadId: string): void {
    this.getUpload(bucket, key, uploadId);
    this.meta.transaction(() => {
      for (const part of this.meta.multipart.parts(uploadId)) this.meta.releaseBlob(part.blobId, this.now());
      this.meta.multipart.delete(uploadId);
    });
  }

  listParts(
    { bucket, key, uploadId }: { bucket: string; key: string; uploadId: string },
    { afterPart, maxParts }: { afterPart: number; maxParts: number },
  ): { upload: UploadRow; parts: UploadPartRow[]; isTruncated: boolean } {
    const upload = this.getUpload(bucket, key, uploadId);
    const page = this.meta.multipart.partsPage(uploadId, afterPart, maxParts + 1);
    return { upload, parts: page.slice(0, maxParts), isTruncated: page.length > maxParts };
  }

  /**
   * One page of the uploads in progress whose keys start with `prefix`, in key then upload-id order, after the
   * markers: keys after `keyMarker`, and uploads of `keyMarker` itself after `uploadIdMarker` when one is given (as
   * S3 reads them). With a delimiter, keys that contain it after the prefix roll up into common prefixes, each
   * counted once against `maxUploads`; a `keyMarker` that is itself such a prefix (a page ended on it) resumes past
   * it. Throws NoSuchBucket.
   */
  listUploads(bucket: string, opts: ListUploadsInput): UploadsPage {
    this.getBucket(bucket);
    return listUploadsPage(this.meta.multipart, bucket, opts);
  }
}

function unquote(etag: string): string {
  return etag.replace(/^"|"$/g, '');
}

/** Attempts of one completion whose parts are replaced under it before it gives up (ConditionalRequestConflict). */
const MAX_COMPLETE_ATTEMPTS = 5;

/** Thrown inside a completion's transaction when its parts changed since it read them (never reaches a client). */
class PartsChanged extends Error {}
