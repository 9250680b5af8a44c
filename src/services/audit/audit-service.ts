// The audit log (SPEC "Audit events"): every record is logged at once (`audit: true`) and queued in a bounded
// in-memory buffer; `flush()` (every AUDIT_FLUSH_MS, and once more at shutdown) batch-inserts the queue and prunes
// rows past the retention. Recording never blocks and never throws: a full buffer drops its oldest record and
// counts it. Reading is keyset-paged, newest first.

import { AppError } from '../../core/errors.js';
import type { Logger } from '../../observability/logger.js';
import type { AuditRowInput } from '../../storage/db/audit-repo.js';
import type { MetadataStore } from '../../storage/db/metadata-store.js';
import type { AuditRecord, AuditSink } from './audit-events.js';
import { stripSecrets } from './strip-secrets.js';

export const AUDIT_BUFFER_MAX = 10_000;
/** Stored details are capped; a larger object is replaced by a marker rather than growing the table. */
export const AUDIT_DETAILS_MAX_BYTES = 8192;
const PRUNE_BATCH = 5000;
const DAY_MS = 86_400_000;

export interface AuditServiceOptions {
  meta: MetadataStore;
  logger: Logger;
  retentionDays: number;
  now?: () => number;
  maxBuffered?: number;
}

export interface AuditItem {
  id: string;
  /** ISO 8601, when the action happened (not when it was flushed). */
  time: string;
  event: string;
  subject: string;
  bucket: string | null;
  details: Record<string, unknown>;
}

export interface AuditListQuery {
  event?: string;
  subject?: string;
  bucket?: string;
  from?: Date;
  to?: Date;
  cursor?: string;
  limit: number;
}

export interface AuditPage {
  items: AuditItem[];
  /** Pass back as `cursor` for the next (older) page; null on the last page. */
  nextCursor: string | null;
}

function encodeCursor(at: number, id: number): string {
  return Buffer.from(`${at}.${id}`).toString('base64url');
}

function decodeCursor(cursor: string): { at: number; id: number } {
  const match = /^(\d{1,16})\.(\d{1,16})$/.exec(Buffer.from(cursor, 'base64url').toString('latin1'));
  if (!match) throw new AppError('ValidationError', { message: 'cursor: is not a cursor this API returned' });
  return { at: Number(match[1]), id: Number(match[2]) };
}

export class AuditService implements AuditSink {
  private readonly now: () => number;
  private readonly maxBuffered: number;
  private buffer: AuditRowInput[] = [];
  private dropped = 0;

  constructor(private readonly opts: AuditServiceOptions) {
    this.now = opts.now ?? Date.now;
    this.maxBuffered = opts.maxBuffered ?? AUDIT_BUFFER_MAX;
  }

  /** Records dropped because the buffer was full (or a failed flush could not put them back). For metrics. */
  get droppedCount(): number {
    return this.dropped;
  }

  /** Records waiting for the next flush. */
  get bufferedCount(): number {
    return this.buffer.length;
  }

  record(entry: AuditRecord): void {
    try {
      const details =
        entry.details === undefined ? undefined : (stripSecrets(entry.details) as Record<string, unknown>);
      this.opts.logger.info(
        { audit: true, event: entry.event, subject: entry.subject, bucket: entry.bucket, details },
        'audit',
      );
      let json = details === undefined ? undefined : JSON.stringify(details);
      if (json !== undefined && Buffer.byteLength(json) > AUDIT_DETAILS_MAX_BYTES)
        json = JSON.stringify({ truncated: true });
      this.enqueue([
        {
          at: this.now(),
          event: entry.event,
          subject: entry.subject.slice(0, 256),
          bucket: entry.bucket,
          details: json,
        },
      ]);
    } catch (err) {
      // Never fail the request that is being audited.
      this.dropped += 1;
      this.opts.logger.error({ err }, 'audit record could not be queued');
    }
  }

  /**
   * Writes the buffered records in one transaction and prunes rows older than the retention. On a database error
   * the records go back to the front of the queue (bounded as usual) and the error is logged, not thrown.
   */
  flush(): { inserted: number; pruned: number } {
    const batch = this.buffer;
    this.buffer = [];
    const { meta } = this.opts;
    try {
      const cutoff = this.now() - this.opts.retentionDays * DAY_MS;
      return meta.transaction(() => {
        meta.audit.insertMany(batch);
        return { inserted: batch.length, pruned: meta.audit.pruneOlderThan(cutoff, PRUNE_BATCH) };
      });
    } catch (err) {
      this.opts.logger.error({ err, records: batch.length }, 'audit flush failed; will retry');
      const pending = this.buffer;
      this.buffer = [];
      this.enqueue([...batch, ...pending]);
      return { inserted: 0, pruned: 0 };
    }
  }

  /**
   * One page of stored records, newest first, matching every given filter (`from` inclusive, `to` exclusive).
   * ValidationError (400) for a cursor this API did not produce. Unflushed records are not visible yet.
   */
  list(query: AuditListQuery): AuditPage {
    const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
    const rows = this.opts.meta.audit.page({
      event: query.event,
      subject: query.subject,
      bucket: query.bucket,
      from: query.from?.getTime(),
      to: query.to?.getTime(),
      after,
      limit: query.limit + 1,
    });
    const page = rows.slice(0, query.limit);
    const last = page[page.length - 1];
    return {
      items: page.map((row) => ({
        id: String(row.id),
        time: new Date(row.at).toISOString(),
        event: row.event,
        subject: row.subject,
        bucket: row.bucket ?? null,
        details: row.details === undefined ? {} : (JSON.parse(row.details) as Record<string, unknown>),
      })),
      nextCursor: rows.length > query.limit && last ? encodeCursor(last.at, last.id) : null,
    };
  }

  /** Appends, dropping the oldest beyond the bound (ARCHITECTURE "Defaults for the spec's gaps": audit). */
  private enqueue(rows: AuditRowInput[]): void {
    this.buffer.push(...rows);
    const excess = this.buffer.length - this.maxBuffered;
    if (excess > 0) {
      this.buffer.splice(0, excess);
      this.dropped += excess;
    }
  }
}
