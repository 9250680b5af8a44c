// Multipart uploads completed in the last hour: what each completion was asked for and what it answered, so that a
// retried CompleteMultipartUpload is answered the same (services/objects/multipart-service.ts).

import type { ChecksumAlgorithm, ChecksumType } from '../../core/checksums.js';
import type { Db } from './database.js';

/** What a completion answered. */
export interface CompletedUploadResult {
  bucket: string;
  key: string;
  /** Unquoted multipart ETag (`<hex>-N`). */
  etag: string;
  size: number;
  versionId: string;
  checksumAlgorithm?: ChecksumAlgorithm | undefined;
  checksumValue?: string | undefined;
  checksumType?: ChecksumType | undefined;
}

export interface CompletedUploadRow {
  uploadId: string;
  /** The completion's part list in a canonical form: a retry must list the same parts to be answered the same. */
  parts: string;
  result: CompletedUploadResult;
  completedAt: number;
}

interface RawCompleted {
  upload_id: string;
  bucket: string;
  key: string;
  parts: string;
  result: string;
  completed_at: number;
}

export class CompletedUploadsRepo {
  private readonly insertStmt;
  private readonly findStmt;
  private readonly pruneStmt;

  constructor(db: Db) {
    this.insertStmt = db.prepare<[string, string, string, string, string, number]>(
      'INSERT OR REPLACE INTO completed_uploads (upload_id, bucket, key, parts, result, completed_at) VALUES (?, ?, ?, ?, ?, ?)',
    );
    this.findStmt = db.prepare<[string], RawCompleted>('SELECT * FROM completed_uploads WHERE upload_id = ?');
    this.pruneStmt = db.prepare<[number]>('DELETE FROM completed_uploads WHERE completed_at < ?');
  }

  insert(row: CompletedUploadRow): void {
    const { result } = row;
    this.insertStmt.run(row.uploadId, result.bucket, result.key, row.parts, JSON.stringify(result), row.completedAt);
  }

  find(uploadId: string): CompletedUploadRow | undefined {
    const raw = this.findStmt.get(uploadId);
    if (!raw) return undefined;
    return {
      uploadId: raw.upload_id,
      parts: raw.parts,
      result: JSON.parse(raw.result) as CompletedUploadResult,
      completedAt: raw.completed_at,
    };
  }

  /** Forgets completions made before `at`. */
  pruneBefore(at: number): void {
    this.pruneStmt.run(at);
  }
}
