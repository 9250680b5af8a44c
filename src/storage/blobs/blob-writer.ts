// Encrypts a plaintext stream into segments and writes them to a staging file in large batched writes,
// overlapping the encryption of the next batch with the write of the previous one. A blob larger than one batch holds
// the bulk heap setting (lib/bulk-heap.ts) from its first batch until it is finished or settled. A large blob's bytes
// are also flushed to disk as they arrive (write-behind), so the fsync that makes it durable has only the tail left.

import type { FileHandle } from 'node:fs/promises';
import { holdBulkHeap } from '../../lib/bulk-heap.js';
import { sealSegment, TAG_SIZE } from './blob-format.js';

export interface SegmentWriterOptions {
  fh: FileHandle;
  dataKey: Buffer;
  /** The file header, written first as part of the first batch. */
  header: Buffer;
  segmentSize: number;
  /** Ciphertext bytes gathered before one writev (bounded memory: at most two batches plus one segment). */
  batchBytes: number;
  /**
   * Write-behind: each time this many bytes have been written since the last flush, an fdatasync of the file starts in
   * the background (one at a time; its failure fails finish()). Node has no sync_file_range, so this is how the disk
   * gets to write a blob while the rest of it still streams in, instead of all of it in the commit's fsync: 64 MiB PUTs
   * at c4 went from 310–320 to 433–438 MB/s (docs/performance.md, "Large uploads: write-behind"). Default: never.
   */
  writeBehindBytes?: number;
}

/**
 * Feeds plaintext through push() and call finish() once. A segment is sealed only when it is known whether it
 * is the final one, so the last full segment waits for either one more byte or the end of the input.
 * Not reentrant: await each push() before the next.
 */
export class SegmentWriter {
  #dataKey: Buffer;
  private readonly fh: FileHandle;
  private readonly segmentSize: number;
  private readonly batchBytes: number;
  /** Plaintext of the segment being filled; copied because callers may reuse the chunks they hand us. */
  private readonly pending: Buffer;
  private pendingLength = 0;
  private index = 0;
  private batch: Buffer[];
  private batchLength: number;
  private position = 0;
  private inflight: Promise<void> | undefined;
  private readonly writeBehindBytes: number;
  private unflushedBytes = 0;
  /** The background fdatasync in flight, if any, and the first one's failure. */
  private writeBehind: Promise<void> | undefined;
  private writeBehindError: unknown;
  private releaseBulkHeap: (() => void) | undefined;
  /** Plaintext bytes accepted so far. */
  size = 0;

  constructor(opts: SegmentWriterOptions) {
    this.fh = opts.fh;
    this.#dataKey = opts.dataKey;
    this.segmentSize = opts.segmentSize;
    this.batchBytes = opts.batchBytes;
    this.writeBehindBytes = opts.writeBehindBytes ?? Number.POSITIVE_INFINITY;
    this.pending = Buffer.allocUnsafe(opts.segmentSize);
    this.batch = [opts.header];
    this.batchLength = opts.header.length;
  }

  async push(chunk: Buffer | Uint8Array): Promise<void> {
    const data = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const n = data.length;
    if (n === 0) return;
    this.size += n;
    let offset = 0;
    if (this.pendingLength === this.segmentSize) this.sealPending(false); // more bytes follow, so it is not final
    if (this.pendingLength > 0) {
      offset = Math.min(this.segmentSize - this.pendingLength, n);
      data.copy(this.pending, this.pendingLength, 0, offset);
      this.pendingLength += offset;
      if (offset === n) return this.flushIfFull();
      this.sealPending(false);
    }
    // Whole segments followed by more bytes of this chunk are sealed straight from it, without a copy.
    while (n - offset > this.segmentSize) {
      this.seal(data.subarray(offset, offset + this.segmentSize), false);
      offset += this.segmentSize;
      await this.flushIfFull();
    }
    this.pendingLength = data.copy(this.pending, 0, offset);
    return this.flushIfFull();
  }

  /** Seals the final segment (empty for an empty blob) and writes everything (the commit makes it durable). */
  async finish(): Promise<void> {
    try {
      this.sealPending(true);
      await this.flush();
      await this.inflight;
      await this.writeBehind;
      // A failed flush must fail the blob: the kernel reports a writeback error to one fsync only, which may have been
      // the background one.
      if (this.writeBehindError !== undefined) throw this.writeBehindError;
    } finally {
      this.releaseBulkHeap?.();
    }
  }

  /**
   * Waits for the write and the flush in flight, if any, ignoring their outcome: call before closing after a failure.
   */
  async settle(): Promise<void> {
    await this.inflight?.catch(() => undefined);
    await this.writeBehind;
    this.releaseBulkHeap?.();
  }

  private sealPending(isFinal: boolean): void {
    this.seal(this.pending.subarray(0, this.pendingLength), isFinal);
    this.pendingLength = 0;
  }

  private seal(plaintext: Buffer, isFinal: boolean): void {
    const { ciphertext, tag } = sealSegment(this.#dataKey, { index: this.index, isFinal, plaintext });
    if (ciphertext.length > 0) this.batch.push(ciphertext);
    this.batch.push(tag);
    this.batchLength += ciphertext.length + TAG_SIZE;
    this.index += 1;
  }

  /**
   * Writes a full batch. The first segment marks the blob as a bulk transfer: a file blob is at least a medium
   * object, whose buffers at c32 set off a full GC every few dozen PUTs under the server's tight heap setting
   * (lib/bulk-heap.ts).
   */
  private async flushIfFull(): Promise<void> {
    this.releaseBulkHeap ??= holdBulkHeap();
    if (this.batchLength < this.batchBytes) return;
    await this.flush();
  }

  /** Starts writing the current batch once the previous write is done; does not wait for this one. */
  private async flush(): Promise<void> {
    if (this.batchLength === 0) return;
    await this.inflight;
    const buffers = this.batch;
    const position = this.position;
    this.position += this.batchLength;
    this.batch = [];
    this.batchLength = 0;
    const write = writeAll(this.fh, buffers, position);
    write.catch(() => undefined); // observed by the next flush or by finish(); never an unhandled rejection
    this.inflight = write;
    this.unflushedBytes += this.position - position;
    if (this.unflushedBytes >= this.writeBehindBytes && this.writeBehind === undefined) {
      this.unflushedBytes = 0;
      const fh = this.fh;
      this.writeBehind = write
        .then(() => fh.datasync())
        .then(
          () => {
            this.writeBehind = undefined;
          },
          (err: unknown) => {
            this.writeBehind = undefined;
            this.writeBehindError ??= err;
          },
        );
    }
  }
}

/** writev until every byte is written: a regular file may still take a short write (e.g. near ENOSPC). */
async function writeAll(fh: FileHandle, buffers: Buffer[], position: number): Promise<void> {
  let rest = buffers;
  let at = position;
  for (;;) {
    const { bytesWritten } = await fh.writev(rest, at);
    at += bytesWritten;
    let skip = bytesWritten;
    while (rest.length > 0 && skip >= (rest[0] as Buffer).length) {
      skip -= (rest[0] as Buffer).length;
      rest = rest.slice(1);
    }
    if (rest.length === 0) return;
    if (bytesWritten === 0) throw new Error('write made no progress');
    rest = [(rest[0] as Buffer).subarray(skip), ...rest.slice(1)];
  }
}
