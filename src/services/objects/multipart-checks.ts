// What CompleteMultipartUpload checks before it assembles an object: the listed parts against the stored ones, and
// what the client states about the whole object's checksum against what the parts combine to.

import { combineCrc, compositeChecksum, type ChecksumAlgorithm, type ChecksumType } from '../../core/checksums.js';
import { AppError } from '../../core/errors.js';
import type { UploadPartRow, UploadRow } from '../../storage/db/multipart-repo.js';
import { normaliseEtag } from './completed-uploads.js';
import type { WriteConditions } from './object-service.js';

/** What CompleteMultipartUpload asks for: the upload, its listed parts, conditions and stated checksum. */
export interface CompleteInput {
  bucket: string;
  key: string;
  uploadId: string;
  parts: CompletePart[];
  conditions?: WriteConditions | undefined;
  expectedChecksum?: { algorithm: ChecksumAlgorithm; value: string } | undefined;
  expectedChecksumType?: 'FULL_OBJECT' | 'COMPOSITE' | undefined;
}

/** One part a completion lists, with the checksums the client sent for it. */
export interface CompletePart {
  partNumber: number;
  etag: string;
  checksums: Partial<Record<ChecksumAlgorithm, string>>;
}

/** The highest part number S3 allows. */
export const MAX_PART_NUMBER = 10_000;

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

/** What the parts' checksums combine to for the whole object (FULL_OBJECT CRCs or COMPOSITE), or undefined when the
 * upload declared no algorithm. Throws InvalidPart for a part uploaded without the upload's checksum. */
export function objectChecksum(
  upload: UploadRow,
  parts: UploadPartRow[],
): { algorithm: ChecksumAlgorithm; value: string; type: ChecksumType } | undefined {
  const algorithm = upload.checksumAlgorithm;
  if (!algorithm) return undefined;
  const digests = parts.map((p) => {
    const value = p.checksums[algorithm];
    if (value === undefined) {
      throw new AppError('InvalidPart', {
        message: `Part ${p.partNumber} was uploaded without a ${algorithm} checksum.`,
      });
    }
    return Buffer.from(value, 'base64');
  });
  if (upload.checksumType === 'FULL_OBJECT' && algorithm !== 'SHA1' && algorithm !== 'SHA256') {
    let crc = digests[0] as Buffer;
    for (let i = 1; i < digests.length; i++)
      crc = combineCrc(algorithm, crc, { crc: digests[i] as Buffer, length: (parts[i] as UploadPartRow).size });
    return { algorithm, value: crc.toString('base64'), type: 'FULL_OBJECT' };
  }
  return { algorithm, value: compositeChecksum(algorithm, digests), type: 'COMPOSITE' };
}

/** Throws InvalidArgument unless `n` is a part number S3 allows (1 to 10,000). */
export function checkPartNumber(n: number): void {
  if (!Number.isInteger(n) || n < 1 || n > MAX_PART_NUMBER) {
    throw new AppError('InvalidArgument', {
      message: `Part number must be an integer between 1 and ${MAX_PART_NUMBER}, inclusive`,
      details: { ArgumentName: 'partNumber', ArgumentValue: String(n) },
    });
  }
}
