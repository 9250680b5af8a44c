// A selection of objects, or folders taken whole, as one .zip download (docs/console.md, "Download as zip"): the
// current version of each key, decrypted, as of one point-in-time snapshot, streamed entry by entry while the client
// reads (one blob open at a time, memory flat whatever the size). The blob GC is held while it streams, as for a
// backup (backup-service.ts), so a version the snapshot names cannot vanish mid-way.

import type { Readable } from 'node:stream';
import yazl from 'yazl';
import { AppError, noSuchBucket } from '../../core/errors.js';
import type { MetadataSnapshot } from '../../storage/db/metadata-snapshot.js';
import type { ObjectRow } from '../../storage/db/objects-repo.js';
import { zipEntryName } from '../../core/zip-entry-name.js';
import { openSnapshotBytes, type SnapshotByteSource } from './snapshot-bytes.js';

export interface ZipSelection {
  bucket: string;
  /** Entry names are the keys relative to this prefix (the folder the selection was made in; '' at the root). */
  base: string;
  /**
   * Object keys, and folders (ending in '/') taken whole with everything under them; all start with `base`. Absent:
   * the whole of `base` (the whole bucket when it is '').
   */
  items?: readonly string[] | undefined;
}

export interface ZipDownload {
  /** The .zip bytes. Destroying it (a client that hangs up) ends the download and releases the snapshot. */
  stream: Readable;
  objects: number;
  /** Object bytes in the archive. */
  bytes: number;
  /** The archive's exact length (every entry is stored, sizes known up front). */
  size: number;
}

export interface ZipDownloadOptions extends SnapshotByteSource {
  openSnapshot: () => MetadataSnapshot;
  /** Other collectors to hold while a download streams (tiering's remote-copy GC). */
  holds?: readonly { holdAll(): () => void }[];
}

/** The bounds of one download (docs/console.md). Bytes are unbounded: entries past 4 GiB use ZIP64. */
export const ZIP_LIMITS = { items: 1000, objects: 10_000 } as const;
const PAGE = 256;
const ENTRY_MODE = 0o100644;

export class ZipDownloads {
  constructor(private readonly opts: ZipDownloadOptions) {}

  /**
   * What a download of the selection would hold now. Throws NoSuchBucket, NoSuchKey for a selected key that has no
   * current version, InvalidRequest for a selection past ZIP_LIMITS or an item outside `base`.
   */
  plan(selection: ZipSelection): { objects: number; bytes: number } {
    checkItems(selection);
    const snapshot = this.opts.openSnapshot();
    try {
      const rows = resolve(snapshot, selection, { strict: true });
      return { objects: rows.length, bytes: rows.reduce((n, r) => n + r.size, 0) };
    } finally {
      snapshot.close();
    }
  }

  /**
   * Starts the download as of now. Keys deleted since the plan are left out; the limits are checked again (before
   * any byte is sent).
   */
  open(selection: ZipSelection): ZipDownload {
    checkItems(selection);
    const snapshot = this.opts.openSnapshot();
    const releases = [this.opts.pins, ...(this.opts.holds ?? [])].map((h) => h.holdAll());
    let released = false;
    const release = (): void => {
      if (released) return;
      released = true;
      snapshot.close();
      releases.forEach((r) => r());
    };
    try {
      const rows = resolve(snapshot, selection, { strict: false });
      const zip = new yazl.ZipFile();
      const out = zip.outputStream as Readable;
      out.once('close', release);
      out.once('end', release);
      zip.once('error', (err: Error) => out.destroy(err));
      for (const row of rows) this.addEntry(zip, { snapshot, row, base: selection.base, out });
      let size = -1;
      // yazl calls this at once when every entry's size is known (all are stored, none deflated).
      endWithSize(zip, (total) => (size = total));
      return { stream: out, objects: rows.length, bytes: rows.reduce((n, r) => n + r.size, 0), size };
    } catch (err) {
      release();
      throw err;
    }
  }

  private addEntry(
    zip: yazl.ZipFile,
    entry: { snapshot: MetadataSnapshot; row: ObjectRow; base: string; out: Readable },
  ): void {
    const { snapshot, row, out } = entry;
    const name = zipEntryName(row.key.slice(entry.base.length));
    const mtime = new Date(row.lastModified);
    if (name.endsWith('/')) {
      zip.addEmptyDirectory(name, { mtime, mode: 0o40755 });
      return;
    }
    if (row.size === 0) {
      zip.addBuffer(Buffer.alloc(0), name, { compress: false, mtime, mode: ENTRY_MODE });
      return;
    }
    // Opened only when yazl reaches the entry, so one blob is open at a time.
    zip.addReadStreamLazy(name, { compress: false, size: row.size, mtime, mode: ENTRY_MODE }, (cb) => {
      let source: Readable;
      try {
        const parts = row.blobId === undefined && row.partCount ? snapshot.parts(row.id) : [];
        source = openSnapshotBytes(this.opts, { row, parts, snapshot });
      } catch (err) {
        cb(err as Error, undefined as unknown as Readable);
        return;
      }
      // yazl pipes the entry's stream without listening for its errors: a blob found corrupt (or a remote that fails)
      // mid-way ends the download, and a client that hangs up closes the blob being read.
      source.once('error', (err: Error) => out.destroy(err));
      const stop = (): void => void source.destroy();
      out.once('close', stop);
      source.once('close', () => out.off('close', stop));
      cb(null, source);
    });
  }
}

/** yazl's end(), with its total-size callback as yazl calls it (@types/yazl declares it without the argument). */
function endWithSize(zip: yazl.ZipFile, onSize: (total: number) => void): void {
  const end = zip.end.bind(zip) as (options: object, callback: (total: number) => void) => void;
  end({}, onSize);
}

function checkItems({ base, items = [] }: ZipSelection): void {
  if (items.length > ZIP_LIMITS.items) {
    throw new AppError('InvalidRequest', { message: `At most ${ZIP_LIMITS.items} items can be selected for a zip.` });
  }
  if (base !== '' && !base.endsWith('/')) {
    throw new AppError('InvalidRequest', { message: 'The base must be a folder: empty or ending in "/".' });
  }
  const outside = items.find((item) => !item.startsWith(base));
  if (outside !== undefined) {
    throw new AppError('InvalidRequest', { message: `"${outside}" is not inside the folder "${base}".` });
  }
}

/** The current versions the selection names, each once, in the order of the items (a folder's keys in key order). */
function resolve(snapshot: MetadataSnapshot, selection: ZipSelection, { strict }: { strict: boolean }): ObjectRow[] {
  const { bucket } = selection;
  if (!snapshot.buckets().some((b) => b.name === bucket)) throw noSuchBucket(bucket);
  const rows: ObjectRow[] = [];
  const seen = new Set<string>();
  const add = (row: ObjectRow): void => {
    // The base folder's own marker object has no name inside the archive.
    if (seen.has(row.key) || row.key === selection.base) return;
    seen.add(row.key);
    rows.push(row);
    if (rows.length > ZIP_LIMITS.objects) {
      throw new AppError('InvalidRequest', {
        message:
          `The selection holds more than ${ZIP_LIMITS.objects} objects. Download a smaller folder, ` +
          'or use a bucket backup or an S3 client for the whole bucket.',
      });
    }
  };
  for (const item of selection.items ?? [selection.base]) {
    if (item !== '' && !item.endsWith('/')) {
      const row = snapshot.current(bucket, item);
      if (row !== undefined) add(row);
      else if (strict) throw new AppError('NoSuchKey', { message: `"${item}" does not exist (or is deleted).` });
      continue;
    }
    for (let from = { key: item, inclusive: true }; ;) {
      const page = snapshot.currentFrom(bucket, from, PAGE);
      const inside = page.filter((r) => r.key.startsWith(item));
      inside.forEach(add);
      if (inside.length < PAGE) break;
      from = { key: page[page.length - 1]!.key, inclusive: false };
    }
  }
  return rows;
}
