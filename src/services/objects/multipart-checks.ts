// What CompleteMultipartUpload checks before it assembles an object: the listed parts against the stored ones, and
// what the client states about the whole object's checksum against what the parts combine to.

import type { ChecksumAlgorithm, ChecksumType } from '../../core/checksums.js';
import { AppError } from '../../core/errors.js';
import type { UploadPartRow, UploadRow } from '../../storage/db/multipart-repo.js';
import { normaliseEtag } from './completed-uploads.js';

/** One part a completion lists, with the checksums the client sent for it. */
export interface CompletePart {
  partNumber: number;
  etag: string;
  checksums: Partial<Record<ChecksumAlgorithm, string>>;
}

/** Every part but the last must be at least this large. */
export const MIN_PART_BYTES = 5 * 1024 * 1024;

/**
 * The stored parts a completion lists, checked: order, ETags and checksums as listed, sizes (all but the last >= 5
 * MiB).
 */
export function chooseParts(
  requestedParts: readonly CompletePart[],
  stored: ReadonlyMap<number, UploadPartRow>,
): UploadPartRow[] {
  const chosen: UploadPartRow[] = [];
  let previous = 0;
  for (const requested of requestedParts) {
    if (requested.partNumber <= previous) throw new AppError('InvalidPartOrder');
    previous = requested.partNumber;
    const part = stored.get(requested.partNumber);
    if (!part || normaliseEtag(requested.etag) !== part.etag) {
      throw new AppError('InvalidPart', {
        details: { PartNumber: String(requested.partNumber), ETag: requested.etag },
      });
    }
    for (const [alg, value] of Object.entries(requested.checksums)) {
      const have = part.checksums[alg];
      if (have !== undefined && have !== value) {
        throw new AppError('InvalidPart', {
          message: `The ${alg} checksum of part ${requested.partNumber} does not match.`,
        });
      }
    }
    chosen.push(part);
  }
  chosen.forEach((part, i) => {
    if (i < chosen.length - 1 && part.size < MIN_PART_BYTES) {
      throw new AppError('EntityTooSmall', {
        details: {
          ProposedSize: String(part.size),
          MinSizeAllowed: String(MIN_PART_BYTES),
          PartNumber: String(part.partNumber),
        },
      });
    }
  });
  return chosen;
}

/** Verifies what a completion states about the object against the checksum its parts combine to. */
export function checkStatedChecksum(
  upload: UploadRow,
  computed: { algorithm: ChecksumAlgorithm; value: string; type: ChecksumType } | undefined,
  stated: {
    expected: { algorithm: ChecksumAlgorithm; value: string } | undefined;
    expectedType: 'FULL_OBJECT' | 'COMPOSITE' | undefined;
  },
): void {
  const { expected, expectedType } = stated;
  if (expectedType !== undefined && expectedType !== upload.checksumType) {
    throw new AppError('InvalidRequest', {
      message: `The upload was created with checksum type ${upload.checksumType ?? 'none'}, not ${expectedType}.`,
    });
  }
  if (expected === undefined) return;
  if (computed === undefined || computed.algorithm !== expected.algorithm) {
    throw new AppError('InvalidRequest', {
      message: `The upload was created with checksum algorithm ${upload.checksumAlgorithm ?? 'none'}, not ${expected.algorithm}.`,
    });
  }
  // A COMPOSITE value may be stated with or without its -N part-count suffix.
  const bare = computed.value.replace(/-\d+$/, '');
  if (expected.value !== computed.value && expected.value !== bare) {
    throw new AppError('BadDigest', {
      message: `The ${expected.algorithm} you specified did not match the calculated checksum.`,
    });
  }
}
