// Checks one object version's bytes, a budget of bytes at a time: every blob it is stored in (one, or one per
// multipart part) is read through the blob store, so each segment's AES-GCM tag is authenticated, and hashed, so the
// bytes are proven to be the ones the version's ETag (or each part's) was computed from.

import { createHash, type Hash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { multipartEtag } from '../../core/etag.js';
import { BlobCorruptError, isInlineBlobId, type BlobStore } from '../../storage/blobs/blob-store.js';
import type { IntegrityStatus, ScrubTarget } from '../../storage/db/integrity-repo.js';
import type { ObjectPartRow } from '../../storage/db/objects-repo.js';
import type { ReadPins } from '../objects/object-reader.js';

export interface CheckOutcome {
  status: IntegrityStatus;
  reason?: string | undefined;
  detail?: string | undefined;
}

/** One blob of the version, with the MD5 (hex) its plaintext must have, when known. */
interface Extent {
  blobId: string;
  size: number;
  sealed?: Buffer | undefined;
  md5?: string | undefined;
  /** "part 3: " for a multipart part, '' for a whole-object blob: prefixes a detail. */
  label: string;
}

const HEX_MD5 = /^[0-9a-f]{32}$/;

/** What a check needs from the metadata, read in the same tick as the target row (so its blobs can be pinned). */
export interface CheckInput {
  target: ScrubTarget;
  /** The version's parts (empty for a single-blob version). */
  parts: readonly ObjectPartRow[];
  /** An inline blob's sealed bytes; undefined when it is a file blob or the inline row is missing. */
  sealed: Buffer | undefined;
}

/**
 * A check in progress. Create it in the same tick as the metadata read (it pins the blobs so the GC cannot unlink them
 * under it), call advance() until `outcome` is set, or abandon() it.
 */
export class VersionCheck {
  readonly target: ScrubTarget;
  outcome: CheckOutcome | undefined;
  private readonly extents: Extent[] = [];
  private readonly partDigests: Buffer[] = [];
  private readonly release: () => void;
  private index = 0;
  private stream: Readable | undefined;
  private iterator: AsyncIterator<Buffer> | undefined;
  private hash: Hash | undefined;

  constructor(
    private readonly blobs: BlobStore,
    pins: ReadPins,
    input: CheckInput,
  ) {
    const { target, parts, sealed } = input;
    this.target = target;
    if (target.blobId !== undefined) {
      if (isInlineBlobId(target.blobId) && sealed === undefined) {
        this.outcome = { status: 'corrupt', reason: 'missing', detail: 'the inline bytes of this version are gone' };
      }
      this.extents.push({
        blobId: target.blobId,
        size: target.size,
        sealed,
        md5: HEX_MD5.test(target.etag) ? target.etag : undefined,
        label: '',
      });
    } else {
      const problem = partsProblem(target, parts);
      if (problem) this.outcome = { status: 'corrupt', reason: 'metadata', detail: problem };
      for (const part of parts) {
        this.extents.push({ blobId: part.blobId, size: part.size, md5: part.etag, label: `part ${part.partNumber}: ` });
      }
    }
    this.release = pins.pin(this.extents.filter((e) => e.sealed === undefined).map((e) => e.blobId));
    if (this.outcome) this.release();
  }

  /**
   * Reads up to about `maxBytes` more (whole reads of at most 1 MiB, so it may read a little more), and returns how
   * many
   * it read. Sets `outcome` when the version is done; never throws.
   */
  async advance(maxBytes: number): Promise<number> {
    let consumed = 0;
    while (this.outcome === undefined && consumed < maxBytes) {
      try {
        const extent = this.extents[this.index];
        if (extent === undefined) {
          this.finish();
          break;
        }
        if (this.iterator === undefined && !this.openExtent(extent)) break;
        const next = await (this.iterator as AsyncIterator<Buffer>).next();
        if (next.done) {
          this.closeExtent(extent);
          continue;
        }
        (this.hash as Hash).update(next.value);
        consumed += next.value.length;
      } catch (err) {
        this.fail(err);
      }
    }
    return consumed;
  }

  /** Stops reading (shutdown): the blob stream is destroyed and the pins released. Idempotent. */
  abandon(): void {
    this.stream?.destroy();
    this.stream = undefined;
    this.iterator = undefined;
    this.release();
  }

  /** Opens the extent's bytes; false (with the outcome set) when its blob id or size is not one the store accepts. */
  private openExtent(extent: Extent): boolean {
    try {
      this.stream = this.blobs.createReadStream(extent.blobId, { size: extent.size, sealed: extent.sealed });
    } catch (err) {
      // createReadStream refuses a malformed id (TypeError) or size (RangeError): the version's metadata is damaged.
      if (!(err instanceof TypeError || err instanceof RangeError)) throw err;
      this.settle({ status: 'corrupt', reason: 'metadata', detail: `${extent.label}${err.message}` });
      return false;
    }
    this.iterator = this.stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
    this.hash = createHash('md5');
    return true;
  }

  private closeExtent(extent: Extent): void {
    const digest = (this.hash as Hash).digest();
    this.stream = undefined;
    this.iterator = undefined;
    this.hash = undefined;
    this.index += 1;
    this.partDigests.push(digest);
    if (extent.md5 !== undefined && digest.toString('hex') !== extent.md5) {
      this.settle({
        status: 'corrupt',
        reason: 'digest',
        detail: `${extent.label}the bytes do not hash to the stored MD5`,
      });
    }
  }

  private finish(): void {
    if (this.target.blobId === undefined) {
      const etag = multipartEtag(this.partDigests);
      if (etag !== this.target.etag) {
        this.settle({
          status: 'corrupt',
          reason: 'digest',
          detail: 'the part digests do not combine to the stored ETag',
        });
        return;
      }
    }
    this.settle({ status: 'ok' });
  }

  private fail(err: unknown): void {
    const label = this.extents[this.index]?.label ?? '';
    if (err instanceof BlobCorruptError) {
      this.settle({ status: 'corrupt', reason: err.reason, detail: `${label}${err.message}` });
    } else if ((err as NodeJS.ErrnoException).code === 'EIO') {
      // The disk could not return the bytes: as lost as a tampered segment.
      this.settle({ status: 'corrupt', reason: 'unreadable', detail: `${label}I/O error (EIO)` });
    } else {
      const code = (err as NodeJS.ErrnoException).code;
      this.settle({
        status: 'unchecked',
        reason: 'error',
        detail: `${label}${code ?? (err as Error).message ?? String(err)}`,
      });
    }
  }

  private settle(outcome: CheckOutcome): void {
    this.outcome = outcome;
    this.abandon();
  }
}

/** Why a multipart version's part list cannot be its bytes, or undefined when it adds up. */
function partsProblem(target: ScrubTarget, parts: readonly ObjectPartRow[]): string | undefined {
  if (parts.length === 0) return 'no parts are recorded for this multipart version';
  if (target.partCount !== undefined && parts.length !== target.partCount) {
    return `${parts.length} parts recorded, ${target.partCount} expected`;
  }
  const size = parts.reduce((n, p) => n + p.size, 0);
  if (size !== target.size) return `the parts hold ${size} bytes, the version ${target.size}`;
  return undefined;
}
