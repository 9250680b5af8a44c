// The statements a restore's reset needs on the live metadata database (run inside its one transaction): the
// versions a bucket holds now (to release their blobs and report their removal), removing them all, and aborting
// the bucket's multipart uploads.

import type { Db } from './database.js';
import { OBJECT_SELECT, objectRowOf, type ObjectRow, type ObjectValues } from './objects-repo.js';

export class RestoreRepo {
  private readonly versionsStmt;
  private readonly lockedStmt;
  private readonly deleteVersionsStmt;
  private readonly uploadBlobsStmt;
  private readonly deleteUploadsStmt;

  constructor(db: Db) {
    this.versionsStmt = db
      .prepare<[string, number, number], ObjectValues>(
        `SELECT ${OBJECT_SELECT} FROM objects WHERE bucket = ? AND id > ? ORDER BY id LIMIT ?`,
      )
      .raw(true);
    this.lockedStmt = db
      .prepare<[string], ObjectValues>(
        `SELECT ${OBJECT_SELECT} FROM objects WHERE bucket = ? AND (legal_hold = 1 OR retain_until IS NOT NULL)`,
      )
      .raw(true);
    this.deleteVersionsStmt = db.prepare<[string]>('DELETE FROM objects WHERE bucket = ?');
    this.uploadBlobsStmt = db
      .prepare<[string], string>(
        'SELECT p.blob_id FROM upload_parts p JOIN multipart_uploads u ON u.upload_id = p.upload_id WHERE u.bucket = ?',
      )
      .pluck();
    this.deleteUploadsStmt = db.prepare<[string]>('DELETE FROM multipart_uploads WHERE bucket = ?');
  }

  /** The bucket's versions and delete markers after row id `afterId`, in commit order, at most `limit`. */
  versions(bucket: string, afterId: number, limit: number): ObjectRow[] {
    return this.versionsStmt.all(bucket, afterId, limit).map(objectRowOf);
  }

  /** Versions with a legal hold or a retention date (expired or not): the candidates object lock may protect. */
  lockedVersions(bucket: string): ObjectRow[] {
    return this.lockedStmt.all(bucket).map(objectRowOf);
  }

  /** Deletes every version row of the bucket (their part rows go with them). */
  deleteVersions(bucket: string): void {
    this.deleteVersionsStmt.run(bucket);
  }

  /** The blob ids of every uploaded part of the bucket's in-progress multipart uploads. */
  uploadPartBlobs(bucket: string): string[] {
    return this.uploadBlobsStmt.all(bucket);
  }

  /** Aborts every in-progress multipart upload of the bucket (their part rows go with them). */
  deleteUploads(bucket: string): void {
    this.deleteUploadsStmt.run(bucket);
  }
}
