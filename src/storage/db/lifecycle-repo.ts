// Read-only queries for the lifecycle worker: buckets with a lifecycle configuration, object versions in key
// order (newest first per key) with what lifecycle evaluation needs about their neighbours, and multipart uploads.
// Every query is a keyset page over an index; nothing loads a bucket whole. Writes go through the services.

import type { LifecycleConfiguration } from '../../core/lifecycle.js';
import type { ObjectRetention } from '../../core/object-lock.js';
import type { TagSet } from '../../core/tagging.js';
import type { VersioningState } from '../../core/versioning.js';
import type { Db } from './database.js';
import { retentionOf, tagsOf } from './lock-columns.js';

/**
 * Newer versions are counted only up to this bound: NewerNoncurrentVersions is at most 100, so knowing "more than
 * 101" is enough, and a key with a million versions costs the same per row as a key with two.
 */
export const NEWER_COUNT_CAP = 102;

export interface LifecycleBucket {
  name: string;
  versioning: VersioningState;
  lifecycle: LifecycleConfiguration;
  /** The stored lifecycle document as text: a resumed scan restarts when it changed. */
  fingerprint: string;
}

/** One object version as lifecycle sees it. */
export interface LifecycleVersionRow {
  id: number;
  key: string;
  versionId: string;
  isLatest: boolean;
  isDeleteMarker: boolean;
  size: number;
  lastModified: number;
  storageClass: string;
  tags: TagSet;
  retention: ObjectRetention | undefined;
  legalHold: boolean;
  /** lastModified of the next newer version of the key (when this one became noncurrent); undefined for the newest. */
  successorModified: number | undefined;
  /** How many versions of the key are newer than this one, capped at NEWER_COUNT_CAP. */
  newerCount: number;
  /** True when the key has no other version (only computed for a latest delete marker; false otherwise). */
  isOnlyVersion: boolean;
}

/** A version's state as committed at the moment lifecycle acts on it. */
export interface LifecycleVersionState {
  id: number;
  isLatest: boolean;
  isOnlyVersion: boolean;
  retention: ObjectRetention | undefined;
  legalHold: boolean;
}

export interface LifecycleUploadRow {
  uploadId: string;
  key: string;
  initiated: number;
}

interface RawVersion {
  id: number;
  key: string;
  version_id: string;
  is_latest: number;
  is_delete_marker: number;
  size: number;
  last_modified: number;
  storage_class: string;
  tags: string | null;
  retention_mode: 'GOVERNANCE' | 'COMPLIANCE' | null;
  retain_until: string | null;
  legal_hold: number;
  successor_modified: number | null;
  newer_count: number;
  is_only_version: number;
}

type RawState = Pick<
  RawVersion,
  'id' | 'is_latest' | 'retention_mode' | 'retain_until' | 'legal_hold' | 'is_only_version'
>;

function toVersion(raw: RawVersion): LifecycleVersionRow {
  return {
    id: raw.id,
    key: raw.key,
    versionId: raw.version_id,
    isLatest: raw.is_latest === 1,
    isDeleteMarker: raw.is_delete_marker === 1,
    size: raw.size,
    lastModified: raw.last_modified,
    storageClass: raw.storage_class,
    tags: tagsOf(raw.tags) ?? [],
    retention: retentionOf(raw.retention_mode, raw.retain_until),
    legalHold: raw.legal_hold === 1,
    successorModified: raw.successor_modified ?? undefined,
    newerCount: raw.newer_count,
    isOnlyVersion: raw.is_only_version === 1,
  };
}

function toBucket(raw: { name: string; versioning: VersioningState; lifecycle: string }): LifecycleBucket {
  return {
    name: raw.name,
    versioning: raw.versioning,
    lifecycle: JSON.parse(raw.lifecycle) as LifecycleConfiguration,
    fingerprint: raw.lifecycle,
  };
}

// Each neighbour is an index seek on objects_versions_newest_first (bucket, key, id DESC).
const VERSION_COLUMNS = `o.id, o.key, o.version_id, o.is_latest, o.is_delete_marker, o.size, o.last_modified,
  o.storage_class, o.tags, o.retention_mode, o.retain_until, o.legal_hold,
  (SELECT n.last_modified FROM objects n WHERE n.bucket = o.bucket AND n.key = o.key AND n.id > o.id
     ORDER BY n.id LIMIT 1) AS successor_modified,
  (SELECT count(*) FROM (SELECT 1 FROM objects n WHERE n.bucket = o.bucket AND n.key = o.key AND n.id > o.id
     LIMIT ${NEWER_COUNT_CAP})) AS newer_count,
  CASE WHEN o.is_latest = 1 AND o.is_delete_marker = 1 THEN NOT EXISTS (
     SELECT 1 FROM objects n WHERE n.bucket = o.bucket AND n.key = o.key AND n.id <> o.id) ELSE 0 END AS is_only_version`;

export class LifecycleRepo {
  private readonly bucketsStmt;
  private readonly bucketStmt;
  private readonly versionsFromStmt;
  private readonly versionsAfterKeyStmt;
  private readonly versionsRestOfKeyStmt;
  private readonly versioningStmt;
  private readonly stateStmt;
  private readonly uploadsFromStmt;
  private readonly uploadsAfterKeyStmt;
  private readonly uploadsRestOfKeyStmt;

  constructor(db: Db) {
    this.bucketsStmt = db.prepare<[string, number], { name: string; versioning: VersioningState; lifecycle: string }>(
      `SELECT name, versioning, json_extract(config, '$.lifecycle') AS lifecycle FROM buckets
       WHERE name > ? AND json_extract(config, '$.lifecycle') IS NOT NULL ORDER BY name LIMIT ?`,
    );
    this.bucketStmt = db.prepare<[string], { name: string; versioning: VersioningState; lifecycle: string }>(
      `SELECT name, versioning, json_extract(config, '$.lifecycle') AS lifecycle FROM buckets
       WHERE name = ? AND json_extract(config, '$.lifecycle') IS NOT NULL`,
    );
    const versions = (where: string, order: string) =>
      db.prepare<[string, string, number], RawVersion>(
        `SELECT ${VERSION_COLUMNS} FROM objects o INDEXED BY objects_versions_newest_first
         WHERE o.bucket = ? AND ${where} ORDER BY ${order} LIMIT ?`,
      );
    this.versionsFromStmt = versions('o.key >= ?', 'o.key, o.id DESC');
    this.versionsAfterKeyStmt = versions('o.key > ?', 'o.key, o.id DESC');
    this.versionsRestOfKeyStmt = db.prepare<[string, string, number, number], RawVersion>(
      `SELECT ${VERSION_COLUMNS} FROM objects o INDEXED BY objects_versions_newest_first
       WHERE o.bucket = ? AND o.key = ? AND o.id < ? ORDER BY o.id DESC LIMIT ?`,
    );
    this.versioningStmt = db.prepare<[string], { versioning: VersioningState }>(
      'SELECT versioning FROM buckets WHERE name = ?',
    );
    this.stateStmt = db.prepare<[string, string, string], RawState>(
      `SELECT o.id, o.is_latest, o.retention_mode, o.retain_until, o.legal_hold,
         NOT EXISTS (SELECT 1 FROM objects n WHERE n.bucket = o.bucket AND n.key = o.key AND n.id <> o.id) AS is_only_version
       FROM objects o WHERE o.bucket = ? AND o.key = ? AND o.version_id = ?`,
    );
    const uploads = (where: string) =>
      db.prepare<[string, string, number], { upload_id: string; key: string; initiated: number }>(
        `SELECT upload_id, key, initiated FROM multipart_uploads WHERE bucket = ? AND ${where}
         ORDER BY key, upload_id LIMIT ?`,
      );
    this.uploadsFromStmt = uploads('key >= ?');
    this.uploadsAfterKeyStmt = uploads('key > ?');
    this.uploadsRestOfKeyStmt = db.prepare<
      [string, string, string, number],
      { upload_id: string; key: string; initiated: number }
    >(
      `SELECT upload_id, key, initiated FROM multipart_uploads WHERE bucket = ? AND key = ? AND upload_id > ?
       ORDER BY upload_id LIMIT ?`,
    );
  }

  /** Buckets that have a lifecycle configuration, in name order after `afterName`. */
  bucketsWithLifecycle(afterName: string, limit: number): LifecycleBucket[] {
    return this.bucketsStmt.all(afterName, limit).map(toBucket);
  }

  /** One bucket, if it exists and has a lifecycle configuration. */
  findBucketWithLifecycle(name: string): LifecycleBucket | undefined {
    const raw = this.bucketStmt.get(name);
    return raw ? toBucket(raw) : undefined;
  }

  /**
   * A page of versions in key order (UTF-8 byte order, S3's), newest first within a key: from `fromKey` (inclusive)
   * when `after` is undefined, else strictly after the version `after` (the rest of its key, then later keys).
   */
  versionsPage(
    bucket: string,
    fromKey: string,
    { after, limit }: { after: { key: string; id: number } | undefined; limit: number },
  ): LifecycleVersionRow[] {
    if (after === undefined) return this.versionsFromStmt.all(bucket, fromKey, limit).map(toVersion);
    // Two seeks rather than one OR: `key = ? AND id < ?` then `key > ?` each stay a range on the index.
    const rows = this.versionsRestOfKeyStmt.all(bucket, after.key, after.id, limit);
    if (rows.length < limit) rows.push(...this.versionsAfterKeyStmt.all(bucket, after.key, limit - rows.length));
    return rows.map(toVersion);
  }

  /** The bucket's versioning state as committed now, or undefined when the bucket is gone. */
  findVersioning(bucket: string): VersioningState | undefined {
    return this.versioningStmt.get(bucket)?.versioning;
  }

  /**
   * One version as committed now: lifecycle re-reads it right before acting (the page it came from may be older than
   * a client's write), and takes its object-lock state from here.
   */
  findVersionState(bucket: string, key: string, versionId: string): LifecycleVersionState | undefined {
    const raw = this.stateStmt.get(bucket, key, versionId);
    if (raw === undefined) return undefined;
    return {
      id: raw.id,
      isLatest: raw.is_latest === 1,
      isOnlyVersion: raw.is_only_version === 1,
      retention: retentionOf(raw.retention_mode, raw.retain_until),
      legalHold: raw.legal_hold === 1,
    };
  }

  /** A page of multipart uploads in (key, upload id) order, from `fromKey` or strictly after `after`. */
  uploadsPage(
    bucket: string,
    fromKey: string,
    { after, limit }: { after: { key: string; uploadId: string } | undefined; limit: number },
  ): LifecycleUploadRow[] {
    const rows =
      after === undefined
        ? this.uploadsFromStmt.all(bucket, fromKey, limit)
        : this.uploadsRestOfKeyStmt.all(bucket, after.key, after.uploadId, limit);
    if (after !== undefined && rows.length < limit)
      rows.push(...this.uploadsAfterKeyStmt.all(bucket, after.key, limit - rows.length));
    return rows.map((r) => ({ uploadId: r.upload_id, key: r.key, initiated: r.initiated }));
  }
}
