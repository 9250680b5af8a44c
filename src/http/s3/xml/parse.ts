// Parsers for the S3 request bodies Store accepts: CreateBucketConfiguration, Delete (DeleteObjects)
// and CompleteMultipartUpload. Every failure is AppError MalformedXML, as S3 answers.

import type { ChecksumAlgorithm } from '../../../core/checksums.js';
import {
  type XmlElement,
  assertContainer,
  childrenNamed,
  malformedXml,
  optionalLeaf,
  readXml,
  requiredLeaf,
} from './reader.js';

/** DeleteObjects accepts at most this many keys per request. */
export const MAX_DELETE_OBJECTS = 1000;

function rootNamed(body: Uint8Array, name: string): XmlElement {
  const root = readXml(body);
  if (root === undefined || root.name !== name) throw malformedXml();
  assertContainer(root);
  return root;
}

export interface CreateBucketConfiguration {
  /** The requested region; absent for an empty body or an empty LocationConstraint (us-east-1). */
  locationConstraint?: string;
}

/** Parses a CreateBucket body. An empty body is allowed and means no configuration. */
export function parseCreateBucketConfiguration(body: Uint8Array): CreateBucketConfiguration {
  const root = readXml(body);
  if (root === undefined) return {};
  if (root.name !== 'CreateBucketConfiguration') throw malformedXml();
  assertContainer(root);
  const location = optionalLeaf(root, 'LocationConstraint')?.trim();
  return location ? { locationConstraint: location } : {};
}

export interface DeleteObjectsRequest {
  quiet: boolean;
  /** Keys exactly as sent (not trimmed, possibly empty: the caller validates each and reports per key). */
  objects: { key: string; versionId?: string }[];
}

/** Parses a DeleteObjects body: `<Delete>` with an optional `<Quiet>` and 1 to 1000 `<Object>` entries. */
export function parseDeleteObjects(body: Uint8Array): DeleteObjectsRequest {
  const root = rootNamed(body, 'Delete');
  const quietText = optionalLeaf(root, 'Quiet')?.trim().toLowerCase();
  if (quietText !== undefined && quietText !== 'true' && quietText !== 'false') throw malformedXml();
  const entries = childrenNamed(root, 'Object');
  if (entries.length === 0 || entries.length > MAX_DELETE_OBJECTS) throw malformedXml();
  const objects = entries.map((entry) => {
    assertContainer(entry);
    const key = requiredLeaf(entry, 'Key');
    const versionId = optionalLeaf(entry, 'VersionId')?.trim();
    return versionId ? { key, versionId } : { key };
  });
  return { quiet: quietText === 'true', objects };
}

export interface CompletedPart {
  partNumber: number;
  /** As sent (quoted or not); compare with unquoteEtag. */
  etag: string;
  checksums: Partial<Record<ChecksumAlgorithm, string>>;
}

export interface CompleteMultipartUploadRequest {
  /** In document order; the caller checks ascending order (InvalidPartOrder) and existence (InvalidPart). */
  parts: CompletedPart[];
}

const CHECKSUM_ELEMENTS: [string, ChecksumAlgorithm][] = [
  ['ChecksumCRC32', 'CRC32'],
  ['ChecksumCRC32C', 'CRC32C'],
  ['ChecksumCRC64NVME', 'CRC64NVME'],
  ['ChecksumSHA1', 'SHA1'],
  ['ChecksumSHA256', 'SHA256'],
];

const INT32_MAX = 2_147_483_647;

/** Parses a CompleteMultipartUpload body: one or more `<Part>` with PartNumber, ETag and checksums. */
export function parseCompleteMultipartUpload(body: Uint8Array): CompleteMultipartUploadRequest {
  const root = rootNamed(body, 'CompleteMultipartUpload');
  const entries = childrenNamed(root, 'Part');
  if (entries.length === 0) throw malformedXml();
  const parts = entries.map((entry): CompletedPart => {
    assertContainer(entry);
    const numberText = requiredLeaf(entry, 'PartNumber').trim();
    // xs:int in S3's schema: digits only, no sign, no exponent, within 32 bits.
    if (!/^\d{1,10}$/.test(numberText)) throw malformedXml();
    const partNumber = Number(numberText);
    if (partNumber > INT32_MAX) throw malformedXml();
    const etag = requiredLeaf(entry, 'ETag').trim();
    const checksums: Partial<Record<ChecksumAlgorithm, string>> = {};
    for (const [element, alg] of CHECKSUM_ELEMENTS) {
      const value = optionalLeaf(entry, element)?.trim();
      if (value) checksums[alg] = value;
    }
    return { partNumber, etag, checksums };
  });
  return { parts };
}
