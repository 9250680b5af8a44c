// One version's bytes as a point-in-time snapshot names them, decrypted by the reader every GET uses: what a backup
// archive and a zip download both stream. Inline blobs come from the snapshot (a later delete does not take them
// away); a version tiered to the remote target streams from there when a stub reader is wired.

import type { Readable } from 'node:stream';
import { AppError } from '../../core/errors.js';
import { BlobCorruptError, isInlineBlobId, type BlobStore } from '../../storage/blobs/blob-store.js';
import type { MetadataSnapshot } from '../../storage/db/metadata-snapshot.js';
import type { ObjectPartRow, ObjectRow } from '../../storage/db/objects-repo.js';
import { extentsOf, readExtents, type ReadPins } from '../objects/object-reader.js';

export interface SnapshotByteSource {
  blobs: BlobStore;
  pins: ReadPins;
  /** Streams a version whose bytes live only on a remote target (`tierState: 'stub'`), without rehydrating it. */
  stubReader?: { stream(row: ObjectRow): Readable } | undefined;
}

/**
 * Opens a version's bytes (not a delete marker). Throws InvalidObjectState for a tiered version with no stub reader
 * and BlobCorruptError for an inline blob the snapshot lacks; a file blob found corrupt fails the stream.
 */
export function openSnapshotBytes(
  source: SnapshotByteSource,
  version: { row: ObjectRow; parts: readonly ObjectPartRow[]; snapshot: MetadataSnapshot },
): Readable {
  const { row, parts, snapshot } = version;
  if ((row as ObjectRow & { tierState?: string }).tierState === 'stub') {
    if (source.stubReader) return source.stubReader.stream(row);
    throw new AppError('InvalidObjectState', {
      message: `${row.bucket}/${row.key} is tiered to the remote target, which is not available.`,
    });
  }
  let sealed: Buffer | undefined;
  if (row.blobId !== undefined && isInlineBlobId(row.blobId)) {
    sealed = snapshot.inlineBlob(row.blobId);
    if (sealed === undefined) throw new BlobCorruptError('missing', row.blobId);
  }
  return readExtents(source, extentsOf(row, parts, sealed), undefined);
}
