// Object version rows (one row per version or delete marker), their multipart part lists, and blob references.
// Listing is an index seek on (bucket, key): a page costs the same whatever the bucket's size.

import type { ObjectRetention } from '../../core/object-lock.js';
import type { TagSet } from '../../core/tagging.js';
import type { Db } from './database.js';
import { retentionOf, tagsOf } from './lock-columns.js';

/** System metadata kept with each version, returned on GET/HEAD. */
export interface ObjectHeaders {
  contentType?: string;
  contentEncoding?: string;
  contentDisposition?: string;
  contentLanguage?: string;
  cacheControl?: string;
  expires?: string;
}

export interface ObjectRow {
  id: number;
  bucket: string;
  key: string;
  versionId: string;
  isLatest: boolean;
  isDeleteMarker: boolean;
  size: number;
  /** Hex MD5, or `<hex>-N` for multipart objects; never quoted. */
  etag: string;
  lastModified: number;
  headers: ObjectHeaders;
  userMeta: Record<string, string>;
  checksumAlgorithm: string | undefined;
  checksumValue: string | undefined;
  checksumType: 'FULL_OBJECT' | 'COMPOSITE' | undefined;
  /** Set for objects written in one piece; multipart objects have parts instead. */
  blobId: string | undefined;
  partCount: number | undefined;
  storageClass: string;
  /** Object tags (absent: none). */
  tags?: TagSet | undefined;
  /** Object lock retention of this version (absent: none). */
  retention?: ObjectRetention | undefined;
  legalHold?: boolean | undefined;
  /**
   * Tier residency (docs/replication.md "Tiering"): 'stub' when the bytes live only on the remote target, 'restored'
   * when they are local again and the remote copy is kept until `tierRestoredUntil`; absent when local only.
   */
  tierState?: 'stub' | 'restored' | undefined;
  /** The remote copy's key under the reserved tier prefix (with tierState). */
  tierKey?: string | undefined;
  /** Epoch ms: a restored version goes back to a stub after this. */
  tierRestoredUntil?: number | undefined;
  /** Hex SHA-256 of the plaintext, taken when the version was tiered: rehydration verifies it. */
  tierSha256?: string | undefined;
}

export type NewObjectRow = Omit<ObjectRow, 'id'>;

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
  checksumAlgorithm: string | undefined;
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
  checksumAlgorithm: string | undefined;
  checksumType: 'FULL_OBJECT' | 'COMPOSITE' | undefined;
}

interface RawVersion extends RawListed {
  id: number;
  version_id: string;
  is_latest: number;
  is_delete_marker: number;
  checksum_type: 'FULL_OBJECT' | 'COMPOSITE' | null;
}

interface RawListed {
  key: string;
  size: number;
  etag: string;
  last_modified: number;
  storage_class: string;
  checksum_algorithm: string | null;
}

/** An objects row as SQLite returns it (`SELECT *`). */
export interface RawObject {
  id: number;
  bucket: string;
  key: string;
  version_id: string;
  is_latest: number;
  is_delete_marker: number;
  size: number;
  etag: string;
  last_modified: number;
  headers: string | null;
  user_meta: string | null;
  checksum_algorithm: string | null;
  checksum_value: string | null;
  checksum_type: 'FULL_OBJECT' | 'COMPOSITE' | null;
  blob_id: string | null;
  part_count: number | null;
  storage_class: string;
  tags: string | null;
  retention_mode: 'GOVERNANCE' | 'COMPLIANCE' | null;
  retain_until: string | null;
  legal_hold: number;
  tier_key: string | null;
  tier_state: 'stub' | 'restored' | null;
  tier_restored_until: number | null;
  tier_sha256: string | null;
}

function parseJson<T>(text: string | null, empty: T): T {
  return text ? (JSON.parse(text) as T) : empty;
}

/** An objects row as the domain model. */
export function toRow(raw: RawObject): ObjectRow {
  return {
    id: raw.id,
    bucket: raw.bucket,
    key: raw.key,
    versionId: raw.version_id,
    isLatest: raw.is_latest === 1,
    isDeleteMarker: raw.is_delete_marker === 1,
    size: raw.size,
    etag: raw.etag,
    lastModified: raw.last_modified,
    headers: parseJson<ObjectHeaders>(raw.headers, {}),
    userMeta: parseJson<Record<string, string>>(raw.user_meta, {}),
    checksumAlgorithm: raw.checksum_algorithm ?? undefined,
    checksumValue: raw.checksum_value ?? undefined,
    checksumType: raw.checksum_type ?? undefined,
    blobId: raw.blob_id ?? undefined,
    partCount: raw.part_count ?? undefined,
    storageClass: raw.storage_class,
    tags: tagsOf(raw.tags),
    retention: retentionOf(raw.retention_mode, raw.retain_until),
    legalHold: raw.legal_hold === 1,
    ...(raw.tier_state === null ? {} : {
      tierState: raw.tier_state, tierKey: raw.tier_key ?? undefined, tierRestoredUntil: raw.tier_restored_until ?? undefined,
      tierSha256: raw.tier_sha256 ?? undefined,
    }),
  };
}

/**
 * The columns a point lookup reads, in order. better-sqlite3 builds a row object by adding one named property per
 * column, which cost more than the SQLite lookup itself in a HEAD profile; these rows are read as arrays (raw mode)
 * and named here. Bucket and key are the caller's own arguments, so they are not read back.
 */
const LOOKUP_COLUMNS = `id, version_id, is_latest, is_delete_marker, size, etag, last_modified, headers, user_meta,
  checksum_algorithm, checksum_value, checksum_type, blob_id, part_count, storage_class, tags, retention_mode,
  retain_until, legal_hold, tier_key, tier_state, tier_restored_until, tier_sha256`;

/** One row of LOOKUP_COLUMNS, positionally. */
type LookupValues = [
  id: number, versionId: string, isLatest: number, isDeleteMarker: number, size: number, etag: string,
  lastModified: number, headers: string | null, userMeta: string | null, checksumAlgorithm: string | null,
  checksumValue: string | null, checksumType: 'FULL_OBJECT' | 'COMPOSITE' | null, blobId: string | null,
  partCount: number | null, storageClass: string, tags: string | null,
  retentionMode: 'GOVERNANCE' | 'COMPLIANCE' | null, retainUntil: string | null, legalHold: number,
  tierKey: string | null, tierState: 'stub' | 'restored' | null, tierRestoredUntil: number | null,
  tierSha256: string | null,
];

function lookedUp(bucket: string, key: string, v: LookupValues): ObjectRow {
  return toRow({
    id: v[0], bucket, key, version_id: v[1], is_latest: v[2], is_delete_marker: v[3], size: v[4], etag: v[5],
    last_modified: v[6], headers: v[7], user_meta: v[8], checksum_algorithm: v[9], checksum_value: v[10],
    checksum_type: v[11], blob_id: v[12], part_count: v[13], storage_class: v[14], tags: v[15], retention_mode: v[16],
    retain_until: v[17], legal_hold: v[18], tier_key: v[19], tier_state: v[20], tier_restored_until: v[21],
    tier_sha256: v[22],
  });
}

/** A full object row from `SELECT *` (tiering reads rows by id). */
export function objectRowOf(raw: unknown): ObjectRow {
  return toRow(raw as RawObject);
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

/** The values of an objects insert, in its column order. */
type InsertValues = [
  bucket: string, key: string, versionId: string, isLatest: 0 | 1, isDeleteMarker: 0 | 1, size: number, etag: string,
  lastModified: number, headers: string | null, userMeta: string | null, checksumAlgorithm: string | null,
  checksumValue: string | null, checksumType: string | null, blobId: string | null, partCount: number | null,
  storageClass: string, tags: string | null, retentionMode: string | null, retainUntil: string | null, legalHold: 0 | 1,
];

function emptyToNull(record: object): string | null {
  return Object.keys(record).length > 0 ? JSON.stringify(record) : null;
}

export class ObjectsRepo {
  private readonly latestStmt;
  private readonly versionStmt;
  private readonly insertStmt;
  private readonly clearLatestStmt;
  private readonly deleteStmt;
  private readonly promoteStmt;
  private readonly setTagsStmt;
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
    this.latestStmt = db.prepare<[string, string], LookupValues>(
      `SELECT ${LOOKUP_COLUMNS} FROM objects WHERE bucket = ? AND key = ? AND is_latest = 1`,
    ).raw(true);
    this.versionStmt = db.prepare<[string, string, string], LookupValues>(
      `SELECT ${LOOKUP_COLUMNS} FROM objects WHERE bucket = ? AND key = ? AND version_id = ?`,
    ).raw(true);
    // Positional parameters: binding 20 named ones looks each name up in an object, about 4 µs more per insert.
    this.insertStmt = db.prepare<InsertValues>(
      `INSERT INTO objects (bucket, key, version_id, is_latest, is_delete_marker, size, etag, last_modified, headers,
         user_meta, checksum_algorithm, checksum_value, checksum_type, blob_id, part_count, storage_class, tags,
         retention_mode, retain_until, legal_hold)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.clearLatestStmt = db.prepare<[string, string]>(
      'UPDATE objects SET is_latest = 0 WHERE bucket = ? AND key = ? AND is_latest = 1',
    );
    this.deleteStmt = db.prepare<[number]>('DELETE FROM objects WHERE id = ?');
    this.setTagsStmt = db.prepare<[string | null, number]>('UPDATE objects SET tags = ? WHERE id = ?');
    this.setRetentionStmt = db.prepare<[string | null, string | null, number]>(
      'UPDATE objects SET retention_mode = ?, retain_until = ? WHERE id = ?',
    );
    this.setLegalHoldStmt = db.prepare<[number, number]>('UPDATE objects SET legal_hold = ? WHERE id = ?');
    this.promoteStmt = db.prepare<[string, string]>(
      'UPDATE objects SET is_latest = 1 WHERE id = (SELECT id FROM objects WHERE bucket = ? AND key = ? ORDER BY id DESC LIMIT 1)',
    );
    this.partsStmt = db.prepare<[number], { part_number: number; blob_id: string; size: number; etag: string; checksum: string | null }>(
      'SELECT part_number, blob_id, size, etag, checksum FROM object_parts WHERE object_id = ? ORDER BY part_number',
    );
    this.insertPartStmt = db.prepare(
      'INSERT INTO object_parts (object_id, part_number, blob_id, size, etag, checksum) VALUES (?, ?, ?, ?, ?, ?)',
    );
    const listSql = (op: string) =>
      `SELECT key, size, etag, last_modified, storage_class, checksum_algorithm FROM objects INDEXED BY objects_current
       WHERE bucket = ? AND key ${op} ? AND is_latest = 1 AND is_delete_marker = 0 ORDER BY key LIMIT ?`;
    this.listAfterStmt = db.prepare<[string, string, number], RawListed>(listSql('>'));
    this.listFromStmt = db.prepare<[string, string, number], RawListed>(listSql('>='));
    // Versions newest first within each key: the objects_versions_newest_first index (bucket, key, id DESC) read in order.
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
    return values ? lookedUp(bucket, key, values) : undefined;
  }

  findVersion(bucket: string, key: string, versionId: string): ObjectRow | undefined {
    const values = this.versionStmt.get(bucket, key, versionId);
    return values ? lookedUp(bucket, key, values) : undefined;
  }

  /** Inserts a version row and returns its id (its commit sequence number). */
  insert(row: NewObjectRow): number {
    const result = this.insertStmt.run(
      row.bucket,
      row.key,
      row.versionId,
      row.isLatest ? 1 : 0,
      row.isDeleteMarker ? 1 : 0,
      row.size,
      row.etag,
      row.lastModified,
      emptyToNull(row.headers),
      emptyToNull(row.userMeta),
      row.checksumAlgorithm ?? null,
      row.checksumValue ?? null,
      row.checksumType ?? null,
      row.blobId ?? null,
      row.partCount ?? null,
      row.storageClass,
      row.tags && row.tags.length > 0 ? JSON.stringify(row.tags) : null,
      row.retention?.mode ?? null,
      row.retention?.retainUntilDate ?? null,
      row.legalHold ? 1 : 0,
    );
    return Number(result.lastInsertRowid);
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
    for (const p of parts) this.insertPartStmt.run(objectId, p.partNumber, p.blobId, p.size, p.etag, p.checksum ?? null);
  }

  /**
   * Current (non-deleted) objects from `bound` on (key > bound, or key >= bound when inclusive),
   * in UTF-8 byte order (SQLite's BINARY collation, which is S3's listing order), at most `limit`.
   */
  listCurrent(bucket: string, bound: string, inclusive: boolean, limit: number): ListedObject[] {
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
  listVersions(bucket: string, bound: string, inclusive: boolean, limit: number): ListedVersion[] {
    return (inclusive ? this.versionsFromStmt : this.versionsAfterStmt).all(bucket, bound, limit).map(toListedVersion);
  }

  /** The versions of one key older than the version with row id `beforeId`, newest first, at most `limit`. */
  listOlderVersions(bucket: string, key: string, beforeId: number, limit: number): ListedVersion[] {
    return this.versionsOfKeyStmt.all(bucket, key, beforeId, limit).map(toListedVersion);
  }

  /** True when any committed version references the blob, directly or as a multipart part. */
  isBlobReferenced(blobId: string): boolean {
    return this.blobRefStmt.get(blobId) !== undefined || this.partBlobRefStmt.get(blobId) !== undefined;
  }
}
