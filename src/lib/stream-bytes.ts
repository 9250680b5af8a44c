// Byte-stream helpers for reading archives: lines of bounded length, and exact-length slices of one stream.

/** Thrown when a line is longer than allowed, or a slice cannot be filled because the stream ended early. */
export class StreamShapeError extends Error {
  override name = 'StreamShapeError';
}

/**
 * The lines of a UTF-8 byte stream (split on \n; a trailing \r is kept for the caller to reject). Memory is bounded
 * by `maxLineBytes`: a longer line throws StreamShapeError instead of being gathered.
 */
export async function* lines(source: AsyncIterable<Buffer | Uint8Array>, maxLineBytes: number): AsyncGenerator<string> {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  for await (const raw of source) {
    let chunk = Buffer.isBuffer(raw) ? raw : Buffer.from(raw);
    for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10)) {
      if (pendingBytes + nl > maxLineBytes) throw new StreamShapeError(`a line is longer than ${maxLineBytes} bytes`);
      pending.push(chunk.subarray(0, nl));
      yield Buffer.concat(pending).toString('utf8');
      pending = [];
      pendingBytes = 0;
      chunk = chunk.subarray(nl + 1);
    }
    if (pendingBytes + chunk.length > maxLineBytes)
      throw new StreamShapeError(`a line is longer than ${maxLineBytes} bytes`);
    if (chunk.length > 0) {
      pending.push(chunk);
      pendingBytes += chunk.length;
    }
  }
  if (pendingBytes > 0) yield Buffer.concat(pending).toString('utf8');
}

/** Reads consecutive exact-length slices of one stream: each slice() yields exactly `size` bytes, in chunks. */
export class SliceReader {
  private readonly iterator: AsyncIterator<Buffer | Uint8Array>;
  private leftover: Buffer | undefined;

  constructor(source: AsyncIterable<Buffer | Uint8Array>) {
    this.iterator = source[Symbol.asyncIterator]();
  }

  /** The next `size` bytes. Throws StreamShapeError if the stream ends first. */
  async *slice(size: number): AsyncGenerator<Buffer> {
    let remaining = size;
    while (remaining > 0) {
      let chunk = this.leftover;
      this.leftover = undefined;
      if (chunk === undefined) {
        const next = await this.iterator.next();
        if (next.done) throw new StreamShapeError(`the stream ended ${remaining} bytes early`);
        chunk = Buffer.isBuffer(next.value) ? next.value : Buffer.from(next.value);
      }
      if (chunk.length > remaining) {
        this.leftover = chunk.subarray(remaining);
        chunk = chunk.subarray(0, remaining);
      }
      remaining -= chunk.length;
      if (chunk.length > 0) yield chunk;
    }
  }

  /** True when nothing is left (reads ahead one chunk, kept for a later slice). */
  async atEnd(): Promise<boolean> {
    if (this.leftover !== undefined && this.leftover.length > 0) return false;
    for (;;) {
      const next = await this.iterator.next();
      if (next.done) return true;
      const chunk = Buffer.isBuffer(next.value) ? next.value : Buffer.from(next.value);
      if (chunk.length > 0) {
        this.leftover = chunk;
        return false;
      }
    }
  }
}
