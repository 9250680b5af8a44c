// Reads a restore archive from its temp file with yauzl, distrusting everything: the central directory is read
// whole and checked against the guard rails (entry count, per-entry and total uncompressed size, names, duplicates,
// compression methods, declared ratios) BEFORE any byte is extracted, and every entry stream is held to its declared
// size. Any problem is AppError InvalidArchive (400). Only a compact record per entry is kept, never yauzl's objects.

import { Transform, type Readable } from 'node:stream';
import yauzl from 'yauzl';
import { invalid, isSafeEntryName } from '../../core/backup-manifest.js';

/** RESTORE_MAX_* (docs/backup.md "Guard rails"). */
export interface RestoreLimits {
  maxTotalBytes: number;
  maxEntryBytes: number;
  maxEntries: number;
  maxManifestBytes: number;
}

interface EntryRecord {
  offset: number;
  compressedSize: number;
  uncompressedSize: number;
  deflated: boolean;
}

/** Deflate cannot expand data more than about 1032 to 1: a larger declared ratio is a lie (a zip bomb's). */
const MAX_DEFLATE_RATIO = 1032;

function wrap(err: unknown): Error {
  if (err instanceof Error && err.name === 'AppError') return err;
  // yauzl's messages describe the structure ("invalid relative path: ../x", "end of central directory record
  // signature not found"), never our data: they make the 400 actionable.
  return invalid(`the zip cannot be read (${err instanceof Error ? err.message : String(err)})`);
}

export class ArchiveReader {
  /** Entry streams not yet closed: yauzl keeps the file open while any is, so close() destroys them first. */
  private readonly streams = new Set<Readable>();

  private constructor(
    private readonly zip: yauzl.ZipFile,
    private readonly records: Map<string, EntryRecord>,
    /** Sum of the entries' declared uncompressed sizes (all checked against the limits). */
    readonly totalBytes: number,
  ) {}

  /**
   * Opens the archive and validates its central directory against the limits. Throws InvalidArchive for a file
   * that is not a zip (or is truncated), too many entries, an entry too large, a total too large, an unsafe or
   * duplicate name, an encrypted entry, an unknown compression method, or a declared size deflate cannot produce.
   */
  static async open(path: string, limits: RestoreLimits): Promise<ArchiveReader> {
    let zip: yauzl.ZipFile;
    try {
      zip = await yauzl.openPromise(path, {
        lazyEntries: true,
        autoClose: false,
        validateEntrySizes: true,
        strictFileNames: true,
        decodeStrings: true,
      });
    } catch (err) {
      throw wrap(err);
    }
    try {
      // The count is in the end-of-central-directory record: refused before a single entry is read.
      if (zip.entryCount > limits.maxEntries)
        throw invalid(`${zip.entryCount} entries is more than RESTORE_MAX_ENTRIES (${limits.maxEntries})`);
      const { records, total } = await readCentralDirectory(zip, limits);
      return new ArchiveReader(zip, records, total);
    } catch (err) {
      zip.close();
      throw wrap(err);
    }
  }

  has(name: string): boolean {
    return this.records.has(name);
  }

  /** The declared uncompressed size of an entry, or undefined when there is none by that name. */
  sizeOf(name: string): number | undefined {
    return this.records.get(name)?.uncompressedSize;
  }

  /** Every entry name (for the check that the manifest accounts for each). */
  names(): IterableIterator<string> {
    return this.records.keys();
  }

  /**
   * The entry's bytes. The stream errors with InvalidArchive if the data is not exactly the declared size (a
   * truncated file, a deflate stream that inflates to more or less than it claims).
   */
  async open(name: string): Promise<Readable> {
    const record = this.records.get(name);
    if (!record) throw invalid(`the entry ${name} is missing`);
    try {
      const header = await this.zip.readLocalFileHeaderPromise(
        Object.assign(Object.create(yauzl.Entry.prototype) as yauzl.Entry, {
          relativeOffsetOfLocalHeader: record.offset,
          compressedSize: record.compressedSize,
          generalPurposeBitFlag: 0,
          compressionMethod: record.deflated ? 8 : 0,
        }),
        { minimal: true },
      );
      // The callback form: yauzl 3.4's openReadStreamLowLevelPromise calls openReadStream by mistake.
      const raw = await new Promise<Readable>((resolve, reject) => {
        this.zip.openReadStreamLowLevel(
          header.fileDataStart,
          record.compressedSize,
          0,
          record.compressedSize,
          record.deflated,
          record.uncompressedSize,
          (err, stream) => (err ? reject(err) : resolve(stream)),
        );
      });
      const stream = exactly(raw, record.uncompressedSize, name);
      this.streams.add(stream);
      stream.once('close', () => {
        this.streams.delete(stream);
        raw.destroy();
      });
      return stream;
    } catch (err) {
      throw wrap(err);
    }
  }

  /** The whole entry as text, refusing more than `maxBytes` (checked against the declared size first). */
  async readText(name: string, maxBytes: number): Promise<string> {
    const size = this.sizeOf(name);
    if (size === undefined) throw invalid(`the entry ${name} is missing`);
    if (size > maxBytes) throw invalid(`${name} is ${size} bytes, more than the limit of ${maxBytes}`);
    const chunks: Buffer[] = [];
    for await (const chunk of await this.open(name)) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  }

  /**
   * Closes the archive file, destroying entry streams a failure left unfinished (an open entry stream holds yauzl's
   * file descriptor, so a deleted temp archive would keep its disk space until the process exits).
   */
  close(): void {
    for (const stream of this.streams) stream.destroy();
    this.zip.close();
  }
}

function readCentralDirectory(
  zip: yauzl.ZipFile,
  limits: RestoreLimits,
): Promise<{ records: Map<string, EntryRecord>; total: number }> {
  return new Promise((resolve, reject) => {
    const records = new Map<string, EntryRecord>();
    let total = 0;
    const fail = (err: unknown): void => {
      zip.removeAllListeners('entry');
      reject(wrap(err));
    };
    zip.on('error', fail);
    zip.on('end', () => resolve({ records, total }));
    zip.on('entry', (entry: yauzl.Entry) => {
      try {
        const name = entry.fileName;
        if (name.endsWith('/') && entry.uncompressedSize === 0) {
          zip.readEntry(); // a directory entry (zip tools add them): nothing to restore
          return;
        }
        if (!isSafeEntryName(name))
          throw invalid(`the entry name ${JSON.stringify(name.slice(0, 200))} is not a safe relative path`);
        if (records.has(name)) throw invalid(`the entry ${name} appears twice`);
        if (entry.isEncrypted()) throw invalid(`the entry ${name} is encrypted`);
        const deflated = entry.compressionMethod === 8;
        if (!deflated && entry.compressionMethod !== 0)
          throw invalid(
            `the entry ${name} uses compression method ${entry.compressionMethod} (only stored and deflate)`,
          );
        if (!deflated && entry.compressedSize !== entry.uncompressedSize)
          throw invalid(`the stored entry ${name} declares two different sizes`);
        if (deflated && entry.uncompressedSize > Math.max(entry.compressedSize, 1) * MAX_DEFLATE_RATIO) {
          throw invalid(`the entry ${name} declares a size deflate cannot produce from its data (a zip bomb?)`);
        }
        if (entry.uncompressedSize > limits.maxEntryBytes) {
          throw invalid(
            `the entry ${name} is ${entry.uncompressedSize} bytes, more than RESTORE_MAX_ENTRY_BYTES (${limits.maxEntryBytes})`,
          );
        }
        total += entry.uncompressedSize;
        if (total > limits.maxTotalBytes)
          throw invalid(`the entries add up to more than RESTORE_MAX_TOTAL_BYTES (${limits.maxTotalBytes})`);
        records.set(name, {
          offset: entry.relativeOffsetOfLocalHeader,
          compressedSize: entry.compressedSize,
          uncompressedSize: entry.uncompressedSize,
          deflated,
        });
        zip.readEntry();
      } catch (err) {
        fail(err);
      }
    });
    zip.readEntry();
  });
}

/** Passes the stream through, failing it with InvalidArchive unless exactly `size` bytes arrive. */
function exactly(source: Readable, size: number, name: string): Readable {
  let seen = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      seen += chunk.length;
      if (seen > size) callback(invalid(`the entry ${name} holds more bytes than it declares`));
      else callback(null, chunk);
    },
    flush(callback) {
      callback(seen === size ? null : invalid(`the entry ${name} holds fewer bytes than it declares (truncated?)`));
    },
  });
  source.once('error', (err) => counter.destroy(wrap(err)));
  return source.pipe(counter);
}
