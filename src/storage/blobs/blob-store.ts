// The blob store: encrypted object bytes under DATA_DIR/blobs/ab/cd/ID, written by a two-phase writer
// (stage = write into tmp/; commit = rename into place, then fdatasync the file and fsync the directory together).
// The on-disk format is described in blob-format.ts. Small objects may instead be sealed in memory as inline
// blobs (the same format), which the caller stores in the metadata transaction (docs/decisions.md: "Inline small
// objects").

import { open, rm, readdir, rename, unlink, type FileHandle } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { holdBulkHeap } from '../../lib/bulk-heap.js';
import { BlobReadStream, openSealedBlob, readFileBlobAtOnce } from './blob-reader.js';
import {
  createHeader,
  DEFAULT_SEGMENT_SIZE,
  KEY_SIZE,
  MAX_SEGMENT_SIZE,
  MIN_SEGMENT_SIZE,
  sealBuffer,
  SegmentLayout,
} from './blob-format.js';
import { assertBlobId, BlobTree, fsyncDir, isInlineBlobId, newBlobId, newInlineBlobId } from './blob-tree.js';
import { SegmentWriter } from './blob-writer.js';
import { sweepOrphans } from './blob-sweeper.js';

export { BlobCorruptError, type BlobCorruptReason } from './blob-corrupt-error.js';
export { newBlobId, isBlobId, isInlineBlobId } from './blob-tree.js';

/**
 * Bodies from this size up count as bulk transfers while sealed or opened in memory (lib/bulk-heap.ts): at c32 the
 * buffers of 64 KiB objects set off full GCs under the server's tight heap setting; 4 KiB ones do not.
 */
const BULK_MIN_BYTES = 16 * 1024;

/** Runs `work` under the bulk heap setting when `bytes` is at least BULK_MIN_BYTES. */
function asBulk<T>(bytes: number, work: () => T): T {
  if (bytes < BULK_MIN_BYTES) return work();
  const release = holdBulkHeap();
  try {
    return work();
  } finally {
    release();
  }
}

/** Ciphertext per write and per read: large enough to amortise syscalls, small enough to bound memory. */
const IO_BATCH_BYTES = 1024 * 1024;
/** A blob being written is flushed to disk in the background every this many bytes (blob-writer.ts, write-behind). */
const WRITE_BEHIND_BYTES = 4 * 1024 * 1024;

export interface BlobStoreOptions {
  dataDir: string;
  /** The 32-byte SSE master key. Never logged, never put in an error. */
  masterKey: Buffer;
  /** Plaintext bytes per sealed segment for new blobs (default 64 KiB); existing blobs keep theirs. */
  segmentSize?: number;
  /** Draws where new blobs are placed (BlobTree.place; default Math.random): tests pass a seeded one. */
  placementRandom?: () => number;
}

/** A blob written to tmp/, not yet durable and not yet visible under blobs/. */
export interface StagedBlob {
  readonly id: string;
  /** Plaintext bytes written. */
  readonly size: number;
  /**
   * Renames tmp -> blobs/ab/cd/id, then fdatasyncs the file and fsyncs the directory (and new parents) at the same
   * time. Durable when it resolves: only then may metadata point at the blob.
   */
  commit(): Promise<void>;
  /** Removes the tmp file; idempotent; safe after a failed commit; a no-op after a successful one. */
  discard(): Promise<void>;
  /**
   * Set for an inline blob: its sealed bytes, which the metadata transaction that references the blob must store
   * (commit() and discard() have nothing to do for it). Undefined for a file blob.
   */
  readonly sealed?: Buffer | undefined;
}

export class BlobStore {
  #masterKey: Buffer;
  private readonly tree: BlobTree;
  private readonly segmentSize: number;

  /** Throws TypeError for a master key that is not 32 bytes or a segment size out of range. */
  constructor(opts: BlobStoreOptions) {
    if (!Buffer.isBuffer(opts.masterKey) || opts.masterKey.length !== KEY_SIZE) {
      throw new TypeError(`the SSE master key must be ${KEY_SIZE} bytes`);
    }
    const segmentSize = opts.segmentSize ?? DEFAULT_SEGMENT_SIZE;
    if (!Number.isInteger(segmentSize) || segmentSize < MIN_SEGMENT_SIZE || segmentSize > MAX_SEGMENT_SIZE) {
      throw new TypeError(`segmentSize must be an integer in [${MIN_SEGMENT_SIZE}, ${MAX_SEGMENT_SIZE}]`);
    }
    this.#masterKey = Buffer.from(opts.masterKey);
    this.tree = new BlobTree(opts.dataDir, opts.placementRandom);
    this.segmentSize = segmentSize;
  }

  /** Creates blobs/ and tmp/ (0700), makes the tree durable, and empties tmp/ (a crash's half-written blobs). */
  async init(): Promise<void> {
    await this.tree.init();
    const leftovers = await readdir(this.tree.tmpDir);
    for (const name of leftovers) await rm(this.tree.tmpPath(name), { recursive: true, force: true });
  }

  /**
   * Encrypts `source` into tmp/ (not yet fsynced: commit() does that). If the source throws or `signal` aborts, the
   * tmp file is
   * removed and the error (e.g. an AppError from a chunk-signature check upstream) is rethrown unchanged.
   * The signal is checked between chunks: a source stalled inside next() must end or throw by itself
   * (destroying the request stream it reads from does that).
   */
  async stage(source: AsyncIterable<Buffer | Uint8Array>, opts: { signal?: AbortSignal } = {}): Promise<StagedBlob> {
    const { signal } = opts;
    signal?.throwIfAborted();
    return this.write(async (writer) => {
      for await (const chunk of source) {
        signal?.throwIfAborted();
        await writer.push(chunk);
      }
      signal?.throwIfAborted();
    });
  }

  /** stage() for a body already in memory: for a small body, one write. */
  stageBuffer(data: Buffer): Promise<StagedBlob> {
    return this.write((writer) => writer.push(data));
  }

  /**
   * Seals a small body in memory as an inline blob: no file, no fsync. Its bytes become durable with the metadata
   * transaction that stores `sealed`, in the same WAL fsync as the row that points at them.
   */
  sealInline(data: Buffer): StagedBlob {
    return {
      id: newInlineBlobId(),
      size: data.length,
      sealed: asBulk(data.length, () => sealBuffer(this.#masterKey, this.segmentSize, data)),
      commit: () => Promise.resolve(),
      discard: () => Promise.resolve(),
    };
  }

  private async write(fill: (writer: SegmentWriter) => Promise<void>): Promise<StagedBlob> {
    const id = this.tree.place(newBlobId());
    const tmpPath = this.tree.tmpPath(id);
    // The blob's directory is made (and its link fsynced) while the body is written, not after: on a young data dir
    // most blobs land in a directory not made yet, and that mkdir and fsync would otherwise sit on the commit's path
    // (docs/performance.md, "Medium objects"). A failure here is seen again, and retried, by commit().
    this.tree.ensureLeaf(id)?.catch(() => undefined);
    const { header, dataKey } = createHeader(this.#masterKey, this.segmentSize);
    const fh = await open(tmpPath, 'wx', 0o600);
    const segmentSize = this.segmentSize;
    const writer = new SegmentWriter({
      fh,
      dataKey,
      header,
      segmentSize,
      batchBytes: IO_BATCH_BYTES,
      writeBehindBytes: WRITE_BEHIND_BYTES,
    });
    try {
      await fill(writer);
      await writer.finish();
    } catch (err) {
      await writer.settle();
      await fh.close().catch(() => undefined);
      await unlink(tmpPath).catch(() => undefined);
      throw err;
    }
    return this.staged(id, writer.size, fh);
  }

  /**
   * The file stays open until commit: its data is fdatasynced after the rename, together with the directory.
   * Renaming before the data is durable is safe because nothing refers to blobs/ab/cd/id until commit() has
   * resolved; a crash in between leaves an unreferenced file, which the boot-time orphan sweep removes.
   */
  private staged(id: string, size: number, fh: FileHandle): StagedBlob {
    const tree = this.tree;
    let committed: Promise<void> | undefined;
    let renamed = false;
    let closed = false;
    const close = async (): Promise<void> => {
      if (closed) return;
      closed = true;
      await fh.close();
    };
    const ignoreMissing = (err: NodeJS.ErrnoException): void => {
      if (err.code !== 'ENOENT') throw err;
    };
    return {
      id,
      size,
      commit() {
        committed ??= (async () => {
          await tree.ensureLeaf(id);
          await rename(tree.tmpPath(id), tree.blobPath(id));
          renamed = true;
          // Two independent fsyncs, waited for together: the bytes, and the name that publishes them.
          await Promise.all([fh.datasync(), fsyncDir(tree.leafDir(id))]);
          await close();
        })();
        return committed;
      },
      async discard() {
        if (committed) {
          const ok = await committed.then(
            () => true,
            () => false,
          );
          if (ok) return;
        }
        await close().catch(() => undefined);
        await unlink(renamed ? tree.blobPath(id) : tree.tmpPath(id)).catch(ignoreMissing);
      },
    };
  }

  /**
   * Plaintext bytes [start, end] (inclusive; default the whole blob) of a blob of `size` plaintext bytes.
   * Decrypts only the needed segments and authenticates each before emitting any of its bytes. The stream
   * errors with BlobCorruptError ('missing' | 'tampered' | 'truncated' | 'header'); throws RangeError
   * synchronously for a range outside [0, size - 1] and TypeError for a malformed id.
   */
  createReadStream(
    id: string,
    opts: { size: number; start?: number; end?: number; sealed?: Buffer | undefined },
  ): Readable {
    if (opts.sealed === undefined) assertBlobId(id);
    else if (!isInlineBlobId(id)) throw new TypeError('sealed bytes belong to an inline blob id');
    const { size, start, end } = checkedRange(opts);
    return new BlobReadStream({
      id,
      path: this.tree.blobPath(id),
      masterKey: this.#masterKey,
      size,
      start,
      end,
      readBytes: IO_BATCH_BYTES,
      expectedSegmentSize: this.segmentSize,
      sealed: opts.sealed,
    });
  }

  /**
   * An inline blob's plaintext bytes [start, end] (inclusive; default the whole blob), decrypted and authenticated at
   * once from its sealed bytes. Throws BlobCorruptError ('tampered' | 'truncated' | 'header'), and RangeError and
   * TypeError as createReadStream does.
   */
  readSealed(
    id: string,
    opts: { size: number; start?: number | undefined; end?: number | undefined; sealed: Buffer },
  ): Buffer {
    if (!isInlineBlobId(id)) throw new TypeError('sealed bytes belong to an inline blob id');
    const range = checkedRange(opts);
    return asBulk(opts.sealed.length, () =>
      openSealedBlob({ id, masterKey: this.#masterKey, ...range, sealed: opts.sealed }),
    );
  }

  /** Whether a file blob of `size` plaintext bytes (written now) fits in one read, for readAtOnce. */
  fitsOneRead(size: number): boolean {
    return new SegmentLayout(size, this.segmentSize).fileSize() <= IO_BATCH_BYTES;
  }

  /**
   * A file blob's plaintext bytes [start, end] (inclusive; default the whole blob) read with one open, read and close
   * and authenticated before they are returned, for a blob that fitsOneRead. Undefined when its file is not the one
   * read expected (another segment size, or longer than its size): stream it with createReadStream, which checks it in
   * full. Throws BlobCorruptError, and RangeError and TypeError as createReadStream does.
   */
  readAtOnce(
    id: string,
    opts: { size: number; start?: number | undefined; end?: number | undefined },
  ): Promise<Buffer | undefined> {
    assertBlobId(id);
    const range = checkedRange(opts);
    return readFileBlobAtOnce({
      id,
      path: this.tree.blobPath(id),
      masterKey: this.#masterKey,
      ...range,
      expectedSegmentSize: this.segmentSize,
    });
  }

  /** Reads and authenticates the whole blob (inline: from its sealed bytes). Throws BlobCorruptError. */
  async verify(id: string, size: number, sealed?: Buffer): Promise<void> {
    for await (const chunk of this.createReadStream(id, { size, sealed })) void chunk;
  }

  /** Deletes a committed blob; a missing one is not an error. */
  async remove(id: string): Promise<void> {
    assertBlobId(id);
    await unlink(this.tree.blobPath(id)).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') throw err;
    });
  }

  /**
   * Removes every blob whose id is not referenced and whose mtime is before `olderThanMs` (epoch ms), so blobs
   * this process is writing now are never touched. Yields to the event loop as it goes; rejects with the
   * signal's reason when aborted. Returns how many blobs were removed.
   */
  sweepOrphans(
    isReferenced: (id: string) => boolean,
    opts: { olderThanMs: number; signal?: AbortSignal },
  ): Promise<number> {
    return sweepOrphans(this.tree.blobsDir, isReferenced, opts);
  }
}

/** A read's size and inclusive range (default the whole blob). Throws RangeError for a range outside [0, size - 1]. */
function checkedRange(opts: { size: number; start?: number | undefined; end?: number | undefined }): {
  size: number;
  start: number;
  end: number;
} {
  const { size } = opts;
  const start = opts.start ?? 0;
  const end = opts.end ?? size - 1;
  if (!Number.isSafeInteger(size) || size < 0) throw new RangeError('size must be a non-negative integer');
  const isInside = Number.isSafeInteger(start) && Number.isSafeInteger(end) && 0 <= start && start <= end && end < size;
  if (size > 0 && !isInside) {
    throw new RangeError(`range [${start}, ${end}] is outside a blob of ${size} bytes`);
  }
  return { size, start, end };
}
