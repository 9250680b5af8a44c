// Object use cases: put, read, delete, copy. The one place object versions are committed: bytes are durable
// on disk (staged, fsynced, renamed) before the metadata transaction, and the transaction commits before a reply.

import type { Readable } from 'node:stream';
import type { ChecksumAlgorithm } from '../core/checksums.js';
import { checkReadConditions, type ReadConditions } from '../core/conditions.js';
import { AppError } from '../core/errors.js';
import { etagMatches } from '../core/etag.js';
import { validateObjectKey } from '../core/names.js';
import { uuidv7 } from '../lib/ids.js';
import type { BlobStore } from '../storage/blobs/blob-store.js';
import type { BucketRow } from '../storage/db/buckets-repo.js';
import type { MetadataStore } from '../storage/db/metadata-store.js';
import type { NewObjectRow, ObjectHeaders, ObjectPartRow, ObjectRow } from '../storage/db/objects-repo.js';
import { ingestBody, type BodyInput } from './body-ingest.js';
import { extentsOf, readExtents, ReadPins, type BlobExtent } from './object-reader.js';

export type { ObjectHeaders, ObjectRow, ObjectPartRow, BodyInput, ReadConditions };

/** S3's single-PUT limit (5 GiB). */
export const MAX_PUT_BYTES = 5 * 1024 ** 3;

export interface WriteConditions {
  /** If-Match: the current object's ETag must match (412), and it must exist (404). */
  ifMatch?: string | undefined;
  /** If-None-Match: only `*` is supported by S3: the key must not exist (412). */
  ifNoneMatch?: string | undefined;
}

export interface PutObjectInput {
  bucket: string;
  key: string;
  body: BodyInput;
  headers: ObjectHeaders;
  userMeta: Record<string, string>;
  conditions?: WriteConditions;
}

/** An open object version: its row, its byte extents, and a way to stream any range of it. */
export interface OpenedObject {
  row: ObjectRow;
  parts: ObjectPartRow[];
  stream(range?: { start: number; end: number }): Readable;
}

export interface DeleteResult {
  versionId: string | undefined;
  deleteMarker: boolean;
}

export interface ObjectServiceOptions {
  meta: MetadataStore;
  blobs: BlobStore;
  pins: ReadPins;
  now?: () => number;
}

export class ObjectService {
  private readonly meta: MetadataStore;
  private readonly blobs: BlobStore;
  private readonly pins: ReadPins;
  private readonly now: () => number;

  constructor(opts: ObjectServiceOptions) {
    this.meta = opts.meta;
    this.blobs = opts.blobs;
    this.pins = opts.pins;
    this.now = opts.now ?? Date.now;
  }

  private bucket(name: string): BucketRow {
    const bucket = this.meta.buckets.find(name);
    if (!bucket) throw new AppError('NoSuchBucket', { resource: `/${name}`, details: { BucketName: name } });
    return bucket;
  }

  private noSuchKey(bucket: string, key: string): AppError {
    return new AppError('NoSuchKey', { resource: `/${bucket}/${key}`, details: { Key: key } });
  }

  /**
   * Stores an object. Throws NoSuchBucket, KeyTooLongError, EntityTooLarge, IncompleteBody, BadDigest,
   * XAmzContentSHA256Mismatch, PreconditionFailed (conditional writes), NoSuchKey (If-Match on a missing key).
   */
  async put(input: PutObjectInput): Promise<ObjectRow> {
    validateObjectKey(input.key);
    this.bucket(input.bucket);
    if (input.conditions) this.checkWriteConditions(input.bucket, input.key, input.conditions);
    const body = await ingestBody(this.blobs, input.body, MAX_PUT_BYTES);
    return this.commitVersion(body.staged, {
      bucket: input.bucket,
      key: input.key,
      size: body.size,
      etag: body.md5.toString('hex'),
      headers: input.headers,
      userMeta: input.userMeta,
      checksumAlgorithm: body.checksum?.algorithm,
      checksumValue: body.checksum?.value,
      checksumType: body.checksum ? 'FULL_OBJECT' : undefined,
      blobId: body.staged.id,
      partCount: undefined,
      storageClass: 'STANDARD',
    }, input.conditions);
  }

  /**
   * Makes a staged blob durable, then commits it as the key's new current version in one transaction, re-checking
   * write conditions inside it (so two racing conditional writes cannot both win). The staged blob is discarded
   * if the commit fails.
   */
  async commitVersion(
    staged: { commit(): Promise<void>; discard(): Promise<void> } | undefined,
    fields: Omit<NewObjectRow, 'versionId' | 'isLatest' | 'isDeleteMarker' | 'lastModified'>,
    conditions?: WriteConditions,
    parts: readonly ObjectPartRow[] = [],
    inTransaction?: () => void,
  ): Promise<ObjectRow> {
    try {
      await staged?.commit();
      return this.meta.transaction(() => {
        const bucket = this.bucket(fields.bucket);
        if (conditions) this.checkWriteConditions(fields.bucket, fields.key, conditions);
        const row: NewObjectRow = {
          ...fields,
          versionId: bucket.versioning === 'Enabled' ? uuidv7() : 'null',
          isLatest: true,
          isDeleteMarker: false,
          lastModified: this.now(),
        };
        this.replaceCurrent(bucket, fields.bucket, fields.key);
        const id = this.meta.objects.insert(row);
        if (parts.length > 0) this.meta.objects.insertParts(id, parts);
        inTransaction?.();
        return { ...row, id };
      });
    } catch (err) {
      await staged?.discard();
      throw err;
    }
  }

  /** Clears the latest flag; in an unversioned bucket the replaced null version is dropped and its bytes queued for GC. */
  private replaceCurrent(bucket: BucketRow, bucketName: string, key: string): void {
    if (bucket.versioning !== 'Enabled') {
      const existingNull = this.meta.objects.findVersion(bucketName, key, 'null');
      if (existingNull) this.dropVersion(existingNull);
    }
    this.meta.objects.clearLatest(bucketName, key);
  }

  /** Deletes a version row and queues its blobs for GC. Call inside a transaction. */
  private dropVersion(row: ObjectRow): void {
    const now = this.now();
    for (const extent of extentsOf(row.blobId, row.size, row.blobId ? [] : this.meta.objects.parts(row.id))) {
      this.meta.blobGc.enqueue(extent.blobId, now);
    }
    this.meta.objects.delete(row.id);
  }

  private checkWriteConditions(bucket: string, key: string, c: WriteConditions): void {
    const current = this.meta.objects.findLatest(bucket, key);
    const exists = current !== undefined && !current.isDeleteMarker;
    if (c.ifNoneMatch !== undefined) {
      if (c.ifNoneMatch.trim() !== '*') {
        throw new AppError('NotImplemented', { message: 'If-None-Match on writes supports only "*".' });
      }
      if (exists) throw new AppError('PreconditionFailed', { details: { Condition: 'If-None-Match' } });
    }
    if (c.ifMatch !== undefined) {
      if (!exists) throw this.noSuchKey(bucket, key);
      if (!etagMatches(c.ifMatch, current.etag)) throw new AppError('PreconditionFailed', { details: { Condition: 'If-Match' } });
    }
  }

  /**
   * Looks up a version for reading. Throws NoSuchBucket, NoSuchKey (missing or a delete marker),
   * NoSuchVersion, MethodNotAllowed (a delete marker addressed by version), PreconditionFailed / NotModified.
   */
  open(bucket: string, key: string, opts: { versionId?: string | undefined; conditions?: ReadConditions } = {}): OpenedObject {
    this.bucket(bucket);
    const row = this.findRow(bucket, key, opts.versionId);
    if (opts.conditions) checkReadConditions(opts.conditions, row.etag, row.lastModified);
    const parts = row.blobId === undefined && row.partCount ? this.meta.objects.parts(row.id) : [];
    const extents: BlobExtent[] = extentsOf(row.blobId, row.size, parts);
    return {
      row,
      parts,
      stream: (range) => readExtents(this.blobs, this.pins, extents, range),
    };
  }

  private findRow(bucket: string, key: string, versionId: string | undefined): ObjectRow {
    if (versionId === undefined) {
      const row = this.meta.objects.findLatest(bucket, key);
      if (!row) throw this.noSuchKey(bucket, key);
      if (row.isDeleteMarker) {
        throw new AppError('NoSuchKey', {
          resource: `/${bucket}/${key}`,
          details: { Key: key },
          headers: { 'x-amz-delete-marker': 'true', 'x-amz-version-id': row.versionId },
        });
      }
      return row;
    }
    const row = this.meta.objects.findVersion(bucket, key, versionId);
    if (!row) {
      throw new AppError('NoSuchVersion', { resource: `/${bucket}/${key}`, details: { Key: key, VersionId: versionId } });
    }
    if (row.isDeleteMarker) {
      throw new AppError('MethodNotAllowed', {
        resource: `/${bucket}/${key}`,
        headers: { 'x-amz-delete-marker': 'true', 'x-amz-version-id': row.versionId, Allow: 'DELETE' },
        details: { Method: 'GET', ResourceType: 'DeleteMarker' },
      });
    }
    return row;
  }

  /**
   * Deletes the current version of a key (S3 answers success for a missing key). In a versioning-enabled bucket
   * this adds a delete marker; with a versionId it removes that version. Throws NoSuchBucket.
   */
  delete(bucket: string, key: string, versionId?: string): DeleteResult {
    validateObjectKey(key);
    return this.meta.transaction(() => {
      const bucketRow = this.bucket(bucket);
      if (versionId !== undefined) {
        const row = this.meta.objects.findVersion(bucket, key, versionId);
        if (!row) return { versionId, deleteMarker: false };
        this.dropVersion(row);
        if (row.isLatest) this.meta.objects.promoteNewest(bucket, key);
        return { versionId, deleteMarker: row.isDeleteMarker };
      }
      if (bucketRow.versioning === 'Unversioned') {
        const row = this.meta.objects.findLatest(bucket, key);
        if (row) this.dropVersion(row);
        return { versionId: undefined, deleteMarker: false };
      }
      const markerId = bucketRow.versioning === 'Enabled' ? uuidv7() : 'null';
      this.replaceCurrent(bucketRow, bucket, key);
      this.meta.objects.insert({
        bucket, key, versionId: markerId, isLatest: true, isDeleteMarker: true, size: 0, etag: '',
        lastModified: this.now(), headers: {}, userMeta: {}, checksumAlgorithm: undefined, checksumValue: undefined,
        checksumType: undefined, blobId: undefined, partCount: undefined, storageClass: 'STANDARD',
      });
      return { versionId: markerId, deleteMarker: true };
    });
  }

  /**
   * CopyObject: reads a source version (checking x-amz-copy-source-if-* conditions, failures are 412) and writes it
   * as a new object, with the source's metadata (COPY) or the request's (REPLACE). Throws InvalidRequest for a copy
   * onto itself that changes nothing, plus the errors of open() and put().
   */
  async copy(input: CopyObjectInput): Promise<{ row: ObjectRow; sourceVersionId: string }> {
    validateObjectKey(input.key);
    this.bucket(input.bucket);
    const source = this.open(input.source.bucket, input.source.key, { versionId: input.source.versionId });
    checkReadConditions(input.sourceConditions ?? {}, source.row.etag, source.row.lastModified, true);
    const replace = input.metadataDirective === 'REPLACE';
    const sameObject = input.source.bucket === input.bucket && input.source.key === input.key;
    if (sameObject && !replace && input.checksumAlgorithm === undefined) {
      throw new AppError('InvalidRequest', {
        message:
          "This copy request is illegal because it is trying to copy an object to itself without changing the object's metadata, storage class, website redirect location or encryption attributes.",
      });
    }
    const algorithm = input.checksumAlgorithm ?? (source.row.checksumAlgorithm as ChecksumAlgorithm | undefined);
    const body = await ingestBody(
      this.blobs,
      {
        source: source.stream(),
        size: source.row.size,
        checksum: algorithm ? { algorithm, expected: undefined } : undefined,
      },
      MAX_PUT_BYTES,
    );
    const row = await this.commitVersion(body.staged, {
      bucket: input.bucket,
      key: input.key,
      size: body.size,
      etag: body.md5.toString('hex'),
      headers: replace ? input.headers : source.row.headers,
      userMeta: replace ? input.userMeta : source.row.userMeta,
      checksumAlgorithm: body.checksum?.algorithm,
      checksumValue: body.checksum?.value,
      checksumType: body.checksum ? 'FULL_OBJECT' : undefined,
      blobId: body.staged.id,
      partCount: undefined,
      storageClass: 'STANDARD',
    });
    return { row, sourceVersionId: source.row.versionId };
  }
}

export interface CopyObjectInput {
  bucket: string;
  key: string;
  source: { bucket: string; key: string; versionId?: string | undefined };
  sourceConditions?: ReadConditions;
  metadataDirective: 'COPY' | 'REPLACE';
  /** Used with REPLACE. */
  headers: ObjectHeaders;
  userMeta: Record<string, string>;
  checksumAlgorithm?: ChecksumAlgorithm | undefined;
}
