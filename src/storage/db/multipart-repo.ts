// Multipart uploads in progress and their parts. Completing moves part blobs into object_parts (no byte copy).

import type { Acl } from '../../core/acl/acl.js';
import type { ChecksumAlgorithm, ChecksumType } from '../../core/checksums.js';
import type { RequestedObjectLock } from '../../core/object-lock.js';
import type { TagSet } from '../../core/tagging.js';
import type { Db } from './database.js';
import type { ObjectHeaders } from './objects-repo.js';
import { tagsOf } from './lock-columns.js';

export interface UploadRow {
  uploadId: string;
  bucket: string;
  key: string;
  initiated: number;
  headers: ObjectHeaders;
  userMeta: Record<string, string>;
  checksumAlgorithm: ChecksumAlgorithm | undefined;
  checksumType: ChecksumType | undefined;
  storageClass: string;
  /** x-amz-tagging of CreateMultipartUpload, applied to the object at completion. */
  tags?: TagSet | undefined;
  /** x-amz-object-lock-* of CreateMultipartUpload, applied to the object at completion. */
  lock?: RequestedObjectLock | undefined;
  /** x-amz-acl / x-amz-grant-* of CreateMultipartUpload, applied to the object at completion. */
  acl?: Acl | undefined;
}

export interface UploadPartRow {
  partNumber: number;
  blobId: string;
  size: number;
  /** Hex MD5 of the part, unquoted. */
  etag: string;
  /** Checksums computed or verified for the part, by algorithm (base64). */
  checksums: Record<string, string>;
  lastModified: number;
}

interface RawUpload {
  upload_id: string;
  bucket: string;
  key: string;
  initiated: number;
  headers: string | null;
  user_meta: string | null;
  checksum_algorithm: ChecksumAlgorithm | null;
  checksum_type: ChecksumType | null;
  storage_class: string;
  tags: string | null;
  lock: string | null;
  acl: string | null;
}

interface RawPart {
  part_number: number;
  blob_id: string;
  size: number;
  etag: string;
  checksums: string | null;
  last_modified: number;
}

function toUpload(raw: RawUpload): UploadRow {
  return {
    uploadId: raw.upload_id,
    bucket: raw.bucket,
    key: raw.key,
    initiated: raw.initiated,
    headers: raw.headers ? (JSON.parse(raw.headers) as ObjectHeaders) : {},
    userMeta: raw.user_meta ? (JSON.parse(raw.user_meta) as Record<string, string>) : {},
    checksumAlgorithm: raw.checksum_algorithm ?? undefined,
    checksumType: raw.checksum_type ?? undefined,
    storageClass: raw.storage_class,
    tags: tagsOf(raw.tags),
    lock: raw.lock ? (JSON.parse(raw.lock) as RequestedObjectLock) : undefined,
    acl: raw.acl ? (JSON.parse(raw.acl) as Acl) : undefined,
  };
}

function toPart(raw: RawPart): UploadPartRow {
  return {
    partNumber: raw.part_number,
    blobId: raw.blob_id,
    size: raw.size,
    etag: raw.etag,
    checksums: raw.checksums ? (JSON.parse(raw.checksums) as Record<string, string>) : {},
    lastModified: raw.last_modified,
  };
}

export class MultipartRepo {
  private readonly findStmt;
  private readonly insertStmt;
  private readonly deleteStmt;
  private readonly listStmt;
  private readonly partStmt;
  private readonly partsStmt;
  private readonly partsPageStmt;
  private readonly upsertPartStmt;
  private readonly partBlobRefStmt;

  constructor(db: Db) {
    this.findStmt = db.prepare<[string], RawUpload>('SELECT * FROM multipart_uploads WHERE upload_id = ?');
    this.insertStmt = db.prepare(
      `INSERT INTO multipart_uploads (upload_id, bucket, key, initiated, headers, user_meta, checksum_algorithm, checksum_type, storage_class,
         tags, lock, acl)
       VALUES (@uploadId, @bucket, @key, @initiated, @headers, @userMeta, @checksumAlgorithm, @checksumType, @storageClass,
         @tags, @lock, @acl)`,
    );
    this.deleteStmt = db.prepare<[string]>('DELETE FROM multipart_uploads WHERE upload_id = ?');
    // instr(key, prefix) = 1 is "starts with" for any text (substr would count characters, JavaScript UTF-16 units).
    this.listStmt = db.prepare<[string, string, string, string, string, string, number], RawUpload>(
      `SELECT * FROM multipart_uploads WHERE bucket = ? AND (? = '' OR instr(key, ?) = 1)
         AND (key > ? OR (key = ? AND upload_id > ?))
       ORDER BY key, upload_id LIMIT ?`,
    );
    this.partStmt = db.prepare<[string, number], RawPart>(
      'SELECT * FROM upload_parts WHERE upload_id = ? AND part_number = ?',
    );
    this.partsStmt = db.prepare<[string], RawPart>(
      'SELECT * FROM upload_parts WHERE upload_id = ? ORDER BY part_number',
    );
    this.partsPageStmt = db.prepare<[string, number, number], RawPart>(
      'SELECT * FROM upload_parts WHERE upload_id = ? AND part_number > ? ORDER BY part_number LIMIT ?',
    );
    this.upsertPartStmt = db.prepare(
      `INSERT INTO upload_parts (upload_id, part_number, blob_id, size, etag, checksums, last_modified)
       VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (upload_id, part_number) DO UPDATE SET blob_id = excluded.blob_id, size = excluded.size,
         etag = excluded.etag, checksums = excluded.checksums, last_modified = excluded.last_modified`,
    );
    this.partBlobRefStmt = db.prepare<[string], { one: number }>(
      'SELECT 1 AS one FROM upload_parts WHERE blob_id = ? LIMIT 1',
    );
  }

  find(uploadId: string): UploadRow | undefined {
    const raw = this.findStmt.get(uploadId);
    return raw ? toUpload(raw) : undefined;
  }

  insert(row: UploadRow): void {
    this.insertStmt.run({
      ...row,
      headers: Object.keys(row.headers).length > 0 ? JSON.stringify(row.headers) : null,
      userMeta: Object.keys(row.userMeta).length > 0 ? JSON.stringify(row.userMeta) : null,
      checksumAlgorithm: row.checksumAlgorithm ?? null,
      checksumType: row.checksumType ?? null,
      tags: row.tags && row.tags.length > 0 ? JSON.stringify(row.tags) : null,
      lock: row.lock && Object.keys(row.lock).length > 0 ? JSON.stringify(row.lock) : null,
      acl: row.acl ? JSON.stringify(row.acl) : null,
    });
  }

  /** Removes the upload and its part rows (the caller queues their blobs for deletion first). */
  delete(uploadId: string): void {
    this.deleteStmt.run(uploadId);
  }

  /** Uploads of keys starting with `prefix`, after (keyMarker, uploadIdMarker) in key then upload-id order. */
  list(
    bucket: string,
    prefix: string,
    { keyMarker, uploadIdMarker, limit }: { keyMarker: string; uploadIdMarker: string; limit: number },
  ): UploadRow[] {
    return this.listStmt.all(bucket, prefix, prefix, keyMarker, keyMarker, uploadIdMarker, limit).map(toUpload);
  }

  findPart(uploadId: string, partNumber: number): UploadPartRow | undefined {
    const raw = this.partStmt.get(uploadId, partNumber);
    return raw ? toPart(raw) : undefined;
  }

  parts(uploadId: string): UploadPartRow[] {
    return this.partsStmt.all(uploadId).map(toPart);
  }

  partsPage(uploadId: string, afterPartNumber: number, limit: number): UploadPartRow[] {
    return this.partsPageStmt.all(uploadId, afterPartNumber, limit).map(toPart);
  }

  /** Records a part; an earlier upload of the same part number is replaced (the caller frees its blob). */
  upsertPart(uploadId: string, part: UploadPartRow): void {
    const checksums = Object.keys(part.checksums).length > 0 ? JSON.stringify(part.checksums) : null;
    this.upsertPartStmt.run(uploadId, part.partNumber, part.blobId, part.size, part.etag, checksums, part.lastModified);
  }

  isBlobReferenced(blobId: string): boolean {
    return this.partBlobRefStmt.get(blobId) !== undefined;
  }
}
