// Reads a plaintext byte range of an encrypted blob: opens and checks the header and file size, then reads
// the needed segments in large reads, authenticating each segment before any of its bytes is emitted.
// An inline blob (sealed bytes from the metadata database) is checked and decrypted the same way, without a file.

import { open, type FileHandle } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { holdBulkHeap } from '../../lib/bulk-heap.js';
import { BlobCorruptError } from './blob-corrupt-error.js';
import { BadHeaderError, HEADER_SIZE, openHeader, openSegment, SegmentLayout, TAG_SIZE } from './blob-format.js';

export interface BlobReadStreamOptions {
  id: string;
  path: string;
  masterKey: Buffer;
  /** Plaintext size recorded in metadata. */
  size: number;
  /** First and last plaintext byte to emit (inclusive); ignored for an empty blob. */
  start: number;
  end: number;
  /** Ciphertext bytes per read (at least one segment). */
  readBytes: number;
  /** The segment size new blobs are written with: a blob that has it and fits in one read is read in one read. */
  expectedSegmentSize: number;
  /** An inline blob's sealed bytes (the same format as a file): read from here, `path` is not opened. */
  sealed?: Buffer | undefined;
}

export class BlobReadStream extends Readable {
  #masterKey: Buffer;
  #dataKey: Buffer | undefined;
  private readonly opts: BlobReadStreamOptions;
  private fh: FileHandle | undefined;
  private layout: SegmentLayout | undefined;
  private next = 0;
  private last = 0;
  private buffer: Buffer | undefined;
  /** The whole file, when it was small enough to read at once (then no further reads happen). */
  private whole: Buffer | undefined;
  private pumping: Promise<void> | undefined;
  private wanted = false;
  /** Held from the first of several file reads until the stream is destroyed (lib/bulk-heap.ts). */
  private releaseBulkHeap: (() => void) | undefined;

  constructor(opts: BlobReadStreamOptions) {
    super({ highWaterMark: opts.readBytes });
    this.opts = opts;
    this.#masterKey = opts.masterKey;
  }

  override _construct(callback: (error?: Error | null) => void): void {
    this.openBlob().then(
      () => callback(),
      (err: Error) => callback(err),
    );
  }

  private async openBlob(): Promise<void> {
    const { id, path, sealed } = this.opts;
    if (sealed) return this.useSealed(sealed);
    try {
      this.fh = await open(path, 'r');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new BlobCorruptError('missing', id);
      throw err;
    }
    if (!(await this.readWhole())) await this.readHeaderAndSize();
  }

  /**
   * Small blobs (most objects): one read of the expected file size plus one byte, instead of fstat, a header read
   * and a segment read. Reading fewer bytes than expected is truncation; reading the extra byte is extension.
   * Returns false, having read nothing useful, when the blob's segment size is not the expected one.
   */
  private async readWhole(): Promise<boolean> {
    const { id, size, expectedSegmentSize, readBytes } = this.opts;
    const expected = new SegmentLayout(size, expectedSegmentSize);
    if (expected.fileSize() > readBytes) return false;
    const buffer = Buffer.allocUnsafe(expected.fileSize() + 1);
    const bytes = await this.readUpTo(buffer, 0);
    if (bytes < HEADER_SIZE) throw new BlobCorruptError('truncated', id, { detail: 'shorter than its header' });
    const segmentSize = this.openHeaderBytes(buffer.subarray(0, HEADER_SIZE));
    if (segmentSize !== expectedSegmentSize) return false;
    if (bytes < expected.fileSize()) throw new BlobCorruptError('truncated', id, { detail: `${bytes} bytes on disk` });
    if (bytes > expected.fileSize())
      throw new BlobCorruptError('tampered', id, { detail: 'longer than its recorded size' });
    this.whole = buffer.subarray(0, bytes);
    this.setLayout(expected);
    return true;
  }

  /** An inline blob: the whole sealed form is in memory. */
  private useSealed(sealed: Buffer): void {
    const opened = openSealedForm(this.opts.id, sealed, { size: this.opts.size, masterKey: this.#masterKey });
    this.#dataKey = opened.dataKey;
    this.whole = sealed;
    this.setLayout(opened.layout);
  }

  private async readHeaderAndSize(): Promise<void> {
    const { id, size } = this.opts;
    const { size: fileSize } = await (this.fh as FileHandle).stat();
    if (fileSize < HEADER_SIZE) throw new BlobCorruptError('truncated', id, { detail: 'shorter than its header' });
    const header = await this.readExactly(HEADER_SIZE, 0, Buffer.allocUnsafe(HEADER_SIZE));
    this.setLayout(
      checkedLayout(id, { size, segmentSize: this.openHeaderBytes(header) }, { length: fileSize, where: 'on disk' }),
    );
  }

  /** Unwraps the data key; returns the blob's segment size. */
  private openHeaderBytes(header: Buffer): number {
    const opened = unwrapHeader(this.opts.id, header, this.#masterKey);
    this.#dataKey = opened.dataKey;
    return opened.segmentSize;
  }

  private setLayout(layout: SegmentLayout): void {
    this.layout = layout;
    ({ first: this.next, last: this.last } = segmentSpan(layout, this.opts.start, this.opts.end));
  }

  /** Reads from `position` until `into` is full or the file ends; returns the bytes read. */
  private async readUpTo(into: Buffer, position: number): Promise<number> {
    const fh = this.fh as FileHandle;
    let done = 0;
    while (done < into.length) {
      const { bytesRead } = await fh.read(into, done, into.length - done, position + done);
      if (bytesRead === 0) break;
      done += bytesRead;
    }
    return done;
  }

  override _read(): void {
    this.wanted = true;
    this.pumping ??= this.pump().finally(() => {
      this.pumping = undefined;
    });
  }

  /** Reads and emits batches while the consumer wants more. */
  private async pump(): Promise<void> {
    try {
      while (this.wanted && !this.destroyed) {
        this.wanted = false;
        if (this.next > this.last) {
          this.push(null);
          return;
        }
        const chunks = await this.readBatch();
        if (this.destroyed) return;
        let ok = true;
        for (const chunk of chunks) ok = this.push(chunk);
        // The last push says whether the buffer wants more now; a _read() that arrived while this batch was
        // being read was answered by it, so it must not trigger another batch past the high-water mark.
        this.wanted = ok;
      }
    } catch (err) {
      this.destroy(err as Error);
    }
  }

  /** Reads, authenticates and trims the next run of segments; returns the plaintext to emit. */
  private async readBatch(): Promise<Buffer[]> {
    const layout = this.layout as SegmentLayout;
    const stride = layout.segmentSize + TAG_SIZE;
    const perRead = Math.max(1, Math.floor(this.opts.readBytes / stride));
    const first = this.next;
    const lastInBatch = Math.min(this.last, first + perRead - 1);
    const from = layout.offsetOf(first);
    const length = layout.offsetOf(lastInBatch) + layout.plainLength(lastInBatch) + TAG_SIZE - from;
    let sealed: Buffer;
    if (this.whole) {
      sealed = this.whole.subarray(from, from + length);
    } else {
      this.releaseBulkHeap ??= holdBulkHeap();
      if (this.buffer === undefined || this.buffer.length < length) this.buffer = Buffer.allocUnsafe(length);
      sealed = await this.readExactly(length, from, this.buffer);
    }
    const { id, start, end } = this.opts;
    const out = openSegments({ id, dataKey: this.#dataKey as Buffer, layout }, sealed, {
      first,
      last: lastInBatch,
      start,
      end,
    });
    this.next = lastInBatch + 1;
    return out;
  }

  /** Reads `length` bytes at `position` into `into`; a short file is a truncated blob. */
  private async readExactly(length: number, position: number, into: Buffer): Promise<Buffer> {
    const fh = this.fh as FileHandle;
    let done = 0;
    while (done < length) {
      const { bytesRead } = await fh.read(into, done, length - done, position + done);
      if (bytesRead === 0) throw new BlobCorruptError('truncated', this.opts.id, { detail: 'ended early' });
      done += bytesRead;
    }
    return into.subarray(0, length);
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    // Close only after a read in flight has returned, so it never touches a closed descriptor.
    const fh = this.fh;
    this.fh = undefined;
    this.releaseBulkHeap?.();
    Promise.resolve(this.pumping)
      .then(() => fh?.close())
      .then(
        () => callback(error),
        (closeError: Error) => callback(error ?? closeError),
      );
  }
}

/**
 * An inline blob's plaintext bytes [start, end] (inclusive), checked and authenticated at once: its sealed form is
 * already in memory, so a small GET needs no stream. Throws BlobCorruptError as the stream would fail.
 */
export function openSealedBlob(opts: {
  id: string;
  masterKey: Buffer;
  size: number;
  start: number;
  end: number;
  sealed: Buffer;
}): Buffer {
  const { id, size, start, end, sealed } = opts;
  const { dataKey, layout } = openSealedForm(id, sealed, { size, masterKey: opts.masterKey });
  const { first, last } = segmentSpan(layout, start, end);
  const chunks = openSegments({ id, dataKey, layout }, sealed.subarray(layout.offsetOf(first)), {
    first,
    last,
    start,
    end,
  });
  return chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
}

/**
 * A file blob whose whole file fits in `readBytes`, read at once: one open, one read, one close, then checked and
 * decrypted as openSealedBlob does, before any byte is returned (a medium GET needs no stream; docs/performance.md,
 * "Medium objects"). Undefined when the file holds more than the expected size for `expectedSegmentSize` (another
 * segment size, or extension): the caller streams it instead, which reads it whole and reports what is wrong.
 * Throws BlobCorruptError ('missing' | 'truncated' | 'tampered' | 'header').
 */
export async function readFileBlobAtOnce(opts: {
  id: string;
  path: string;
  masterKey: Buffer;
  size: number;
  start: number;
  end: number;
  expectedSegmentSize: number;
}): Promise<Buffer | undefined> {
  const { id, size, start, end } = opts;
  const expected = new SegmentLayout(size, opts.expectedSegmentSize).fileSize();
  let fh: FileHandle;
  try {
    fh = await open(opts.path, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new BlobCorruptError('missing', id);
    throw err;
  }
  // A medium object's buffers are bulk too: a GET at c32 allocates a few hundred KiB each, and under the server's
  // tight heap setting that was a full GC every few dozen GETs (lib/bulk-heap.ts; docs/performance.md, "Medium
  // objects"). Released once the object is open; the setting outlasts it by the settle time.
  const releaseBulkHeap = holdBulkHeap();
  try {
    const buffer = Buffer.allocUnsafe(expected + 1);
    let bytes = 0;
    try {
      while (bytes < buffer.length) {
        const { bytesRead } = await fh.read(buffer, bytes, buffer.length - bytes, bytes);
        if (bytesRead === 0) break;
        bytes += bytesRead;
        // A regular file's read comes back short only at its end: the expected size, asked for with one byte more,
        // needs no second read to see the end (docs/decisions.md, "Medium objects").
        if (bytes === expected) break;
      }
    } finally {
      await fh.close();
    }
    if (bytes > expected) return undefined;
    return openSealedBlob({ id, masterKey: opts.masterKey, size, start, end, sealed: buffer.subarray(0, bytes) });
  } finally {
    releaseBulkHeap();
  }
}

/** The segments holding plaintext [start, end]; an empty blob's one empty final segment, which is authenticated too. */
function segmentSpan(layout: SegmentLayout, start: number, end: number): { first: number; last: number } {
  if (layout.size === 0) return { first: 0, last: 0 };
  return { first: Math.floor(start / layout.segmentSize), last: Math.floor(end / layout.segmentSize) };
}

/** Unwraps a blob's header. Throws BlobCorruptError('header'). */
function unwrapHeader(id: string, header: Buffer, masterKey: Buffer): { dataKey: Buffer; segmentSize: number } {
  try {
    return openHeader(header, masterKey);
  } catch (err) {
    if (err instanceof BadHeaderError) throw new BlobCorruptError('header', id, { detail: err.message });
    throw err;
  }
}

/** The layout of a blob whose sealed form is `length` bytes, which must be exactly what its size implies. */
function checkedLayout(
  id: string,
  { size, segmentSize }: { size: number; segmentSize: number },
  { length, where }: { length: number; where: string },
): SegmentLayout {
  const layout = new SegmentLayout(size, segmentSize);
  if (length < layout.fileSize()) throw new BlobCorruptError('truncated', id, { detail: `${length} bytes ${where}` });
  if (length > layout.fileSize())
    throw new BlobCorruptError('tampered', id, { detail: 'longer than its recorded size' });
  return layout;
}

/** An inline blob's sealed form (header and segments): its data key and layout, its length checked. */
function openSealedForm(
  id: string,
  sealed: Buffer,
  { size, masterKey }: { size: number; masterKey: Buffer },
): { dataKey: Buffer; layout: SegmentLayout } {
  if (sealed.length < HEADER_SIZE) throw new BlobCorruptError('truncated', id, { detail: 'shorter than its header' });
  const { dataKey, segmentSize } = unwrapHeader(id, sealed.subarray(0, HEADER_SIZE), masterKey);
  return { dataKey, layout: checkedLayout(id, { size, segmentSize }, { length: sealed.length, where: 'stored' }) };
}

/**
 * Authenticates and decrypts segments `first`..`last` from `sealed` (which begins at segment `first`) and trims them
 * to plaintext [start, end]. No byte of a segment is returned before its tag verifies.
 */
function openSegments(
  { id, dataKey, layout }: { id: string; dataKey: Buffer; layout: SegmentLayout },
  sealed: Buffer,
  run: { first: number; last: number; start: number; end: number },
): Buffer[] {
  const { first, last, start, end } = run;
  const from = layout.offsetOf(first);
  const out: Buffer[] = [];
  for (let index = first; index <= last; index += 1) {
    const at = layout.offsetOf(index) - from;
    const plainLength = layout.plainLength(index);
    const plaintext = openSegment(dataKey, {
      index,
      isFinal: index === layout.count - 1,
      sealed: sealed.subarray(at, at + plainLength + TAG_SIZE),
    });
    if (plaintext === undefined)
      throw new BlobCorruptError('tampered', id, { detail: `segment ${index} fails authentication` });
    if (layout.size === 0) continue;
    const segStart = index * layout.segmentSize;
    const lo = Math.max(start - segStart, 0);
    const hi = Math.min(end - segStart + 1, plainLength);
    out.push(lo === 0 && hi === plainLength ? plaintext : plaintext.subarray(lo, hi));
  }
  return out;
}
