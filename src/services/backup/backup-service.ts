// Backups: a .zip of the whole instance or one bucket (docs/backup-format.md), streamed while it is built. The
// metadata comes from a point-in-time snapshot (a read transaction on a second connection); the bytes come from the
// blob files that snapshot names, decrypted by the same reader every GET uses, one entry at a time, so memory stays
// flat whatever the size. While a backup is open the blob GC unlinks nothing (ReadPins.holdAll), so a blob the
// snapshot still references cannot vanish mid-stream when a client overwrites or deletes its object.

import { createHash } from 'node:crypto';
import { Readable, Transform } from 'node:stream';
import yazl from 'yazl';
import {
  INDEX_CHUNK_VERSIONS,
  MANIFEST_ENTRY,
  type ArchivedVersion,
  type ManifestV2,
} from '../../core/backup-manifest.js';
import { backedUpConfig } from '../../core/bucket-config-parts.js';
import { noSuchBucket } from '../../core/errors.js';
import type { BlobStore } from '../../storage/blobs/blob-store.js';
import type { MetadataSnapshot } from '../../storage/db/metadata-snapshot.js';
import type { ObjectPartRow, ObjectRow } from '../../storage/db/objects-repo.js';
import type { ReadPins } from '../objects/object-reader.js';
import { openSnapshotBytes } from './snapshot-bytes.js';

export type BackupScope = { kind: 'instance' } | { kind: 'bucket'; bucket: string };

export interface ArchiveSummary {
  buckets: number;
  versions: number;
  entries: number;
  /** Object bytes in the archive (decrypted). */
  bytes: number;
}

export interface BackupArchive {
  /** The .zip bytes. Destroying it (a client that hangs up) ends the backup and releases the snapshot. */
  stream: Readable;
  /** Resolves once the whole archive has been read from `stream`; rejects if the backup failed or was abandoned. */
  done: Promise<ArchiveSummary>;
  /**
   * About how large the archive will be: the object bytes in scope plus an allowance per version (free-space checks).
   */
  estimatedBytes: number;
  /** The snapshot's time (epoch ms): the archive shows exactly the commits made before it. */
  createdAt: number;
}

export interface BackupServiceOptions {
  /** Opens a point-in-time view of the metadata (MetadataSnapshot.open on the database file). */
  openSnapshot: () => MetadataSnapshot;
  blobs: BlobStore;
  pins: ReadPins;
  storeVersion: string;
  now?: () => number;
  /**
   * Streams a version whose bytes live only on a remote target (a tiered stub, `tierState: 'stub'`) without
   * rehydrating it. Wired where tiering is built; without it such a version fails the backup (InvalidObjectState)
   * rather than being left out silently.
   */
  stubReader?: { stream(row: ObjectRow): Readable } | undefined;
  /** Other collectors to hold while a backup is open (tiering's remote-copy GC), like `pins` holds the blob GC. */
  holds?: readonly { holdAll(): () => void }[];
}

const PAGE = 256;
/** Zip headers, central directory record and index line: a generous allowance per version beyond its bytes. */
const PER_VERSION_OVERHEAD = 1024;
/** Archive entries are private files when extracted (regular file, 0600). */
const ENTRY_MODE = 0o100600;

function archivedVersion(row: ObjectRow, parts: readonly ObjectPartRow[]): ArchivedVersion {
  const version: ArchivedVersion = {
    bucket: row.bucket,
    key: row.key,
    versionId: row.versionId,
    deleteMarker: row.isDeleteMarker,
    lastModified: new Date(row.lastModified).toISOString(),
    size: row.size,
    etag: row.etag,
    headers: { ...row.headers } as Record<string, string>,
    userMeta: row.userMeta,
    storageClass: row.storageClass,
  };
  if (row.checksumAlgorithm !== undefined && row.checksumValue !== undefined) {
    version.checksum = {
      algorithm: row.checksumAlgorithm,
      value: row.checksumValue,
      ...(row.checksumType ? { type: row.checksumType } : {}),
    };
  }
  if (row.tags && row.tags.length > 0) version.tags = row.tags;
  if (row.retention) version.retention = row.retention;
  if (row.legalHold) version.legalHold = true;
  if (row.acl) version.acl = row.acl;
  if (parts.length > 0) {
    version.parts = parts.map((p) => ({
      partNumber: p.partNumber,
      size: p.size,
      etag: p.etag,
      ...(p.checksum !== undefined ? { checksum: p.checksum } : {}),
    }));
  }
  return version;
}

export class BackupService {
  private readonly now: () => number;

  constructor(private readonly opts: BackupServiceOptions) {
    this.now = opts.now ?? Date.now;
  }

  /** The bucket names a snapshot taken now would hold (for the per-bucket scheduled scope). */
  bucketNames(): string[] {
    const snapshot = this.opts.openSnapshot();
    try {
      return snapshot.buckets().map((b) => b.name);
    } finally {
      snapshot.close();
    }
  }

  /**
   * Starts a backup of the scope as of now and returns its stream at once. Throws NoSuchBucket (synchronously) for a
   * bucket scope naming no bucket. A blob found corrupt or missing mid-way fails the stream (the archive is then
   * truncated and will not restore: a partial backup is never mistaken for a whole one).
   */
  createArchive(scope: BackupScope): BackupArchive {
    const createdAt = this.now();
    const snapshot = this.opts.openSnapshot();
    const releases = [this.opts.pins, ...(this.opts.holds ?? [])].map((h) => h.holdAll());
    const release = (): void => releases.forEach((r) => r());
    let buckets;
    let estimatedBytes = 0;
    try {
      buckets = snapshot.buckets();
      if (scope.kind === 'bucket') {
        buckets = buckets.filter((b) => b.name === scope.bucket);
        if (buckets.length === 0) throw noSuchBucket(scope.bucket);
      }
      const usage = snapshot.usage();
      for (const b of buckets) {
        const used = usage.get(b.name);
        estimatedBytes += (used?.bytes ?? 0) + (used?.versions ?? 0) * PER_VERSION_OVERHEAD;
      }
    } catch (err) {
      snapshot.close();
      release();
      throw err;
    }
    const zip = new yazl.ZipFile();
    const out = zip.outputStream as Readable;
    const abort = new AbortController();
    // Listened for from the start: a small archive can be read to its end before the writer gets to wait for that.
    let hasEnded = false;
    const ended = new Promise<void>((resolve) =>
      out.once('end', () => {
        hasEnded = true;
        resolve();
      }),
    );
    out.once('close', () => {
      if (!hasEnded) abort.abort(new Error('the backup stream was closed before it ended'));
    });
    zip.once('error', (err: Error) => abort.abort(err));
    const inScope = buckets;
    const done = (async (): Promise<ArchiveSummary> => {
      try {
        const counts = new Map(inScope.map((b) => [b.name, 0]));
        const summary = await this.writeEntries(zip, snapshot, {
          bucket: scope.kind === 'bucket' ? scope.bucket : undefined,
          counts,
          signal: abort.signal,
        });
        const manifest: ManifestV2 = {
          version: 2,
          kind: scope.kind,
          createdAt: new Date(createdAt).toISOString(),
          storeVersion: this.opts.storeVersion,
          acls: true,
          buckets: inScope.map((b) => ({
            name: b.name,
            createdAt: new Date(b.createdAt).toISOString(),
            versioning: b.versioning,
            objectLock: b.objectLock,
            config: backedUpConfig(b.config),
            versionCount: counts.get(b.name) ?? 0,
          })),
          indexes: summary.indexes,
          totals: { versions: summary.versions, entries: summary.entries, bytes: summary.bytes },
        };
        zip.addBuffer(Buffer.from(JSON.stringify(manifest, null, 1)), MANIFEST_ENTRY, {
          compress: false,
          mtime: new Date(createdAt),
          mode: ENTRY_MODE,
        });
        zip.end();
        await Promise.race([ended, aborted(abort.signal)]);
        return { buckets: inScope.length, versions: summary.versions, entries: summary.entries, bytes: summary.bytes };
      } catch (err) {
        if (!out.destroyed) out.destroy(err as Error);
        throw err;
      } finally {
        snapshot.close();
        release();
      }
    })();
    // The caller learns of a failure through the stream (destroyed with the error) and, if it awaits it, `done`.
    done.catch(() => undefined);
    return { stream: out, done, estimatedBytes, createdAt };
  }

  private async writeEntries(
    zip: yazl.ZipFile,
    snapshot: MetadataSnapshot,
    { bucket, counts, signal }: { bucket: string | undefined; counts: Map<string, number>; signal: AbortSignal },
  ): Promise<{ versions: number; entries: number; bytes: number; indexes: string[] }> {
    const indexes: string[] = [];
    let lines: string[] = [];
    let versions = 0;
    let entries = 0;
    let bytes = 0;
    const flush = (): void => {
      if (lines.length === 0) return;
      const name = `index/${String(indexes.length + 1).padStart(6, '0')}.jsonl`;
      // Index text is deflated (it shrinks several times); object bytes are stored as they are (docs/decisions.md).
      zip.addBuffer(Buffer.from(`${lines.join('\n')}\n`), name, { compress: true, mode: ENTRY_MODE });
      indexes.push(name);
      lines = [];
    };
    for (let after = 0; ;) {
      signal.throwIfAborted();
      const page = snapshot.versions(bucket, after, PAGE);
      if (page.length === 0) break;
      for (const row of page) {
        after = row.id;
        const parts = row.blobId === undefined && row.partCount ? snapshot.parts(row.id) : [];
        const line = archivedVersion(row, parts);
        if (!row.isDeleteMarker) {
          entries++;
          line.entry = `objects/${String(entries).padStart(9, '0')}`;
          line.sha256 = await this.addObjectEntry(zip, snapshot, { name: line.entry, row, parts, signal });
          bytes += row.size;
        }
        lines.push(JSON.stringify(line));
        versions++;
        counts.set(row.bucket, (counts.get(row.bucket) ?? 0) + 1);
        if (lines.length >= INDEX_CHUNK_VERSIONS) flush();
      }
    }
    flush();
    return { versions, entries, bytes, indexes };
  }

  /**
   * Adds one version's decrypted bytes as a stored entry and resolves with their hex SHA-256 once yazl has read them
   * all. The blob is opened only when yazl is ready for the entry, and the next entry is added only after this one
   * ends: one blob is open, and at most a stream buffer of bytes is in memory, at any time.
   */
  private addObjectEntry(
    zip: yazl.ZipFile,
    snapshot: MetadataSnapshot,
    entry: { name: string; row: ObjectRow; parts: readonly ObjectPartRow[]; signal: AbortSignal },
  ): Promise<string> {
    const { name, row, parts, signal } = entry;
    return new Promise<string>((resolve, reject) => {
      const hash = createHash('sha256');
      let source: Readable | undefined;
      const onAbort = (): void => {
        source?.destroy();
        reject(signal.reason as Error);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      const fail = (err: Error): void => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      };
      zip.addReadStreamLazy(
        name,
        { compress: false, size: row.size, mtime: new Date(row.lastModified), mode: ENTRY_MODE },
        (cb) => {
          const tap = new Transform({
            transform(chunk: Buffer, _encoding, callback) {
              hash.update(chunk);
              callback(null, chunk);
            },
          });
          tap.once('end', () => {
            signal.removeEventListener('abort', onAbort);
            resolve(hash.digest('hex'));
          });
          try {
            source = row.size === 0 ? Readable.from([]) : openSnapshotBytes(this.opts, { row, parts, snapshot });
          } catch (err) {
            fail(err as Error);
            return;
          }
          source.once('error', (err: Error) => {
            tap.destroy(err);
            fail(err);
          });
          source.pipe(tap);
          cb(null, tap);
        },
      );
    });
  }
}

function aborted(signal: AbortSignal): Promise<never> {
  return new Promise((_resolve, reject) => {
    if (signal.aborted) reject(signal.reason as Error);
    signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
  });
}
