// Integrity results (table object_integrity: the last check of each object version, dropped with it), the counts
// kept beside them by triggers (integrity_totals), the scrubber's walk over versions by id, and the corrupt list.

import type { Db } from './database.js';

export type IntegrityStatus = 'ok' | 'corrupt' | 'unchecked';

/** An object version as the scrubber needs it: where its bytes are and what they should hash to. */
export interface ScrubTarget {
  id: number;
  bucket: string;
  key: string;
  versionId: string;
  size: number;
  etag: string;
  /** Set for a version written in one piece; a multipart version has parts instead. */
  blobId: string | undefined;
  partCount: number | undefined;
}

/** One check's outcome, recorded against the version it read. */
export interface IntegrityResult {
  target: Pick<ScrubTarget, 'id' | 'size' | 'etag' | 'blobId'>;
  status: IntegrityStatus;
  checkedAt: number;
  /** A short code: missing, tampered, truncated, header, digest, unreadable, metadata, error; repaired for a repair. */
  reason?: string | undefined;
  detail?: string | undefined;
}

export interface CorruptEntry {
  objectId: number;
  bucket: string;
  key: string;
  versionId: string;
  size: number;
  detectedAt: number;
  checkedAt: number;
  reason: string;
  detail: string | undefined;
}

export interface IntegrityTotals {
  ok: number;
  corrupt: number;
  /** Versions checked but left unchecked (an I/O error that is not corruption). */
  unchecked: number;
  deleteMarkers: number;
}

interface RawTarget {
  id: number;
  bucket: string;
  key: string;
  version_id: string;
  size: number;
  etag: string;
  blob_id: string | null;
  part_count: number | null;
}

interface RawCorrupt {
  object_id: number;
  bucket: string;
  key: string;
  version_id: string;
  size: number;
  detected_at: number;
  checked_at: number;
  reason: string | null;
  detail: string | null;
}

const TARGET_COLUMNS = 'id, bucket, key, version_id, size, etag, blob_id, part_count';

function toTarget(raw: RawTarget): ScrubTarget {
  return {
    id: raw.id,
    bucket: raw.bucket,
    key: raw.key,
    versionId: raw.version_id,
    size: raw.size,
    etag: raw.etag,
    blobId: raw.blob_id ?? undefined,
    partCount: raw.part_count ?? undefined,
  };
}

/**
 * Versions with bytes here to check: not delete markers, and not tiered stubs (their bytes are on the remote, checked
 * by SHA-256 when tiered and again when read back; docs/integrity-analytics.md). Stubs count as unchecked.
 */
const HAS_LOCAL_BYTES = "is_delete_marker = 0 AND tier_state IS NOT 'stub'";

export class IntegrityRepo {
  private readonly nextStmt;
  private readonly byIdStmt;
  private readonly recordStmt;
  private readonly totalsStmt;
  private readonly versionTotalsStmt;
  private readonly corruptFirstStmt;
  private readonly corruptAfterStmt;
  private readonly statusStmt;
  private readonly swapBlobStmt;
  private readonly swapPartStmt;

  constructor(db: Db) {
    this.nextStmt = db.prepare<[number], RawTarget>(
      `SELECT ${TARGET_COLUMNS} FROM objects WHERE id > ? AND ${HAS_LOCAL_BYTES} ORDER BY id LIMIT 1`,
    );
    this.byIdStmt = db.prepare<[number], RawTarget>(
      `SELECT ${TARGET_COLUMNS} FROM objects WHERE id = ? AND ${HAS_LOCAL_BYTES}`,
    );
    // Recorded only against the version that was read: a version replaced or deleted since (its row gone, or its id
    // reused by another version, which has other bytes) keeps no stale verdict.
    this.recordStmt = db.prepare(
      `INSERT INTO object_integrity (object_id, status, checked_at, detected_at, reason, detail)
       SELECT id, @status, @checkedAt, CASE WHEN @status = 'corrupt' THEN @checkedAt END, @reason, @detail
       FROM objects WHERE id = @id AND size = @size AND etag = @etag AND blob_id IS @blobId AND ${HAS_LOCAL_BYTES}
       ON CONFLICT (object_id) DO UPDATE SET
         status = excluded.status, checked_at = excluded.checked_at, reason = excluded.reason, detail = excluded.detail,
         detected_at = CASE
           WHEN excluded.status <> 'corrupt' THEN NULL
           WHEN object_integrity.status = 'corrupt' THEN object_integrity.detected_at
           ELSE excluded.checked_at END`,
    );
    this.totalsStmt = db.prepare<[], { name: string; count: number }>('SELECT name, count FROM integrity_totals');
    this.versionTotalsStmt = db.prepare<[], { versions: number | null; bytes: number | null }>(
      'SELECT sum(version_count) AS versions, sum(version_bytes) AS bytes FROM bucket_usage',
    );
    const corruptSql = (where: string) =>
      `SELECT i.object_id, o.bucket, o.key, o.version_id, o.size, i.detected_at, i.checked_at, i.reason, i.detail
       FROM object_integrity i INDEXED BY object_integrity_corrupt JOIN objects o ON o.id = i.object_id
       WHERE i.status = 'corrupt' ${where} ORDER BY i.detected_at DESC, i.object_id DESC LIMIT ?`;
    this.corruptFirstStmt = db.prepare<[number], RawCorrupt>(corruptSql(''));
    this.corruptAfterStmt = db.prepare<[number, number, number, number], RawCorrupt>(
      corruptSql('AND (i.detected_at < ? OR (i.detected_at = ? AND i.object_id < ?))'),
    );
    this.statusStmt = db.prepare<[number], { status: IntegrityStatus }>(
      'SELECT status FROM object_integrity WHERE object_id = ?',
    );
    this.swapBlobStmt = db.prepare<[string, number, string]>(
      'UPDATE objects SET blob_id = ? WHERE id = ? AND blob_id = ?',
    );
    this.swapPartStmt = db.prepare<[string, number, number, string]>(
      'UPDATE object_parts SET blob_id = ? WHERE object_id = ? AND part_number = ? AND blob_id = ?',
    );
  }

  /** The first version with bytes (not a delete marker) whose id is above `afterId`, or undefined at the end. */
  nextTarget(afterId: number): ScrubTarget | undefined {
    const raw = this.nextStmt.get(afterId);
    return raw ? toTarget(raw) : undefined;
  }

  /** The version with this row id, unless it is gone or a delete marker. */
  findTarget(id: number): ScrubTarget | undefined {
    const raw = this.byIdStmt.get(id);
    return raw ? toTarget(raw) : undefined;
  }

  /**
   * Records a result; returns false when the version it read no longer exists as read (replaced, deleted). A version
   * found corrupt keeps the time it was first found corrupt. Call inside a transaction when recording several.
   */
  record(result: IntegrityResult): boolean {
    const { target } = result;
    const info = this.recordStmt.run({
      id: target.id,
      size: target.size,
      etag: target.etag,
      blobId: target.blobId ?? null,
      status: result.status,
      checkedAt: result.checkedAt,
      reason: result.reason ?? null,
      detail: result.detail ?? null,
    });
    return info.changes > 0;
  }

  /** The last recorded status of a version, or undefined when it was never checked (or is gone). */
  statusOf(objectId: number): IntegrityStatus | undefined {
    return this.statusStmt.get(objectId)?.status;
  }

  /** Counts by status and delete markers, kept by triggers: a read of four rows. */
  totals(): IntegrityTotals {
    const totals: IntegrityTotals = { ok: 0, corrupt: 0, unchecked: 0, deleteMarkers: 0 };
    for (const row of this.totalsStmt.all()) {
      if (row.name === 'delete_markers') totals.deleteMarkers = row.count;
      else if (row.name === 'ok' || row.name === 'corrupt' || row.name === 'unchecked') totals[row.name] = row.count;
    }
    return totals;
  }

  /** Every stored version (delete markers included) and their bytes, from the per-bucket usage counters. */
  versionTotals(): { versions: number; bytes: number } {
    const row = this.versionTotalsStmt.get();
    return { versions: row?.versions ?? 0, bytes: row?.bytes ?? 0 };
  }

  /** Corrupt versions, most recently detected first, after the (detectedAt, objectId) position when given. */
  corrupt(limit: number, after?: { detectedAt: number; objectId: number }): CorruptEntry[] {
    const rows = after
      ? this.corruptAfterStmt.all(after.detectedAt, after.detectedAt, after.objectId, limit)
      : this.corruptFirstStmt.all(limit);
    return rows.map((r) => ({
      objectId: r.object_id,
      bucket: r.bucket,
      key: r.key,
      versionId: r.version_id,
      size: r.size,
      detectedAt: r.detected_at,
      checkedAt: r.checked_at,
      reason: r.reason ?? 'unknown',
      detail: r.detail ?? undefined,
    }));
  }

  /** Points a version at new bytes, if it still has `oldBlobId`; returns false otherwise. Call inside a transaction. */
  swapBlob(objectId: number, oldBlobId: string, newBlobId: string): boolean {
    return this.swapBlobStmt.run(newBlobId, objectId, oldBlobId).changes > 0;
  }

  /** swapBlob for one part of a multipart version. */
  swapPartBlob(
    { objectId, partNumber }: { objectId: number; partNumber: number },
    oldBlobId: string,
    newBlobId: string,
  ): boolean {
    return this.swapPartStmt.run(newBlobId, objectId, partNumber, oldBlobId).changes > 0;
  }
}
