// Reads an object version's bytes: one blob, or the blobs of its multipart parts in order, for a byte range.
// Blobs being read are pinned so the blob GC never unlinks a file between the metadata lookup and the open.

import { PassThrough, type Readable } from 'node:stream';
import type { BlobStore } from '../../storage/blobs/blob-store.js';
import type { ObjectPartRow } from '../../storage/db/objects-repo.js';

/** A contiguous piece of an object stored as one blob. */
export interface BlobExtent {
  blobId: string;
  size: number;
  /** An inline blob's sealed bytes, fetched with the metadata (they need no pin: they are already in memory). */
  sealed?: Buffer | undefined;
}

/** Counts readers per blob; the GC skips pinned blobs and retries them later. */
export class ReadPins {
  private readonly counts = new Map<string, number>();
  private holds = 0;

  /**
   * Pins every blob until released: a backup reading a point-in-time snapshot may need any blob that was referenced
   * when the snapshot began, so the GC unlinks nothing while one is open (queued blobs wait; nothing is lost).
   */
  holdAll(): () => void {
    this.holds++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.holds--;
    };
  }

  pin(ids: readonly string[]): () => void {
    for (const id of ids) this.counts.set(id, (this.counts.get(id) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      for (const id of ids) {
        const n = (this.counts.get(id) ?? 1) - 1;
        if (n <= 0) this.counts.delete(id);
        else this.counts.set(id, n);
      }
    };
  }

  /** Blobs pinned right now, plus one per snapshot hold (store_blob_read_pins): 0 when no read is in progress. */
  get count(): number {
    return this.counts.size + this.holds;
  }

  isPinned(id: string): boolean {
    return this.holds > 0 || this.counts.has(id);
  }
}

export function extentsOf(
  { blobId, size }: { blobId: string | undefined; size: number },
  parts: readonly ObjectPartRow[],
  sealed?: Buffer,
): BlobExtent[] {
  if (blobId !== undefined) return [{ blobId, size, sealed }];
  return parts.map((p) => ({ blobId: p.blobId, size: p.size }));
}

/**
 * A stream of bytes [start, end] (inclusive) across the extents. Must be called in the same tick as the metadata
 * lookup that produced the extents (pinning is synchronous). The pin is released when the stream ends or is destroyed.
 */
export function readExtents(
  { blobs, pins }: { blobs: BlobStore; pins: ReadPins },
  extents: readonly BlobExtent[],
  range: { start: number; end: number } | undefined,
): Readable {
  const total = extents.reduce((n, e) => n + e.size, 0);
  const start = range?.start ?? 0;
  const end = range?.end ?? total - 1;
  if (extents.length === 1 && total > 0) {
    const only = extents[0] as BlobExtent;
    const release = pins.pin([only.blobId]);
    const stream = blobs.createReadStream(only.blobId, { size: only.size, start, end, sealed: only.sealed });
    stream.once('close', release);
    return stream;
  }
  const release = pins.pin(extents.map((e) => e.blobId));
  const out = new PassThrough({ highWaterMark: 1024 * 1024 });
  out.once('close', release);
  void (async () => {
    let offset = 0;
    try {
      for (const extent of extents) {
        const extentStart = offset;
        const extentEnd = offset + extent.size - 1;
        offset += extent.size;
        if (extent.size === 0 || extentEnd < start || extentStart > end) continue;
        const piece = blobs.createReadStream(extent.blobId, {
          size: extent.size,
          start: Math.max(start, extentStart) - extentStart,
          end: Math.min(end, extentEnd) - extentStart,
          sealed: extent.sealed,
        });
        for await (const chunk of piece) {
          if (out.destroyed) {
            piece.destroy();
            return;
          }
          if (!out.write(chunk))
            await new Promise<void>((resolve) => {
              const done = (): void => {
                out.off('drain', done);
                out.off('close', done);
                resolve();
              };
              out.once('drain', done);
              out.once('close', done);
            });
        }
      }
      out.end();
    } catch (err) {
      out.destroy(err as Error);
    }
  })();
  return out;
}
