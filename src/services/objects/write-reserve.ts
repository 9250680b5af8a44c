// The free-space reserve of the data volume (STORE_MIN_FREE_BYTES): object writes (PUT, POST, copy, part upload,
// multipart completion, admin uploads) are refused with InsufficientStorage (507) once they would take the volume's
// free space under it, so the last stretch stays for what must keep working on a nearly full disk: deletes, tagging,
// and the metadata database's WAL, which every one of those commits appends to (docs/decisions.md, "A full disk").
//
// Each write holds a lease from admission until its bytes are staged (or discarded). A write is admitted by its
// declared size plus what the writes in flight have declared and not sent yet; every byte is charged as it arrives,
// so a body of unknown size (POST Object, an admin upload without Content-Length) or one longer than declared is cut
// with 507 the moment it would reach the reserve. A statfs reading is reused for a while; bytes charged since are
// counted against it until a later reading can be trusted to include them.

import { AppError } from '../../core/errors.js';
import { statfsFreeBytes, type FreeBytes } from '../free-space.js';

export interface WriteReserveOptions {
  /** A path on the data volume (DATA_DIR). */
  path: string;
  /** Bytes kept free; 0 turns the check off. */
  reserveBytes: number;
  freeBytes?: FreeBytes;
  now?: () => number;
  /**
   * A reading of the free space is reused for this long (ms), with the bytes charged meanwhile counted against it:
   * one statfs per interval instead of one per request.
   */
  maxAgeMs?: number;
}

/** One write's hold on the reserve, from admission until its bytes are staged or discarded. */
export interface WriteLease {
  /** Counts `bytes` more of the body. Throws InsufficientStorage when they would take the volume under the reserve. */
  charge(bytes: number): void;
  /** Ends the lease (idempotent): the write's bytes are on disk (staged) or gone (discarded). */
  release(): void;
}

/**
 * Bytes an upload may still hold in memory while it writes: the segment writer's two batches and a segment, or a
 * whole small body gathered before its one write. A reading taken while a write is in flight is trusted to include
 * what it had charged only up to this much less, so a reading never hides bytes still on their way to the file.
 */
export const UNFLUSHED_SLACK_BYTES = 4 * 1024 * 1024;

/**
 * What a body of n bytes takes on disk beyond its plaintext: a 16-byte GCM tag per 64 KiB segment, rounded up
 * generously (one byte in 4,096), plus a file's header, its last block and its metadata row.
 */
const onDisk = (bytes: number): number => bytes + Math.ceil(bytes / 4096);
const PER_WRITE_BYTES = 16 * 1024;

/** The lease of a write no reserve watches (STORE_MIN_FREE_BYTES=0). */
export const NO_LEASE: WriteLease = { charge: () => undefined, release: () => undefined };

class Lease implements WriteLease {
  /** Bytes charged so far. */
  charged = 0;
  /** Of those, bytes a reading is trusted to include. */
  reflected = 0;
  released = false;

  constructor(
    private readonly reserve: WriteReserve,
    /** The declared size (0 when unknown), with the per-write overhead. */
    readonly declared: number,
  ) {}

  charge(bytes: number): void {
    if (!this.released && bytes > 0) this.reserve.charge(this, bytes);
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    this.reserve.end(this);
  }
}

export class WriteReserve {
  private readonly freeBytes: FreeBytes;
  private readonly now: () => number;
  private readonly maxAgeMs: number;
  private reading: { free: number; at: number } | undefined;
  private readonly active = new Set<Lease>();
  /** Leases ended since the reading was issued: their bytes count until a later reading includes them. */
  private ended: Lease[] = [];
  /** Bytes charged that no reading is trusted to include (active and ended leases). */
  private unreflected = 0;
  /** Bytes the active leases declared and have not sent yet. */
  private promised = 0;
  private refreshing: Promise<void> | undefined;

  constructor(private readonly opts: WriteReserveOptions) {
    this.freeBytes = opts.freeBytes ?? statfsFreeBytes;
    this.now = opts.now ?? Date.now;
    this.maxAgeMs = opts.maxAgeMs ?? 250;
  }

  /**
   * Admits a write of `declared` bytes (undefined when unknown, 0 for none, as a multipart completion) and returns
   * its lease; charge each byte of the body to it, and release it once the body is staged or discarded. Throws
   * InsufficientStorage when the volume's free space is, or would fall, under the reserve. A volume whose free space
   * cannot be read is not refused for it (the write then fails on its own if the disk is really full).
   */
  async admit(declared: number | undefined): Promise<WriteLease> {
    if (this.opts.reserveBytes <= 0) return NO_LEASE;
    if (this.isStale()) await this.refresh();
    const lease = new Lease(this, onDisk(declared ?? 0) + PER_WRITE_BYTES);
    this.check(lease.declared);
    this.active.add(lease);
    this.promised += lease.declared;
    return lease;
  }

  /** Charges a lease's next bytes: what it declared is already counted; anything beyond is checked first. */
  charge(lease: Lease, bytes: number): void {
    const size = onDisk(bytes);
    const within = Math.min(size, Math.max(lease.declared - lease.charged, 0));
    if (size > within) this.check(size - within);
    lease.charged += size;
    this.promised -= within;
    this.unreflected += size;
    if (this.isStale()) this.refresh().catch(() => undefined);
  }

  end(lease: Lease): void {
    if (!this.active.delete(lease)) return;
    this.promised -= Math.max(lease.declared - lease.charged, 0);
    this.ended.push(lease);
  }

  private check(bytes: number): void {
    if (this.reading === undefined) return;
    const free = this.reading.free - this.unreflected - this.promised;
    if (free < bytes + this.opts.reserveBytes) {
      throw new AppError('InsufficientStorage', {
        message:
          'The data volume is at its free-space reserve (STORE_MIN_FREE_BYTES): writes are refused until space is freed; reads and deletes still work.',
      });
    }
  }

  private isStale(): boolean {
    return this.reading === undefined || this.now() - this.reading.at >= this.maxAgeMs;
  }

  /**
   * One statfs at a time; concurrent callers share it. What the reading may be trusted to include is decided when it
   * is issued: every byte of the leases ended by then (staged or discarded), and the bytes of the active ones but
   * their last UNFLUSHED_SLACK_BYTES. It applies once the reading arrives; until then the previous one stands.
   */
  private refresh(): Promise<void> {
    this.refreshing ??= (async () => {
      const at = this.now();
      const ended = this.ended;
      this.ended = [];
      const marks = [...this.active].map((lease) => ({
        lease,
        reflected: Math.max(lease.reflected, lease.charged - UNFLUSHED_SLACK_BYTES),
      }));
      let free: number | undefined;
      try {
        free = await this.freeBytes(this.opts.path);
      } catch {
        free = undefined;
      }
      for (const lease of ended) this.reflect(lease, lease.charged);
      for (const { lease, reflected } of marks) this.reflect(lease, reflected);
      this.reading = free === undefined ? undefined : { free, at };
    })().finally(() => {
      this.refreshing = undefined;
    });
    return this.refreshing;
  }

  private reflect(lease: Lease, upTo: number): void {
    if (upTo <= lease.reflected) return;
    this.unreflected -= upTo - lease.reflected;
    lease.reflected = upTo;
  }
}
