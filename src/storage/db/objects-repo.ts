// Object version rows (one row per version or delete marker), their multipart part lists, and blob references.
// A full row's columns, decoder and insert come from one column map (object-columns.ts).
// Listing is an index seek on (bucket, key): a page costs the same whatever the bucket's size.

import type { ChecksumAlgorithm, ChecksumType } from '../../core/checksums.js';
import type { ObjectRetention } from '../../core/object-lock.js';
import type { Acl } from '../../core/acl/acl.js';
import type { TagSet } from '../../core/tagging.js';
import type { Db } from './database.js';
import {
  lookedUpRowOf,
  OBJECT_INSERT,
  OBJECT_LOOKUP_SELECT,
  objectInsertValues,
  type LookupValues,
  type NewObjectRow,
  type ObjectRow,
} from './object-columns.js';

export type { NewObjectRow, ObjectHeaders, ObjectRow, ObjectValues, TierState } from './object-columns.js';
export { OBJECT_SELECT, objectRowOf } from './object-columns.js';

export interface ObjectPartRow {
  partNumber: number;
  blobId: string;
  size: number;
  etag: string;
  checksum: string | undefined;
}

/** A listing row: just what ListObjects needs. */
export interface ListedObject {
  key: string;
  size: number;
  etag: string;
  lastModified: number;
  storageClass: string;
  checksumAlgorithm: ChecksumAlgorithm | undefined;
}

/** A ListObjectVersions row: a version or a delete marker, with its commit sequence number for paging. */
export interface ListedVersion {
  id: number;
  key: string;
  versionId: string;
  isLatest: boolean;
  isDeleteMarker: boolean;
  size: number;
  etag: string;
  lastModified: number;
  storageClass: string;
  checksumAlgorithm: ChecksumAlgorithm | undefined;
  checksumType: ChecksumType | undefined;
}

interface RawVersion extends RawListed {
  id: number;
  version_id: string;
  is_latest: number;
  is_delete_marker: number;
  checksum_type: ChecksumType | null;
}

interface RawListed {
  key: string;
  size: number;
  etag: string;
  last_modified: number;
  storage_class: string;
  checksum_algorithm: ChecksumAlgorithm | null;
}

function toListedVersion(r: RawVersion): ListedVersion {
  return {
    id: r.id,
    key: r.key,
    versionId: r.version_id,
    isLatest: r.is_latest === 1,
    isDeleteMarker: r.is_delete_marker === 1,
    size: r.size,
    etag: r.etag,
    lastModified: r.last_modified,
    storageClass: r.storage_class,
    checksumAlgorithm: r.checksum_algorithm ?? undefined,
    checksumType: r.checksum_type ?? undefined,
  };
}

/** A listing page: keys after `bound` (or from it when `inclusive`), at most `limit`. */
export interface ListBound {
  bound: string;
  inclusive: boolean;
  limit: number;
}

export class ObjectsRepo {
  private readonly latestStmt;
  private readonly versionStmt;
  private readonly insertStmt;
  private readonly clearLatestStmt;
  private readonly deleteStmt;
  private readonly promoteStmt;
  private readonly setTagsStmt;
  private readonly setAclStmt;
  private readonly setRetentionStmt;
  private readonly setLegalHoldStmt;
  private readonly partsStmt;
  private readonly insertPartStmt;
  private readonly listAfterStmt;
  private readonly listFromStmt;
  private readonly versionsAfterStmt;
  private readonly versionsFromStmt;
  private readonly versionsOfKeyStmt;
  private readonly blobRefStmt;
  private readonly partBlobRefStmt;

  constructor(db: Db) {
    this.latestStmt = db
      .prepare<[string, string], LookupValues>(
        `SELECT ${OBJECT_LOOKUP_SELECT} FROM objects WHERE bucket = ? AND key = ? AND is_latest = 1`,
      )
      .raw(true);
    this.versionStmt = db
      .prepare<[string, string, string], LookupValues>(
        `SELECT ${OBJECT_LOOKUP_SELECT} FROM objects WHERE bucket = ? AND key = ? AND version_id = ?`,
      )
      .raw(true);
    this.insertStmt = db.prepare<[ReturnType<typeof objectInsertValues>]>(OBJECT_INSERT);
    this.clearLatestStmt = db.prepare<[string, string]>(
      'UPDATE objects SET is_latest = 0 WHERE bucket = ? AND key = ? AND is_latest = 1',
    );
    this.deleteStmt = db.prepare<[number]>('DELETE FROM objects WHERE id = ?');
    this.setTagsStmt = db.prepare<[string | null, number]>('UPDATE objects SET tags = ? WHERE id = ?');
    this.setAclStmt = db.prepare<[string | null, number]>('UPDATE objects SET acl = ? WHERE id = ?');
    this.setRetentionStmt = db.prepare<[string | null, string | null, number]>(
      'UPDATE objects SET retention_mode = ?, retain_until = ? WHERE id = ?',
    );
    this.setLegalHoldStmt = db.prepare<[number, number]>('UPDATE objects SET legal_hold = ? WHERE id = ?');
    this.promoteStmt = db.prepare<[string, string]>(
      'UPDATE objects SET is_latest = 1 WHERE id = (SELECT id FROM objects WHERE bucket = ? AND key = ? ORDER BY id DESC LIMIT 1)',
    );
    this.partsStmt = db.prepare<
      [number],
      { part_number: number; blob_id: string; size: number; etag: string; checksum: string | null }
    >('SELECT part_number, blob_id, size, etag, checksum FROM object_parts WHERE object_id = ? ORDER BY part_number');
    this.insertPartStmt = db.prepare(
      'INSERT INTO object_parts (object_id, part_number, blob_id, size, etag, checksum) VALUES (?, ?, ?, ?, ?, ?)',
    );
    const listSql = (op: string) =>
      `SELECT key, size, etag, last_modified, storage_class, checksum_algorithm FROM objects INDEXED BY objects_current
       WHERE bucket = ? AND key ${op} ? AND is_latest = 1 AND is_delete_marker = 0 ORDER BY key LIMIT ?`;
    this.listAfterStmt = db.prepare<[string, string, number], RawListed>(listSql('>'));
    this.listFromStmt = db.prepare<[string, string, number], RawListed>(listSql('>='));
    // Versions newest first within each key: the objects_versions_newest_first index (bucket, key, id DESC) read in
    // order.
    const versionColumns =
      'id, key, version_id, is_latest, is_delete_marker, size, etag, last_modified, storage_class, checksum_algorithm, checksum_type';
    const versionsSql = (op: string) =>
      `SELECT ${versionColumns} FROM objects INDEXED BY objects_versions_newest_first
       WHERE bucket = ? AND key ${op} ? ORDER BY key, id DESC LIMIT ?`;
    this.versionsAfterStmt = db.prepare<[string, string, number], RawVersion>(versionsSql('>'));
    this.versionsFromStmt = db.prepare<[string, string, number], RawVersion>(versionsSql('>='));
    this.versionsOfKeyStmt = db.prepare<[string, string, number, number], RawVersion>(
      `SELECT ${versionColumns} FROM objects INDEXED BY objects_versions_newest_first
       WHERE bucket = ? AND key = ? AND id < ? ORDER BY id DESC LIMIT ?`,
    );
    this.blobRefStmt = db.prepare<[string], { one: number }>('SELECT 1 AS one FROM objects WHERE blob_id = ? LIMIT 1');
    this.partBlobRefStmt = db.prepare<[string], { one: number }>(
      'SELECT 1 AS one FROM object_parts WHERE blob_id = ? LIMIT 1',
    );
  }

  /** The latest version of a key (possibly a delete marker), or undefined. */
  findLatest(bucket: string, key: string): ObjectRow | undefined {
    const values = this.latestStmt.get(bucket, key);
    return values ? lookedUpRowOf(values, bucket, key) : undefined;
  }

  findVersion(bucket: string, key: string, versionId: string): ObjectRow | undefined {
    const values = this.versionStmt.get(bucket, key, versionId);
    return values ? lookedUpRowOf(values, bucket, key) : undefined;
  }

  /** Inserts a version row and returns its id (its commit sequence number). */
  insert(row: NewObjectRow): number {
    return Number(this.insertStmt.run(objectInsertValues(row)).lastInsertRowid);
  }

  clearLatest(bucket: string, key: string): void {
    this.clearLatestStmt.run(bucket, key);
  }

  /** Deletes a version row (its part rows go with it). */
  delete(id: number): void {
    this.deleteStmt.run(id);
  }

  setTags(id: number, tags: TagSet): void {
    this.setTagsStmt.run(tags.length > 0 ? JSON.stringify(tags) : null, id);
  }

  /** Sets a version's ACL (undefined: none stored, the owner's FULL_CONTROL). */
  setAcl(id: number, acl: Acl | undefined): void {
    this.setAclStmt.run(acl === undefined ? null : JSON.stringify(acl), id);
  }

  setRetention(id: number, retention: ObjectRetention | undefined): void {
    this.setRetentionStmt.run(retention?.mode ?? null, retention?.retainUntilDate ?? null, id);
  }

  setLegalHold(id: number, on: boolean): void {
    this.setLegalHoldStmt.run(on ? 1 : 0, id);
  }

  /** After the latest version was removed, the newest remaining version (if any) becomes latest. */
  promoteNewest(bucket: string, key: string): void {
    this.promoteStmt.run(bucket, key);
  }

  parts(objectId: number): ObjectPartRow[] {
    return this.partsStmt.all(objectId).map((p) => ({
      partNumber: p.part_number,
      blobId: p.blob_id,
      size: p.size,
      etag: p.etag,
      checksum: p.checksum ?? undefined,
    }));
  }

  insertParts(objectId: number, parts: readonly ObjectPartRow[]): void {
    for (const p of parts)
      this.insertPartStmt.run(objectId, p.partNumber, p.blobId, p.size, p.etag, p.checksum ?? null);
  }

  /**
   * Current (non-deleted) objects from `bound` on (key > bound, or key >= bound when inclusive),
   * in UTF-8 byte order (SQLite's BINARY collation, which is S3's listing order), at most `limit`.
   */
  listCurrent(bucket: string, { bound, inclusive, limit }: ListBound): ListedObject[] {
    const stmt = inclusive ? this.listFromStmt : this.listAfterStmt;
    return stmt.all(bucket, bound, limit).map((r) => ({
      key: r.key,
      size: r.size,
      etag: r.etag,
      lastModified: r.last_modified,
      storageClass: r.storage_class,
      checksumAlgorithm: r.checksum_algorithm ?? undefined,
    }));
  }

  /**
   * Versions and delete markers of keys from `bound` on (key > bound, or >= when inclusive), in key order (UTF-8
   * bytes) and newest first within a key, at most `limit`.
   */
  listVersions(bucket: string, { bound, inclusive, limit }: ListBound): ListedVersion[] {
    return (inclusive ? this.versionsFromStmt : this.versionsAfterStmt).all(bucket, bound, limit).map(toListedVersion);
  }

  /** The versions of one key older than the version with row id `beforeId`, newest first, at most `limit`. */
  listOlderVersions(
    bucket: string,
    key: string,
    { beforeId, limit }: { beforeId: number; limit: number },
  ): ListedVersion[] {
    return this.versionsOfKeyStmt.all(bucket, key, beforeId, limit).map(toListedVersion);
  }

  /** True when any committed version references the blob, directly or as a multipart part. */
  isBlobReferenced(blobId: string): boolean {
    return this.blobRefStmt.get(blobId) !== undefined || this.partBlobRefStmt.get(blobId) !== undefined;
  }
}
