// Tier residency of object versions (the tier_* columns of objects), uploads in progress (tier_uploads) and remote
// copies to delete (tier_gc, filled by triggers when a version with a remote copy goes away). The tiering service
// calls the flips inside its own transactions, together with MetadataStore.releaseBlob.

import { runTransaction, type Db } from './database.js';
import { OBJECT_SELECT, objectRowOf, type ObjectRow, type ObjectValues } from './objects-repo.js';

export class TierRepo {
  private readonly rowStmt;
  private readonly startUploadStmt;
  private readonly endUploadStmt;
  private readonly uploadsStmt;
  private readonly toStubStmt;
  private readonly dropPartsStmt;
  private readonly toRestoredStmt;
  private readonly extendStmt;
  private readonly expiredStmt;
  private readonly gcEnqueueStmt;
  private readonly gcDueStmt;
  private readonly gcDoneStmt;
  private readonly countsStmt;
  private readonly gcCountStmt;
  private readonly forgetStmt;

  constructor(private readonly db: Db) {
    this.rowStmt = db.prepare<[number], ObjectValues>(`SELECT ${OBJECT_SELECT} FROM objects WHERE id = ?`).raw(true);
    this.startUploadStmt = db.prepare<[string, number, number]>(
      'INSERT OR REPLACE INTO tier_uploads (remote_key, object_id, started_at) VALUES (?, ?, ?)',
    );
    this.endUploadStmt = db.prepare<[string]>('DELETE FROM tier_uploads WHERE remote_key = ?');
    this.uploadsStmt = db.prepare<[], string>('SELECT remote_key FROM tier_uploads').pluck();
    this.toStubStmt = db.prepare<[string, string, string, number]>(
      `UPDATE objects SET blob_id = NULL, storage_class = ?, tier_key = ?, tier_state = 'stub', tier_restored_until = NULL,
         tier_sha256 = ? WHERE id = ?`,
    );
    this.dropPartsStmt = db.prepare<[number]>('DELETE FROM object_parts WHERE object_id = ?');
    this.toRestoredStmt = db.prepare<[string, number, number]>(
      "UPDATE objects SET blob_id = ?, tier_state = 'restored', tier_restored_until = ? WHERE id = ? AND tier_state = 'stub'",
    );
    this.extendStmt = db.prepare<[number, number]>(
      "UPDATE objects SET tier_restored_until = max(coalesce(tier_restored_until, 0), ?) WHERE id = ? AND tier_state = 'restored'",
    );
    this.expiredStmt = db
      .prepare<[number, number], number>(
        `SELECT id FROM objects INDEXED BY objects_tiered WHERE tier_state = 'restored' AND tier_restored_until <= ?
       ORDER BY tier_restored_until LIMIT ?`,
      )
      .pluck();
    this.gcEnqueueStmt = db.prepare<[string, number]>(
      'INSERT OR IGNORE INTO tier_gc (remote_key, queued_at) VALUES (?, ?)',
    );
    this.gcDueStmt = db
      .prepare<[number, number], string>(
        'SELECT remote_key FROM tier_gc WHERE queued_at <= ? ORDER BY queued_at LIMIT ?',
      )
      .pluck();
    this.gcDoneStmt = db.prepare<[string]>('DELETE FROM tier_gc WHERE remote_key = ?');
    this.countsStmt = db.prepare<[], { tier_state: 'stub' | 'restored'; n: number }>(
      'SELECT tier_state, count(*) AS n FROM objects INDEXED BY objects_tiered WHERE tier_state IS NOT NULL GROUP BY tier_state',
    );
    this.gcCountStmt = db.prepare<[], number>('SELECT count(*) FROM tier_gc').pluck();
    this.forgetStmt = db.prepare<[number]>(
      `UPDATE objects SET tier_state = NULL, tier_key = NULL, tier_restored_until = NULL, tier_sha256 = NULL,
         storage_class = 'STANDARD' WHERE id = ? AND tier_state = 'restored'`,
    );
  }

  /** The version row with this id, or undefined. */
  findRow(id: number): ObjectRow | undefined {
    const values = this.rowStmt.get(id);
    return values === undefined ? undefined : objectRowOf(values);
  }

  /** Records an upload of `remoteKey` for version `objectId` before it starts (so a crash leaves it to clean up). */
  startUpload(remoteKey: string, objectId: number, now: number): void {
    this.startUploadStmt.run(remoteKey, objectId, now);
  }

  /** The upload was flipped in or given up: forget it. Call inside the flip's transaction. */
  endUpload(remoteKey: string): void {
    this.endUploadStmt.run(remoteKey);
  }

  /** At boot: uploads a crash interrupted go to tier_gc (their object stayed local). Returns how many. */
  abandonUploads(now: number): number {
    return runTransaction(this.db, () => {
      const keys = this.uploadsStmt.all();
      for (const key of keys) {
        this.gcEnqueueStmt.run(key, now);
        this.endUploadStmt.run(key);
      }
      return keys.length;
    });
  }

  /**
   * The version's bytes now live only at `tierKey`: no local blob, no part rows (the caller releases their blobs in
   * the same transaction), storage class set. A previous, different tier key is queued for deletion by the trigger.
   */
  flipToStub(id: number, fields: { storageClass: string; tierKey: string; sha256: string }): void {
    this.dropPartsStmt.run(id);
    this.toStubStmt.run(fields.storageClass, fields.tierKey, fields.sha256, id);
  }

  /** A stub has local bytes again (blob `blobId`) until `until`; false when the row is no longer a stub. */
  flipToRestored(id: number, blobId: string, until: number): boolean {
    return this.toRestoredStmt.run(blobId, until, id).changes === 1;
  }

  /** Pushes a restored version's expiry to at least `until`. */
  extendRestore(id: number, until: number): void {
    this.extendStmt.run(until, id);
  }

  /** Ids of restored versions whose restore ended at `now`, at most `limit`. */
  expiredRestores(now: number, limit: number): number[] {
    return this.expiredStmt.all(now, limit);
  }

  /** A restored version whose remote copy is gone becomes plain local STANDARD (lifecycle may tier it anew). */
  forgetRemoteCopy(id: number): void {
    this.forgetStmt.run(id);
  }

  gcEnqueue(remoteKey: string, now: number): void {
    this.gcEnqueueStmt.run(remoteKey, now);
  }

  /** Remote keys queued for deletion at or before `cutoff`, oldest first. */
  gcDue(cutoff: number, limit: number): string[] {
    return this.gcDueStmt.all(cutoff, limit);
  }

  gcDone(remoteKey: string): void {
    this.gcDoneStmt.run(remoteKey);
  }

  /** Versions by residency (an index-only count), and remote copies waiting for deletion. */
  counts(): { stub: number; restored: number; pendingRemoteDeletes: number } {
    const out = { stub: 0, restored: 0, pendingRemoteDeletes: this.gcCountStmt.get() ?? 0 };
    for (const r of this.countsStmt.all()) out[r.tier_state] = r.n;
    return out;
  }
}
