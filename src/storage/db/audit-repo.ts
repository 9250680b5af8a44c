// Persisted audit rows (table audit): batch inserts, retention pruning and keyset-paged queries, newest first.
// Order is (at DESC, id DESC); id is the insertion order, so a page boundary is a total order that later inserts
// cannot shift (no row is shown twice and no row that existed is skipped).

import type { Db } from './database.js';

export interface AuditRowInput {
  at: number;
  event: string;
  subject: string;
  bucket: string | undefined;
  /** JSON text of the (already stripped) details, or undefined. */
  details: string | undefined;
}

export interface AuditRow extends AuditRowInput {
  id: number;
}

export interface AuditQuery {
  event?: string;
  subject?: string;
  bucket?: string;
  /** Inclusive lower bound on `at` (ms). */
  from?: number;
  /** Exclusive upper bound on `at` (ms). */
  to?: number;
  /** Rows strictly after this position in newest-first order. */
  after?: { at: number; id: number };
  limit: number;
}

interface RawAudit {
  id: number;
  at: number;
  event: string;
  subject: string;
  bucket: string | null;
  details: string | null;
}

type Statement = ReturnType<Db['prepare']>;

export class AuditRepo {
  private readonly insertStmt;
  private readonly pruneStmt;
  private readonly queries = new Map<string, Statement>();

  constructor(private readonly db: Db) {
    this.insertStmt = db.prepare(
      'INSERT INTO audit (at, event, subject, bucket, details) VALUES (@at, @event, @subject, @bucket, @details)',
    );
    // Bounded, so the first prune after a long pause does not hold the writer lock for long; the next flush continues.
    this.pruneStmt = db.prepare<[number, number]>(
      'DELETE FROM audit WHERE id IN (SELECT id FROM audit WHERE at < ? LIMIT ?)',
    );
  }

  /** Inserts the rows in order (call inside a transaction). */
  insertMany(rows: readonly AuditRowInput[]): void {
    for (const row of rows) this.insertStmt.run({ ...row, bucket: row.bucket ?? null, details: row.details ?? null });
  }

  /** Deletes up to `limit` rows older than `cutoff` (ms); returns how many. */
  pruneOlderThan(cutoff: number, limit: number): number {
    return this.pruneStmt.run(cutoff, limit).changes;
  }

  /** Up to `limit` rows matching every given filter, newest first, after the cursor position. */
  page(query: AuditQuery): AuditRow[] {
    const clauses: string[] = [];
    const params: Record<string, string | number> = { limit: query.limit };
    for (const field of ['event', 'subject', 'bucket'] as const) {
      const value = query[field];
      if (value !== undefined) {
        clauses.push(`${field} = @${field}`);
        params[field] = value;
      }
    }
    if (query.from !== undefined) {
      clauses.push('at >= @from');
      params['from'] = query.from;
    }
    if (query.to !== undefined) {
      clauses.push('at < @to');
      params['to'] = query.to;
    }
    if (query.after) {
      clauses.push('(at < @afterAt OR (at = @afterAt AND id < @afterId))');
      params['afterAt'] = query.after.at;
      params['afterId'] = query.after.id;
    }
    const where = clauses.length > 0 ? `WHERE ${clauses.join(' AND ')}` : '';
    const sql = `SELECT * FROM audit ${where} ORDER BY at DESC, id DESC LIMIT @limit`;
    let stmt = this.queries.get(sql);
    if (!stmt) {
      stmt = this.db.prepare(sql);
      this.queries.set(sql, stmt);
    }
    return (stmt.all(params) as RawAudit[]).map((raw) => ({
      id: raw.id,
      at: raw.at,
      event: raw.event,
      subject: raw.subject,
      bucket: raw.bucket ?? undefined,
      details: raw.details ?? undefined,
    }));
  }

  count(): number {
    return this.db.prepare<[], number>('SELECT count(*) FROM audit').pluck().get() as number;
  }
}
