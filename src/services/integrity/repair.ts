// Repairs a corrupt object version from a good copy elsewhere (a replication target): the copy is staged through the
// two-phase blob writer under the local SSE key, verified against the version's size and MD5s (each part's, for a
// multipart version) BEFORE anything changes, made durable, and only then swapped in, in one transaction that also
// releases the bad blobs. A copy that does not verify changes nothing.

import { createHash, type Hash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { SliceReader, StreamShapeError } from '../../lib/stream-bytes.js';
import { isInlineBlobId, type BlobStore, type StagedBlob } from '../../storage/blobs/blob-store.js';
import type { IntegrityRepo, ScrubTarget } from '../../storage/db/integrity-repo.js';
import type { MetadataStore } from '../../storage/db/metadata-store.js';

/**
 * Where a good copy of an object version may be found. The replication mirror implements it
 * (replication/mirror-repair-source.ts); tests use an in-process fake. `fetch` resolves undefined when the source holds
 * no copy of that version, and rejects on a failure to reach it. The stream must yield exactly the version's plaintext.
 */
export interface RepairSource {
  fetch(
    version: { bucket: string; key: string; versionId: string },
    signal?: AbortSignal,
  ): Promise<{ stream: Readable; size: number } | undefined>;
}

export type RepairOutcome =
  /** The version now reads back intact. */
  | { outcome: 'repaired' }
  /** The source has no copy of it. */
  | { outcome: 'unavailable' }
  /** The source's copy is not these bytes (size or digest differ): nothing changed. */
  | { outcome: 'mismatch'; detail: string }
  /** The version was replaced or deleted meanwhile: nothing to repair. */
  | { outcome: 'superseded' };

/** One blob of the version to rebuild. */
interface Piece {
  size: number;
  md5: string;
  oldBlobId: string;
  /** Set for a multipart part. */
  partNumber?: number | undefined;
}

export interface RepairDeps {
  meta: MetadataStore;
  repo: IntegrityRepo;
  blobs: BlobStore;
  now: () => number;
}

/**
 * Rebuilds `target` from `source`. Resolves with the outcome; rejects only when the source or the disk fails (nothing
 * changed then either: staged blobs are removed).
 */
export async function repairVersion(
  deps: RepairDeps,
  target: ScrubTarget,
  { source, signal }: { source: RepairSource; signal?: AbortSignal | undefined },
): Promise<RepairOutcome> {
  const pieces = piecesOf(deps.meta, target);
  if (pieces === undefined) return { outcome: 'superseded' };
  const fetched = await source.fetch({ bucket: target.bucket, key: target.key, versionId: target.versionId }, signal);
  if (fetched === undefined) return { outcome: 'unavailable' };
  if (fetched.size !== target.size) {
    fetched.stream.destroy();
    return { outcome: 'mismatch', detail: `the copy has ${fetched.size} bytes, the version ${target.size}` };
  }
  const staged: StagedBlob[] = [];
  const reader = new SliceReader(fetched.stream);
  try {
    for (const piece of pieces) {
      const md5 = createHash('md5');
      const bytes = hashed(reader.slice(piece.size), md5, signal);
      staged.push(
        isInlineBlobId(piece.oldBlobId)
          ? deps.blobs.sealInline(await collect(bytes))
          : await deps.blobs.stage(bytes, signal ? { signal } : {}),
      );
      if (md5.digest('hex') !== piece.md5) {
        return {
          outcome: 'mismatch',
          detail: `${piece.partNumber === undefined ? '' : `part ${piece.partNumber}: `}the copy does not hash to the stored MD5`,
        };
      }
    }
    if (!(await reader.atEnd())) return { outcome: 'mismatch', detail: 'the copy is longer than the version' };
    // Durable before the flip: only then may metadata point at the new blobs.
    for (const blob of staged) await blob.commit();
    const swapped = swap(deps, target, { pieces, staged });
    if (!swapped) return { outcome: 'superseded' };
    staged.length = 0;
    await deps.meta.durable();
    return { outcome: 'repaired' };
  } catch (err) {
    // A copy shorter than its declared size is a mismatch, not a failure of ours.
    if (err instanceof StreamShapeError) return { outcome: 'mismatch', detail: `the copy: ${err.message}` };
    throw err;
  } finally {
    fetched.stream.destroy();
    // Staged but never swapped in: nothing references them.
    for (const blob of staged) await removeStaged(deps.blobs, blob);
  }
}

/** The blobs of the version as recorded now, or undefined when it is gone or changed since `target` was read. */
function piecesOf(meta: MetadataStore, target: ScrubTarget): Piece[] | undefined {
  if (target.blobId !== undefined) return [{ size: target.size, md5: target.etag, oldBlobId: target.blobId }];
  const parts = meta.objects.parts(target.id);
  if (parts.length === 0) return undefined;
  return parts.map((p) => ({ size: p.size, md5: p.etag, oldBlobId: p.blobId, partNumber: p.partNumber }));
}

/** The flip: one transaction; false (and nothing changed) when the version no longer has the bad blobs. */
function swap(
  deps: RepairDeps,
  target: ScrubTarget,
  { pieces, staged }: { pieces: readonly Piece[]; staged: readonly StagedBlob[] },
): boolean {
  const { meta, repo } = deps;
  try {
    return meta.transaction(() => {
      const now = deps.now();
      if (repo.findTarget(target.id)?.etag !== target.etag) throw new Superseded();
      pieces.forEach((piece, i) => {
        const blob = staged[i] as StagedBlob;
        const ok =
          piece.partNumber === undefined
            ? repo.swapBlob(target.id, piece.oldBlobId, blob.id)
            : repo.swapPartBlob({ objectId: target.id, partNumber: piece.partNumber }, piece.oldBlobId, blob.id);
        if (!ok) throw new Superseded();
        if (blob.sealed) meta.inlineBlobs.insert(blob.id, blob.sealed);
        meta.releaseBlob(piece.oldBlobId, now);
      });
      const blobId = target.blobId === undefined ? undefined : (staged[0] as StagedBlob).id;
      repo.record({
        target: { ...target, blobId },
        status: 'ok',
        checkedAt: now,
        reason: 'repaired',
        detail: undefined,
      });
      return true;
    });
  } catch (err) {
    if (err instanceof Superseded) return false;
    throw err;
  }
}

class Superseded extends Error {}

async function removeStaged(blobs: BlobStore, blob: StagedBlob): Promise<void> {
  if (blob.sealed) return;
  await blob.discard().catch(() => undefined);
  // discard() is a no-op after a successful commit: the blob is in place but referenced by nothing.
  await blobs.remove(blob.id).catch(() => undefined);
}

/** The chunks of `source`, each also hashed into `md5`; stops between chunks when `signal` aborts. */
async function* hashed(source: AsyncIterable<Buffer>, md5: Hash, signal?: AbortSignal): AsyncGenerator<Buffer> {
  for await (const chunk of source) {
    signal?.throwIfAborted();
    md5.update(chunk);
    yield chunk;
  }
}

async function collect(source: AsyncIterable<Buffer>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of source) chunks.push(chunk);
  return Buffer.concat(chunks);
}
