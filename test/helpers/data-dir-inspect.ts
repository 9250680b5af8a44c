// Looks inside a data directory from the outside, for the crash and fault suites: the blob files on disk, and the
// metadata database through a separate read-only connection (integrity check, blob references, the outboxes, audit).
// Safe while the server runs (WAL readers never block the writer) and after a kill -9, before the next boot.

import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';

export const sha256Hex = (data: Uint8Array): string => createHash('sha256').update(data).digest('hex');
export const md5Hex = (data: Uint8Array): string => createHash('md5').update(data).digest('hex');

/** Every regular file under `dir`, recursively (none when it does not exist). */
export function allFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));
}

/** Files under `dir` whose bytes contain `needle`. */
export function filesContaining(dir: string, needle: Buffer): string[] {
  return allFiles(dir).filter((file) => readFileSync(file).includes(needle));
}

/** The ids of the blob files under DATA_DIR/blobs (the file names). */
export function blobFileIds(dataDir: string): Set<string> {
  return new Set(allFiles(join(dataDir, 'blobs')).map((f) => f.slice(f.lastIndexOf('/') + 1)));
}

/** Runs `fn` with a read-only connection to DATA_DIR/meta.db, closed afterwards. */
export function withReadOnlyDb<T>(dataDir: string, fn: (db: Database.Database) => T): T {
  const db = new Database(join(dataDir, 'meta.db'), { readonly: true });
  try {
    return fn(db);
  } finally {
    db.close();
  }
}

/** Inline blob rows (small objects' sealed bytes in the database). */
export function inlineBlobRows(dataDir: string): number {
  return withReadOnlyDb(dataDir, (db) => db.prepare('SELECT COUNT(*) FROM inline_blobs').pluck().get() as number);
}

/** One object version row, as the crash suites compare it. */
export interface VersionRow {
  id: number;
  bucket: string;
  key: string;
  versionId: string;
  isLatest: boolean;
  isDeleteMarker: boolean;
  size: number;
  etag: string;
  blobId: string | null;
  tags: Record<string, string>;
}

export interface WebhookRow {
  deliveryId: string;
  status: string;
  event: { type: string; bucket: string; key: string; size: number; etag: string; versionId?: string };
  body: string;
}

export interface AuditRow {
  at: number;
  event: string;
  bucket: string | null;
  details: Record<string, unknown>;
}

/** What the database says, read in one go. */
export interface DbSnapshot {
  /** PRAGMA integrity_check's rows ('ok' alone when sound). */
  integrity: string[];
  /** Object versions, by bucket, key and insertion (commit) order. */
  versions: VersionRow[];
  /** File blob ids any committed row references (object, object part, upload part). */
  fileBlobRefs: Set<string>;
  /** Inline blob ids committed rows reference, and the inline_blobs rows present. */
  inlineRefs: Set<string>;
  inlineRows: Set<string>;
  /** Blobs queued for GC, not yet unlinked. */
  blobGcQueue: Set<string>;
  /** Replication outbox rows by "bucket/key" (status). */
  replication: Map<string, string>;
  webhooks: WebhookRow[];
  audit: AuditRow[];
  /** Incomplete multipart uploads. */
  uploads: number;
}

const isInline = (id: string): boolean => id.startsWith('i');

/**
 * Reads the whole snapshot (the suites keep their data sets small) in one read transaction. `integrity: false` skips
 * the integrity check (for polling).
 */
export function readDbSnapshot(dataDir: string, opts: { integrity?: boolean } = {}): DbSnapshot {
  return withReadOnlyDb(dataDir, (db) =>
    db.transaction(() => {
      const integrity =
        opts.integrity === false ? ['skipped'] : (db.prepare('PRAGMA integrity_check').pluck().all() as string[]);
      const versions = (
        db
          .prepare(
            'SELECT id, bucket, key, version_id, is_latest, is_delete_marker, size, etag, blob_id, tags FROM objects ORDER BY bucket, key, id',
          )
          .all() as {
          id: number;
          bucket: string;
          key: string;
          version_id: string;
          is_latest: number;
          is_delete_marker: number;
          size: number;
          etag: string;
          blob_id: string | null;
          tags: string | null;
        }[]
      ).map((r): VersionRow => ({
        id: r.id,
        bucket: r.bucket,
        key: r.key,
        versionId: r.version_id,
        isLatest: r.is_latest === 1,
        isDeleteMarker: r.is_delete_marker === 1,
        size: r.size,
        etag: r.etag,
        blobId: r.blob_id,
        tags: tagMap(r.tags),
      }));
      const refs = [
        ...(db.prepare('SELECT blob_id FROM objects WHERE blob_id IS NOT NULL').pluck().all() as string[]),
        ...(db.prepare('SELECT blob_id FROM object_parts').pluck().all() as string[]),
        ...(db.prepare('SELECT blob_id FROM upload_parts').pluck().all() as string[]),
      ];
      const replication = new Map<string, string>();
      for (const r of db.prepare('SELECT bucket, key, status FROM replication_outbox').all() as {
        bucket: string;
        key: string;
        status: string;
      }[]) {
        replication.set(`${r.bucket}/${r.key}`, r.status);
      }
      const webhooks = (
        db.prepare('SELECT delivery_id, status, body FROM webhook_outbox ORDER BY id').all() as {
          delivery_id: string;
          status: string;
          body: string;
        }[]
      ).map((r): WebhookRow => ({
        deliveryId: r.delivery_id,
        status: r.status,
        body: r.body,
        event: JSON.parse(r.body) as WebhookRow['event'],
      }));
      const audit = (
        db.prepare('SELECT at, event, bucket, details FROM audit ORDER BY id').all() as {
          at: number;
          event: string;
          bucket: string | null;
          details: string | null;
        }[]
      ).map((r): AuditRow => ({
        at: r.at,
        event: r.event,
        bucket: r.bucket,
        details: r.details ? (JSON.parse(r.details) as Record<string, unknown>) : {},
      }));
      return {
        integrity,
        versions,
        fileBlobRefs: new Set(refs.filter((id) => !isInline(id))),
        inlineRefs: new Set(refs.filter(isInline)),
        inlineRows: new Set(db.prepare('SELECT blob_id FROM inline_blobs').pluck().all() as string[]),
        blobGcQueue: new Set(db.prepare('SELECT blob_id FROM blob_gc').pluck().all() as string[]),
        replication,
        webhooks,
        audit,
        uploads: db.prepare('SELECT COUNT(*) FROM multipart_uploads').pluck().get() as number,
      };
    })(),
  );
}

/** The tags column (a JSON TagSet, NULL for none) as a plain map. */
function tagMap(column: string | null): Record<string, string> {
  if (!column) return {};
  const parsed = JSON.parse(column) as unknown;
  const out: Record<string, string> = {};
  if (Array.isArray(parsed)) {
    for (const t of parsed as { key?: string; Key?: string; value?: string; Value?: string }[])
      out[String(t.key ?? t.Key)] = String(t.value ?? t.Value);
  } else if (parsed && typeof parsed === 'object') {
    Object.assign(out, parsed);
  }
  return out;
}

/** Ids in `a` missing from `b`. */
export function missingFrom(a: Iterable<string>, b: ReadonlySet<string>): string[] {
  return [...a].filter((x) => !b.has(x));
}
