// Inline blobs (table inline_blobs): the sealed bytes (blob format, encrypted) of small objects, written in the
// transaction that commits the object version referencing them and deleted in the one that drops it.

import type { Db } from './database.js';

export class InlineBlobsRepo {
  private readonly insertStmt;
  private readonly getStmt;
  private readonly deleteStmt;

  constructor(db: Db) {
    this.insertStmt = db.prepare<[string, Buffer]>('INSERT INTO inline_blobs (blob_id, sealed) VALUES (?, ?)');
    this.getStmt = db.prepare<[string], Buffer>('SELECT sealed FROM inline_blobs WHERE blob_id = ?').pluck();
    this.deleteStmt = db.prepare<[string]>('DELETE FROM inline_blobs WHERE blob_id = ?');
  }

  insert(blobId: string, sealed: Buffer): void {
    this.insertStmt.run(blobId, sealed);
  }

  /** The sealed bytes, or undefined when no row has that id. */
  get(blobId: string): Buffer | undefined {
    return this.getStmt.get(blobId);
  }

  delete(blobId: string): void {
    this.deleteStmt.run(blobId);
  }
}
