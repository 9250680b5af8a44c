// The queue of blobs no committed row references any more: written in the transaction that drops the
// reference, drained by the blob GC after the fact (the unlink is never part of a commit).

import type { Db } from './database.js';

export class BlobGcRepo {
  private readonly enqueueStmt;
  private readonly dueStmt;
  private readonly doneStmt;

  constructor(db: Db) {
    this.enqueueStmt = db.prepare<[string, number]>('INSERT OR IGNORE INTO blob_gc (blob_id, queued_at) VALUES (?, ?)');
    this.dueStmt = db.prepare<[number, number], { blob_id: string }>(
      'SELECT blob_id FROM blob_gc WHERE queued_at <= ? ORDER BY queued_at LIMIT ?',
    );
    this.doneStmt = db.prepare<[string]>('DELETE FROM blob_gc WHERE blob_id = ?');
  }

  enqueue(blobId: string, now: number): void {
    this.enqueueStmt.run(blobId, now);
  }

  /** Blob ids queued at or before `queuedBefore`, oldest first. */
  due(queuedBefore: number, limit: number): string[] {
    return this.dueStmt.all(queuedBefore, limit).map((r) => r.blob_id);
  }

  done(blobId: string): void {
    this.doneStmt.run(blobId);
  }
}
