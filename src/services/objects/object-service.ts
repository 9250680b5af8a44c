/* eslint-disable max-lines -- put, copy and delete share commitVersion and its in-transaction lock checks */
// Object use cases: put, read, delete, copy. The one place object versions are committed: bytes are durable
// on disk (staged, fsynced, renamed) before the metadata transaction, and the transaction commits before a reply.
// Versioning (core/versioning.ts) and object lock (core/object-lock.ts) rules are applied inside that transaction.

import { Readable } from 'node:stream';
import type { Acl } from '../../core/acl/acl.js';
import type { ChecksumAlgorithm } from '../../core/checksums.js';
import { checkReadConditions, type ReadConditions } from '../../core/conditions.js';
import { AppError, isAppError, type ErrorCode } from '../../core/errors.js';
import type { StorageClass } from '../../core/storage-class.js';
import { etagMatches } from '../../core/etag.js';
import { validateObjectKey } from '../../core/names.js';
import { objectEvent, type ObjectEvent } from '../../core/object-event.js';
import { checkObjectLockEnabled, defaultRetentionFor, type RequestedObjectLock } from '../../core/object-lock.js';
import type { TagSet } from '../../core/tagging.js';
import {
  NULL_VERSION_ID,
  simpleDeletePlan,
  versionIdForWrite,
  writeReplacesNullVersion,
} from '../../core/versioning.js';
import { uuidv7 } from '../../lib/ids.js';
import { BlobCorruptError, isInlineBlobId, type BlobStore, type StagedBlob } from '../../storage/blobs/blob-store.js';
import type { BucketRow } from '../../storage/db/buckets-repo.js';
import type { MetadataStore } from '../../storage/db/metadata-store.js';
import type { NewObjectRow, ObjectHeaders, ObjectPartRow, ObjectRow } from '../../storage/db/objects-repo.js';
import { ingestBody, type BodyInput, type IngestedBody } from './body-ingest.js';
import { NO_EVENTS, type EventSink } from '../events/event-sink.js';
import { ObjectLockService } from './object-lock-service.js';
import type { HashPool } from '../../lib/hash-pool.js';
import { extentsOf, readExtents, ReadPins, type BlobExtent } from './object-reader.js';
import { ObjectAclService } from './object-acl-service.js';
import { ObjectTaggingService } from './object-tagging-service.js';
import type { DeleteAuthorizer } from './delete-authorizer.js';
import { assertRemovable, checkVersionId, getBucket, getObjectVersion, type VersionTarget } from './object-versions.js';
import { NO_LEASE, type WriteLease, type WriteReserve } from './write-reserve.js';
import { chargeQuota, NO_QUOTA_LEASE, quotaCommitCheck, type QuotaGate, type QuotaLease } from './quota-gate.js';

export type {
  ObjectHeaders,
  ObjectRow,
  ObjectPartRow,
  BodyInput,
  ReadConditions,
  RequestedObjectLock,
  TagSet,
  VersionTarget,
};

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
  /** x-amz-tagging. */
  tags?: TagSet | undefined;
  /** x-amz-object-lock-* (the bucket must have object lock). */
  lock?: RequestedObjectLock | undefined;
  /** x-amz-storage-class (default STANDARD). */
  storageClass?: StorageClass | undefined;
  /** The version's ACL (checked against the bucket by the caller, core/acl/acl-write.ts). */
  acl?: Acl | undefined;
}

/** An open object version: its row, its byte extents, and a way to stream any range of it. */
export interface OpenedObject {
  row: ObjectRow;
  parts: ObjectPartRow[];
  stream(range?: { start: number; end: number }): Readable;
  /**
   * The bytes a GET sends: an inline object's are decrypted and authenticated at once (a small object needs no
   * stream, and a damaged one throws BlobCorruptError here), and so are a file blob's that fits one read (a promise,
   * which rejects with BlobCorruptError); any other object's come from stream(range).
   */
  body(range?: { start: number; end: number }): Buffer | Readable | Promise<Buffer | Readable>;
}

/**
 * Streams the bytes of a tiered version whose bytes live only on the remote target (a stub): internal readers
 * (copy, admin downloads, replication, backups, scrubs) read through it without rehydrating (docs/replication.md).
 */
export interface StubReader {
  stream(row: ObjectRow, range?: { start: number; end: number }): Readable;
}

export interface DeleteResult {
  versionId: string | undefined;
  deleteMarker: boolean;
}

/** One entry of a batch delete: the key's latest version (per the bucket's versioning), or exactly one version. */
export interface BatchDeleteItem {
  key: string;
  versionId?: string | undefined;
}

/** The outcome of one batch entry: what delete() returned, or the client error it threw. */
export type BatchDeleteOutcome =
  | { item: BatchDeleteItem; ok: true; result: DeleteResult }
  | { item: BatchDeleteItem; ok: false; code: ErrorCode; message: string };

export interface DeleteOptions {
  /** x-amz-bypass-governance-retention: true (the caller has checked the key may bypass). */
  bypassGovernance?: boolean;
}

export interface BatchDeleteOptions extends DeleteOptions {
  /** Required, so that no caller can delete keys without deciding who may delete each one. */
  authorize: DeleteAuthorizer;
}

export interface ObjectServiceOptions {
  meta: MetadataStore;
  blobs: BlobStore;
  pins: ReadPins;
  now?: () => number;
  /** Told of every committed version and delete, inside the transaction and after it (events/event-sink.ts). */
  events?: EventSink;
  /** Threads for the MD5 of large bodies (lib/hash-pool.ts); without them it runs on the event loop. */
  hashes?: HashPool | undefined;
  /**
   * Told when reading a version's bytes fails (the integrity service marks a BlobCorruptError corrupt). Called only
   * on a failure: a successful read costs one listener.
   */
  onReadError?: (row: ObjectRow, err: unknown) => void;
  /**
   * The data volume's free-space reserve (write-reserve.ts); without it, writes are refused only when the disk is full.
   */
  reserve?: WriteReserve | undefined;
  /** How tiered stubs' bytes are read (tiering/stub-reader.ts); without it, reading a stub fails InvalidObjectState. */
  stubReader?: StubReader | undefined;
  /**
   * Per-bucket quotas' holds for writes in flight (quota-gate.ts); without it, quotas are still checked by each
   * commit, but concurrent writers are not held back before their bodies are read.
   */
  quotas?: QuotaGate | undefined;
}

/** True when a request carries any x-amz-object-lock-* setting (which needs a bucket with object lock). */
export function hasLockSettings(lock: RequestedObjectLock | undefined): boolean {
  return lock !== undefined && (lock.retention !== undefined || lock.legalHold !== undefined);
}

/** A requested lock as version row fields. */
export function lockFields(lock: RequestedObjectLock | undefined): Pick<NewObjectRow, 'retention' | 'legalHold'> {
  return { retention: lock?.retention, legalHold: lock?.legalHold === 'ON' };
}

export class ObjectService {
  private readonly meta: MetadataStore;
  private readonly blobs: BlobStore;
  private readonly pins: ReadPins;
  private readonly now: () => number;
  private readonly events: EventSink;
  private readonly hashes: HashPool | undefined;
  private readonly onReadError: ((row: ObjectRow, err: unknown) => void) | undefined;
  private readonly reserve: WriteReserve | undefined;
  /** Put/Get/DeleteObjectTagging. */
  readonly tagging: ObjectTaggingService;
  readonly acl: ObjectAclService;
  /** Retention and legal hold of versions. */
  readonly lock: ObjectLockService;
  private readonly stubReader: StubReader | undefined;
  private readonly quotas: QuotaGate | undefined;

  constructor(opts: ObjectServiceOptions) {
    this.meta = opts.meta;
    this.blobs = opts.blobs;
    this.pins = opts.pins;
    this.now = opts.now ?? Date.now;
    this.events = opts.events ?? NO_EVENTS;
    this.hashes = opts.hashes;
    this.onReadError = opts.onReadError;
    this.reserve = opts.reserve;
    this.stubReader = opts.stubReader;
    this.quotas = opts.quotas;
    this.acl = new ObjectAclService(this.meta, (bucket, key) => this.events.aclChanged?.(bucket, key));
    this.tagging = new ObjectTaggingService(this.meta, (bucket, key) => this.events.tagsChanged?.(bucket, key));
    this.lock = new ObjectLockService(this.meta, this.now);
  }

  /**
   * Admits a write of `bytes` new object bytes (undefined when unknown, 0 for none, as a multipart completion) against
   * the data volume's free-space reserve, and returns its lease: the body's bytes are charged to it as they arrive
   * (ingestBody), and it ends once they are staged or discarded. Throws InsufficientStorage (507) when the write would
   * take the volume under the reserve. Every client write (PUT, POST, copy, part upload, completion, admin upload)
   * calls it before reading its body.
   */
  async admitWrite(bytes: number | undefined, quota: QuotaLease = NO_QUOTA_LEASE): Promise<WriteLease> {
    await this.quotas?.admitted(quota);
    return this.reserve?.admit(bytes) ?? NO_LEASE;
  }

  /**
   * Admits a write of `bytes` (undefined when unknown) to `key` against its bucket's quota (quota-gate.ts): its net
   * growth is held until the caller releases the lease, once the write has committed or failed. Throws QuotaExceeded.
   * Synchronous, so that a copy admits in the tick of its source's lookup.
   */
  admitQuota(bucket: BucketRow, key: string, bytes: number | undefined): QuotaLease {
    if (this.quotas === undefined || bucket.config.quota === undefined) return NO_QUOTA_LEASE;
    const current = this.meta.objects.findLatest(bucket.name, key);
    const replaced = writeReplacesNullVersion(bucket.versioning)
      ? this.meta.objects.findVersion(bucket.name, key, NULL_VERSION_ID)
      : undefined;
    return this.quotas.admit(bucket, {
      bytes,
      replacedBytes: replaced?.size ?? 0,
      isNewObject: current === undefined || current.isDeleteMarker,
    });
  }

  /** admitQuota() for a part (replacing a part uploaded before frees its bytes); see MultipartService. */
  admitPartQuota(bucket: BucketRow, bytes: number | undefined, replacedBytes: number): QuotaLease {
    return this.quotas?.admit(bucket, { bytes, replacedBytes, isNewObject: false }) ?? NO_QUOTA_LEASE;
  }

  /**
   * admitWrite() for a copy, whose source stream the caller opened in the tick of its lookup, before anything awaits:
   * an overwrite of the source committing meanwhile drops an inline source's bytes with its old version (only pinned
   * file blobs outlive theirs). The stream is destroyed if the write is refused; an error it meets while this waits
   * stays on it for its reader.
   */
  async admitCopy(source: Readable, bytes: number, quota: QuotaLease = NO_QUOTA_LEASE): Promise<WriteLease> {
    const held = (): void => undefined;
    source.on('error', held);
    try {
      return await this.admitWrite(bytes, quota);
    } catch (err) {
      source.destroy();
      throw err;
    } finally {
      source.off('error', held);
    }
  }

  private bucket(name: string): BucketRow {
    return getBucket(this.meta, name);
  }

  /** Fails fast, before any body is read, for lock headers on a bucket without object lock (InvalidRequest). */
  private checkLockRequest(bucket: BucketRow, lock: RequestedObjectLock | undefined): void {
    if (hasLockSettings(lock)) checkObjectLockEnabled(bucket.objectLock);
  }

  /**
   * Stores an object as the key's new current version. Throws NoSuchBucket, KeyTooLongError, EntityTooLarge,
   * IncompleteBody, BadDigest, XAmzContentSHA256Mismatch, PreconditionFailed (conditional writes), NoSuchKey (If-Match
   * on a missing key), InvalidRequest (lock settings on a bucket without object lock), InsufficientStorage (the
   * free-space reserve), QuotaExceeded (the bucket's quota).
   */
  async put(input: PutObjectInput): Promise<ObjectRow> {
    validateObjectKey(input.key);
    const bucket = this.bucket(input.bucket);
    this.checkLockRequest(bucket, input.lock);
    if (input.conditions) this.checkWriteConditions(input.bucket, input.key, input.conditions);
    if (input.body.size !== undefined && input.body.size > MAX_PUT_BYTES) throw new AppError('EntityTooLarge');
    const quota = this.admitQuota(bucket, input.key, input.body.size);
    try {
      const lease = await this.admitWrite(input.body.size, quota);
      const body = await ingestBody(this.blobs, input.body, {
        maxSize: MAX_PUT_BYTES,
        allowInline: true,
        hashes: this.hashes,
        lease: chargeQuota(lease, quota),
      });
      return await this.commitPut(input, body, quota);
    } finally {
      quota.release();
    }
  }

  private commitPut(input: PutObjectInput, body: IngestedBody, quota: QuotaLease): Promise<ObjectRow> {
    return this.commitVersion(
      body.staged,
      {
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
        storageClass: input.storageClass ?? 'STANDARD',
        tags: input.tags,
        acl: input.acl,
        ...lockFields(input.lock),
      },
      { conditions: input.conditions, quota },
    );
  }

  /**
   * Makes a staged blob durable, then commits it as the key's new current version in one transaction, re-checking
   * write conditions inside it (so two racing conditional writes cannot both win). The version id follows the
   * bucket's versioning state; a version without an explicit retention gets the bucket's default retention. The
   * staged blob is discarded if the commit fails. Emits `object.created`, or `multipart.completed` for a version
   * assembled from parts, through the event sink (in the transaction, then after it). Throws InvalidRequest for a
   * retention or legal hold on a bucket without object lock, AccessDenied if the `null` version it would replace
   * is locked.
   */
  async commitVersion(
    staged: StagedBlob | undefined,
    fields: Omit<NewObjectRow, 'versionId' | 'isLatest' | 'isDeleteMarker' | 'lastModified'>,
    opts: {
      conditions?: WriteConditions | undefined;
      parts?: readonly ObjectPartRow[];
      inTransaction?: (row: NewObjectRow) => void;
      /** The write's hold on the bucket's quota: released in the transaction, where the usage takes its place. */
      quota?: QuotaLease;
    } = {},
  ): Promise<ObjectRow> {
    const { conditions, parts = [], inTransaction, quota } = opts;
    let blobCommitted = false;
    try {
      await staged?.commit();
      blobCommitted = true;
      const commit = (): { row: ObjectRow; event: ObjectEvent } => {
        const bucket = this.bucket(fields.bucket);
        if (fields.retention !== undefined || fields.legalHold) checkObjectLockEnabled(bucket.objectLock);
        if (conditions) this.checkWriteConditions(fields.bucket, fields.key, conditions);
        const now = this.now();
        const row: NewObjectRow = {
          ...fields,
          retention:
            fields.retention ??
            (bucket.objectLock ? defaultRetentionFor(bucket.config.objectLock, new Date(now)) : undefined),
          versionId: versionIdForWrite(bucket.versioning, uuidv7),
          isLatest: true,
          isDeleteMarker: false,
          lastModified: now,
        };
        // The quota is checked on the change itself, in the transaction that makes it (docs/quotas.md).
        const id = quotaCommitCheck(this.meta, bucket, () => {
          this.replaceCurrent(bucket, fields.key, now);
          if (staged?.sealed) this.meta.inlineBlobs.insert(staged.id, staged.sealed);
          const inserted = this.meta.objects.insert(row);
          if (parts.length > 0) this.meta.objects.insertParts(inserted, parts);
          inTransaction?.(row);
          return inserted;
        });
        quota?.release();
        // A version assembled from parts is a CompleteMultipartUpload: put and copy never set partCount.
        const type = fields.partCount !== undefined ? 'multipart.completed' : 'object.created';
        const event = objectEvent(type, { ...row, time: now }, bucket.versioning);
        this.events.inTransaction(event);
        return { row: { ...row, id }, event };
      };
      // Batched with other writers' commits: the body runs later, so it is bound to this caller's request origin.
      const committed = await this.meta.transactionShared(this.events.bindToCaller?.(commit) ?? commit);
      this.events.afterCommit(committed.event);
      return committed.row;
    } catch (err) {
      // A blob already in place but refused by the transaction (a lost conditional-write race) is unreferenced:
      // remove it now rather than leave it to the next boot's orphan sweep. An inline blob's row rolled back with it.
      if (staged && !staged.sealed) await (blobCommitted ? this.blobs.remove(staged.id) : staged.discard());
      throw err;
    }
  }

  /**
   * Makes room for a new current version: clears the latest flag and, where the write replaces the `null` version
   * (unversioned or suspended bucket), drops that version wherever it sits in the stack and queues its bytes for GC.
   * Call inside a transaction. Throws AccessDenied if that `null` version is locked.
   */
  private replaceCurrent(bucket: BucketRow, key: string, now: number): void {
    if (writeReplacesNullVersion(bucket.versioning)) {
      const existingNull = this.meta.objects.findVersion(bucket.name, key, NULL_VERSION_ID);
      if (existingNull) {
        assertRemovable(existingNull, { bypassGovernance: false, now });
        this.dropVersion(existingNull);
      }
    }
    this.meta.objects.clearLatest(bucket.name, key);
  }

  /**
   * Deletes a version row and releases its blobs (inline: deleted; files: queued for GC). Call inside a transaction.
   */
  private dropVersion(row: ObjectRow): void {
    const now = this.now();
    for (const extent of extentsOf(row, row.blobId ? [] : this.meta.objects.parts(row.id))) {
      this.meta.releaseBlob(extent.blobId, now);
    }
    this.meta.objects.delete(row.id);
  }

  private checkWriteConditions(bucket: string, key: string, c: WriteConditions): void {
    // Most writes carry neither header (the S3 handler always passes both fields): no lookup then.
    if (c.ifNoneMatch === undefined && c.ifMatch === undefined) return;
    const current = this.meta.objects.findLatest(bucket, key);
    const exists = current !== undefined && !current.isDeleteMarker;
    if (c.ifNoneMatch !== undefined) {
      if (c.ifNoneMatch.trim() !== '*') {
        throw new AppError('NotImplemented', { message: 'If-None-Match on writes supports only "*".' });
      }
      if (exists) throw new AppError('PreconditionFailed', { details: { Condition: 'If-None-Match' } });
    }
    if (c.ifMatch !== undefined) {
      if (!exists) throw new AppError('NoSuchKey', { resource: `/${bucket}/${key}`, details: { Key: key } });
      if (!etagMatches(c.ifMatch, current.etag))
        throw new AppError('PreconditionFailed', { details: { Condition: 'If-Match' } });
    }
  }

  /**
   * Looks up a version for reading. Throws NoSuchBucket, NoSuchKey (missing or a delete marker), InvalidArgument
   * (malformed version id), NoSuchVersion, MethodNotAllowed (a delete marker addressed by version),
   * PreconditionFailed / NotModified.
   */
  open(
    bucket: string,
    key: string,
    opts: { versionId?: string | undefined; conditions?: ReadConditions } = {},
  ): OpenedObject {
    this.bucket(bucket);
    const row = getObjectVersion(this.meta, { bucket, key, versionId: opts.versionId });
    if (opts.conditions) checkReadConditions(opts.conditions, row);
    const parts = row.blobId === undefined && row.partCount ? this.meta.objects.parts(row.id) : [];
    const opened: OpenedObject = {
      row,
      parts,
      // Extents (and an inline blob's bytes) are read when the body is wanted, so HEAD and metadata reads skip them.
      stream: (range) => {
        if (row.tierState === 'stub') return this.streamStub(row, range);
        const onReadError = this.onReadError;
        let extents: BlobExtent[];
        try {
          extents = extentsOf(row, parts, this.inlineBytes(row.blobId));
        } catch (err) {
          onReadError?.(row, err);
          throw err;
        }
        const stream = readExtents({ blobs: this.blobs, pins: this.pins }, extents, range);
        if (onReadError) stream.once('error', (err) => onReadError(row, err));
        return stream;
      },
      body: (range) => {
        const blobId = row.blobId;
        if (row.tierState === 'stub' || blobId === undefined) return opened.stream(range);
        if (!isInlineBlobId(blobId)) {
          return this.blobs.fitsOneRead(row.size) ? this.readFileAtOnce(opened, range) : opened.stream(range);
        }
        try {
          return this.blobs.readSealed(blobId, {
            size: row.size,
            start: range?.start,
            end: range?.end,
            sealed: this.sealedBytes(blobId),
          });
        } catch (err) {
          this.onReadError?.(row, err);
          throw err;
        }
      },
    };
    return opened;
  }

  /**
   * A file blob that fits one read, read whole and authenticated before the status line (docs/performance.md, "Medium
   * objects"); streamed when the blob store declines. Call in the tick of the lookup: the pin is taken synchronously
   * and held until the file is read.
   */
  private async readFileAtOnce(
    opened: OpenedObject,
    range: { start: number; end: number } | undefined,
  ): Promise<Buffer | Readable> {
    const { row } = opened;
    const blobId = row.blobId as string;
    const release = this.pins.pin([blobId]);
    let bytes: Buffer | undefined;
    try {
      bytes = await this.blobs.readAtOnce(blobId, { size: row.size, start: range?.start, end: range?.end });
    } catch (err) {
      this.onReadError?.(row, err);
      throw err;
    } finally {
      release();
    }
    return bytes ?? opened.stream(range);
  }

  /** A stub's bytes from the remote; without tiering (turned off since) an error stream: InvalidObjectState. */
  private streamStub(row: ObjectRow, range: { start: number; end: number } | undefined): Readable {
    if (this.stubReader) return this.stubReader.stream(row, range);
    const err = new AppError('InvalidObjectState', {
      message: 'The object is tiered to the remote target and tiering is not enabled.',
    });
    return new Readable({
      read() {
        this.destroy(err);
      },
    });
  }

  /** An inline blob's sealed bytes (read when the body is wanted); undefined for a file blob or none. */
  private inlineBytes(blobId: string | undefined): Buffer | undefined {
    return blobId === undefined || !isInlineBlobId(blobId) ? undefined : this.sealedBytes(blobId);
  }

  /** The sealed bytes of an inline blob id. Throws BlobCorruptError('missing') when its row is gone. */
  private sealedBytes(inlineBlobId: string): Buffer {
    const sealed = this.meta.inlineBlobs.get(inlineBlobId);
    if (sealed === undefined) throw new BlobCorruptError('missing', inlineBlobId);
    return sealed;
  }

  /**
   * Opens the source of a copy (CopyObject, UploadPartCopy). As S3: a delete marker named by version id is
   * InvalidRequest rather than 405. Otherwise the errors of open().
   */
  openCopySource(source: VersionTarget): OpenedObject {
    try {
      return this.open(source.bucket, source.key, { versionId: source.versionId });
    } catch (err) {
      if (err instanceof AppError && err.code === 'MethodNotAllowed') {
        throw new AppError('InvalidRequest', {
          message: 'The source of a copy request may not specifically refer to a delete marker by version id.',
        });
      }
      throw err;
    }
  }

  /**
   * DeleteObject. Without a versionId it follows the bucket's versioning state (core/versioning simpleDeletePlan):
   * unversioned removes the object, Enabled adds a delete marker (S3 adds one even for a missing key), Suspended
   * replaces the `null` version with a `null` delete marker. With a versionId it removes exactly that version
   * (success for one that does not exist, as S3); removing the current version promotes the next newest, so
   * deleting a delete marker restores the object. A call that changed something emits one `object.deleted`
   * (docs/events.md). Throws NoSuchBucket, KeyTooLongError, InvalidArgument (malformed
   * version id), AccessDenied (object lock: retention or legal hold, checked in the transaction).
   */
  delete(bucket: string, key: string, opts: DeleteOptions & { versionId?: string | undefined } = {}): DeleteResult {
    const { versionId } = opts;
    validateObjectKey(key);
    if (versionId !== undefined) checkVersionId(versionId);
    const bypassGovernance = opts.bypassGovernance ?? false;
    const emitted: ObjectEvent[] = [];
    const result = this.meta.transaction((): DeleteResult => {
      const bucketRow = this.bucket(bucket);
      const now = this.now();
      // One object.deleted per call that changed something: the version removed, or the delete marker added.
      const deleted = (removed: { etag: string; versionId: string }): void => {
        const event = objectEvent(
          'object.deleted',
          { bucket, key, size: 0, etag: removed.etag, versionId: removed.versionId, time: now },
          bucketRow.versioning,
        );
        this.events.inTransaction(event);
        emitted.push(event);
      };
      if (versionId !== undefined) {
        const row = this.meta.objects.findVersion(bucket, key, versionId);
        if (!row) return { versionId, deleteMarker: false };
        assertRemovable(row, { bypassGovernance, now });
        this.dropVersion(row);
        if (row.isLatest) this.meta.objects.promoteNewest(bucket, key);
        deleted(row);
        return { versionId, deleteMarker: row.isDeleteMarker };
      }
      const plan = simpleDeletePlan(bucketRow.versioning, uuidv7);
      const nullRow = plan.removeNullVersion ? this.meta.objects.findVersion(bucket, key, NULL_VERSION_ID) : undefined;
      if (nullRow) {
        assertRemovable(nullRow, { bypassGovernance, now });
        this.dropVersion(nullRow);
      }
      if (plan.deleteMarkerVersionId === undefined) {
        if (nullRow) deleted(nullRow);
        return { versionId: undefined, deleteMarker: false };
      }
      this.meta.objects.clearLatest(bucket, key);
      this.meta.objects.insert({
        bucket,
        key,
        versionId: plan.deleteMarkerVersionId,
        isLatest: true,
        isDeleteMarker: true,
        size: 0,
        etag: '',
        lastModified: now,
        headers: {},
        userMeta: {},
        checksumAlgorithm: undefined,
        checksumValue: undefined,
        checksumType: undefined,
        blobId: undefined,
        partCount: undefined,
        storageClass: 'STANDARD',
      });
      deleted({ etag: '', versionId: plan.deleteMarkerVersionId });
      return { versionId: plan.deleteMarkerVersionId, deleteMarker: true };
    });
    for (const event of emitted) this.events.afterCommit(event);
    return result;
  }

  /**
   * DeleteObjects: every item authorized by `opts.authorize`, then deleted as delete() does it, in order, each in its
   * own transaction. A client error of one item (AccessDenied from the authorizer or for a version object lock
   * protects, KeyTooLongError, InvalidArgument) is its outcome and the others still go, as S3 answers. Throws
   * NoSuchBucket before any item, and rethrows server errors.
   */
  deleteBatch(bucket: string, items: readonly BatchDeleteItem[], opts: BatchDeleteOptions): BatchDeleteOutcome[] {
    this.bucket(bucket);
    const { authorize, ...deleteOpts } = opts;
    const bypassGovernance = deleteOpts.bypassGovernance ?? false;
    return items.map((item): BatchDeleteOutcome => {
      try {
        authorize({ bucket, key: item.key, versionId: item.versionId, bypassGovernance });
        return { item, ok: true, result: this.delete(bucket, item.key, { ...deleteOpts, versionId: item.versionId }) };
      } catch (err) {
        if (!isAppError(err) || err.statusCode >= 500) throw err;
        return { item, ok: false, code: err.code, message: err.message };
      }
    });
  }

  /**
   * CopyObject: reads a source version (checking x-amz-copy-source-if-* conditions, failures are 412) and writes it
   * as a new object, with the source's metadata (COPY) or the request's (REPLACE), and the source's tags (COPY) or
   * the request's (REPLACE). Lock settings are never copied: the new version gets the request's, or the bucket's
   * default. Throws InvalidRequest for a copy onto itself that changes nothing (copying an older version over
   * the current one is a restore, and allowed), plus the errors of openCopySource() and put().
   */
  async copy(input: CopyObjectInput): Promise<{ row: ObjectRow; sourceVersionId: string }> {
    validateObjectKey(input.key);
    const bucket = this.bucket(input.bucket);
    this.checkLockRequest(bucket, input.lock);
    const source = this.openCopySource(input.source);
    checkReadConditions(input.sourceConditions ?? {}, source.row, true);
    const replace = input.metadataDirective === 'REPLACE';
    const sameObject = input.source.bucket === input.bucket && input.source.key === input.key && source.row.isLatest;
    if (sameObject && !replace && input.checksumAlgorithm === undefined) {
      throw new AppError('InvalidRequest', {
        message:
          "This copy request is illegal because it is trying to copy an object to itself without changing the object's metadata, storage class, website redirect location or encryption attributes.",
      });
    }
    const algorithm = input.checksumAlgorithm ?? source.row.checksumAlgorithm;
    const quota = this.admitQuota(bucket, input.key, source.row.size);
    try {
      return await this.copyAdmitted(input, { source, algorithm, quota });
    } finally {
      quota.release();
    }
  }

  private async copyAdmitted(
    input: CopyObjectInput,
    admitted: { source: OpenedObject; algorithm: ChecksumAlgorithm | undefined; quota: QuotaLease },
  ): Promise<{ row: ObjectRow; sourceVersionId: string }> {
    const { source, algorithm, quota } = admitted;
    const replace = input.metadataDirective === 'REPLACE';
    const sourceBytes = source.stream();
    const lease = await this.admitCopy(sourceBytes, source.row.size, quota);
    const body = await ingestBody(
      this.blobs,
      {
        source: sourceBytes,
        size: source.row.size,
        checksum: algorithm ? { algorithm, expected: undefined } : undefined,
      },
      { maxSize: MAX_PUT_BYTES, allowInline: true, hashes: this.hashes, lease: chargeQuota(lease, quota) },
    );
    const row = await this.commitVersion(
      body.staged,
      {
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
        // As AWS: a copy is STANDARD unless the request names a class (the source's is not carried over).
        storageClass: input.storageClass ?? 'STANDARD',
        tags: input.taggingDirective === 'REPLACE' ? input.tags : source.row.tags,
        // As AWS: a copy gets the ACL its request names (default private), never the source's.
        acl: input.acl,
        ...lockFields(input.lock),
      },
      { quota },
    );
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
  /** x-amz-tagging-directive (default COPY: the source's tags). */
  taggingDirective?: 'COPY' | 'REPLACE';
  /** Used with tagging directive REPLACE. */
  tags?: TagSet | undefined;
  lock?: RequestedObjectLock | undefined;
  /** x-amz-storage-class of the copy (default STANDARD). */
  storageClass?: StorageClass | undefined;
  /** The copy's ACL (default: private). */
  acl?: Acl | undefined;
}
