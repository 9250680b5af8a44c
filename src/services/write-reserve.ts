// The free-space reserve of the data volume (STORE_MIN_FREE_BYTES): object writes (PUT, POST, copy, part upload,
// multipart completion, admin uploads) are refused with InsufficientStorage (507) once they would take the volume's
// free space under it, so the last stretch stays for what must keep working on a nearly full disk: deletes, tagging,
// and the metadata database's WAL, which every one of those commits appends to (docs/decisions.md, "A full disk").

import { AppError } from '../core/errors.js';
import { statfsFreeBytes, type FreeBytes } from './free-space.js';

export interface WriteReserveOptions {
  /** A path on the data volume (DATA_DIR). */
  path: string;
  /** Bytes kept free; 0 turns the check off. */
  reserveBytes: number;
  freeBytes?: FreeBytes;
  now?: () => number;
  /**
   * A reading of the free space is reused for this long (ms), with the bytes admitted meanwhile counted against it:
   * one statfs per interval instead of one per request.
   */
  maxAgeMs?: number;
}

export class WriteReserve {
  private readonly freeBytes: FreeBytes;
  private readonly now: () => number;
  private readonly maxAgeMs: number;
  private reading: { free: number; at: number } | undefined;
  /** Declared bytes admitted since the reading (not yet visible in it). */
  private admitted = 0;
  private refreshing: Promise<void> | undefined;

  constructor(private readonly opts: WriteReserveOptions) {
    this.freeBytes = opts.freeBytes ?? statfsFreeBytes;
    this.now = opts.now ?? Date.now;
    this.maxAgeMs = opts.maxAgeMs ?? 250;
  }

  /**
   * Admits a write of `bytes` (0 when unknown or none, as for a multipart completion), or throws InsufficientStorage
   * when the volume's free space is, or would fall, under the reserve. A volume whose free space cannot be read is
   * not refused for it (the write then fails on its own if the disk is really full).
   */
  async admit(bytes = 0): Promise<void> {
    if (this.opts.reserveBytes <= 0) return;
    if (this.reading === undefined || this.now() - this.reading.at >= this.maxAgeMs) await this.refresh();
    if (this.reading === undefined) return;
    const free = this.reading.free - this.admitted;
    if (free < bytes + this.opts.reserveBytes) {
      throw new AppError('InsufficientStorage', {
        message: 'The data volume is at its free-space reserve (STORE_MIN_FREE_BYTES): writes are refused until space is freed; reads and deletes still work.',
      });
    }
    this.admitted += bytes;
  }

  /** One statfs at a time; concurrent callers share it. */
  private refresh(): Promise<void> {
    this.refreshing ??= (async () => {
      const at = this.now();
      try {
        this.reading = { free: await this.freeBytes(this.opts.path), at };
      } catch {
        this.reading = undefined;
      }
      this.admitted = 0;
    })().finally(() => {
      this.refreshing = undefined;
    });
    return this.refreshing;
  }
}
