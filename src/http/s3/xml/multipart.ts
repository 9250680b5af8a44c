// Multipart upload responses: InitiateMultipartUploadResult, CompleteMultipartUploadResult,
// ListPartsResult and ListMultipartUploadsResult (with encoding-type=url for keys, as S3 does).

import type { ChecksumAlgorithm, ChecksumType } from '../../../core/checksums.js';
import {
  type ChecksumValues,
  type Owner,
  checksumEls,
  checksumTypeEl,
  el,
  etagEl,
  isoTimestamp,
  openRoot,
  optEl,
  ownerEl,
  s3UrlEncode,
} from './escape.js';
import type { EncodingType } from './list-objects.js';

export function buildInitiateMultipartUploadResult(input: { bucket: string; key: string; uploadId: string }): string {
  return (
    `${openRoot('InitiateMultipartUploadResult')}${el('Bucket', input.bucket)}${el('Key', input.key)}` +
    `${el('UploadId', input.uploadId)}</InitiateMultipartUploadResult>`
  );
}

export interface CompleteMultipartUploadResultInput {
  /** The object's URL. */
  location: string;
  bucket: string;
  key: string;
  etag: string;
  checksums?: ChecksumValues;
  checksumType?: ChecksumType;
}

export function buildCompleteMultipartUploadResult(input: CompleteMultipartUploadResultInput): string {
  return (
    `${openRoot('CompleteMultipartUploadResult')}${el('Location', input.location)}${el('Bucket', input.bucket)}` +
    `${el('Key', input.key)}${etagEl(input.etag)}${checksumEls(input.checksums)}${checksumTypeEl(input.checksumType)}` +
    `</CompleteMultipartUploadResult>`
  );
}

export interface PartSummary {
  partNumber: number;
  lastModified: Date;
  etag: string;
  size: number;
  checksums?: ChecksumValues;
}

export interface ListPartsInput {
  bucket: string;
  key: string;
  uploadId: string;
  /** Rendered as 0 when absent. */
  partNumberMarker?: number;
  nextPartNumberMarker?: number;
  maxParts: number;
  isTruncated: boolean;
  parts: PartSummary[];
  initiator: Owner;
  owner: Owner;
  storageClass?: string;
  checksumAlgorithm?: ChecksumAlgorithm;
  checksumType?: ChecksumType;
}

export function buildListPartsResult(input: ListPartsInput): string {
  let out =
    `${openRoot('ListPartsResult')}${el('Bucket', input.bucket)}${el('Key', input.key)}${el('UploadId', input.uploadId)}` +
    `${el('PartNumberMarker', input.partNumberMarker ?? 0)}${optEl('NextPartNumberMarker', input.nextPartNumberMarker)}` +
    `${el('MaxParts', input.maxParts)}${el('IsTruncated', input.isTruncated)}`;
  for (const p of input.parts) {
    out +=
      `<Part>${el('PartNumber', p.partNumber)}${el('LastModified', isoTimestamp(p.lastModified))}${etagEl(p.etag)}` +
      `${el('Size', p.size)}${checksumEls(p.checksums)}</Part>`;
  }
  out +=
    `${ownerEl(input.initiator, 'Initiator')}${ownerEl(input.owner)}${el('StorageClass', input.storageClass ?? 'STANDARD')}` +
    `${optEl('ChecksumAlgorithm', input.checksumAlgorithm)}${checksumTypeEl(input.checksumType)}</ListPartsResult>`;
  return out;
}

export interface UploadSummary {
  key: string;
  uploadId: string;
  initiated: Date;
  owner: Owner;
  /** Defaults to the owner. */
  initiator?: Owner;
  storageClass?: string;
  checksumAlgorithm?: ChecksumAlgorithm;
  checksumType?: ChecksumType;
}

export interface ListMultipartUploadsInput {
  bucket: string;
  /** Echoed; rendered empty when absent. */
  keyMarker?: string;
  uploadIdMarker?: string;
  /** Rendered when truncated. */
  nextKeyMarker?: string;
  nextUploadIdMarker?: string;
  delimiter?: string;
  prefix?: string;
  maxUploads: number;
  isTruncated: boolean;
  uploads: UploadSummary[];
  commonPrefixes: string[];
  encodingType?: EncodingType;
}

export function buildListMultipartUploadsResult(input: ListMultipartUploadsInput): string {
  const enc = input.encodingType === 'url' ? s3UrlEncode : (text: string): string => text;
  const next = input.isTruncated
    ? `${input.nextKeyMarker === undefined ? '' : el('NextKeyMarker', enc(input.nextKeyMarker))}${optEl('NextUploadIdMarker', input.nextUploadIdMarker)}`
    : '';
  let out =
    `${openRoot('ListMultipartUploadsResult')}${el('Bucket', input.bucket)}${el('KeyMarker', enc(input.keyMarker ?? ''))}` +
    `${el('UploadIdMarker', input.uploadIdMarker ?? '')}${next}` +
    `${input.delimiter ? el('Delimiter', enc(input.delimiter)) : ''}${el('Prefix', enc(input.prefix ?? ''))}` +
    `${el('MaxUploads', input.maxUploads)}${optEl('EncodingType', input.encodingType)}${el('IsTruncated', input.isTruncated)}`;
  for (const u of input.uploads) {
    out +=
      `<Upload>${el('Key', enc(u.key))}${el('UploadId', u.uploadId)}${ownerEl(u.initiator ?? u.owner, 'Initiator')}` +
      `${ownerEl(u.owner)}${el('StorageClass', u.storageClass ?? 'STANDARD')}${el('Initiated', isoTimestamp(u.initiated))}` +
      `${optEl('ChecksumAlgorithm', u.checksumAlgorithm)}${checksumTypeEl(u.checksumType)}</Upload>`;
  }
  for (const p of input.commonPrefixes) out += `<CommonPrefixes>${el('Prefix', enc(p))}</CommonPrefixes>`;
  return `${out}</ListMultipartUploadsResult>`;
}
