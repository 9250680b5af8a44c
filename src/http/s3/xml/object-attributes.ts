// GetObjectAttributesResponse: only the attributes asked for (x-amz-object-attributes), in S3's element order.
// https://docs.aws.amazon.com/AmazonS3/latest/API/API_GetObjectAttributes.html

import type { ChecksumType } from '../../../core/checksums.js';
import { type ChecksumValues, checksumEls, el, openRoot, optEl } from './escape.js';

export interface AttributePart {
  partNumber: number;
  size: number;
  checksums?: ChecksumValues;
}

export interface ObjectAttributesInput {
  /** Rendered unquoted, as S3 does in this document. */
  etag?: string;
  /** A composite checksum is rendered without its `-N` part-count suffix, as S3 does here. */
  checksum?: { values: ChecksumValues; type?: ChecksumType };
  objectParts?: {
    partsCount: number;
    partNumberMarker: number;
    nextPartNumberMarker?: number;
    maxParts: number;
    isTruncated: boolean;
    parts: AttributePart[];
  };
  storageClass?: string;
  objectSize?: number;
}

export function buildObjectAttributes(input: ObjectAttributesInput): string {
  let out = openRoot('GetObjectAttributesResponse');
  if (input.etag !== undefined) out += el('ETag', input.etag.replace(/^"|"$/g, ''));
  if (input.checksum)
    out += `<Checksum>${checksumEls(input.checksum.values)}${optEl('ChecksumType', input.checksum.type)}</Checksum>`;
  const op = input.objectParts;
  if (op) {
    out +=
      `<ObjectParts><PartsCount>${op.partsCount}</PartsCount><PartNumberMarker>${op.partNumberMarker}</PartNumberMarker>` +
      `${optEl('NextPartNumberMarker', op.nextPartNumberMarker)}<MaxParts>${op.maxParts}</MaxParts>` +
      `<IsTruncated>${op.isTruncated}</IsTruncated>`;
    for (const p of op.parts)
      out += `<Part>${checksumEls(p.checksums)}<PartNumber>${p.partNumber}</PartNumber><Size>${p.size}</Size></Part>`;
    out += '</ObjectParts>';
  }
  out += optEl('StorageClass', input.storageClass);
  out += optEl('ObjectSize', input.objectSize);
  return `${out}</GetObjectAttributesResponse>`;
}
