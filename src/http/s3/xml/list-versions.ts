// ListVersionsResult (ListObjectVersions): versions and delete markers in listing order (by key, newest first
// within a key), then common prefixes. With encoding-type=url, S3 URL-encodes Key, Prefix, Delimiter, KeyMarker,
// NextKeyMarker and CommonPrefixes/Prefix; version ids are opaque and never encoded.

import type { ChecksumAlgorithm, ChecksumType } from '../../../core/checksums.js';
import { type Owner, el, etagEl, isoTimestamp, openRoot, optEl, ownerEl, s3UrlEncode } from './escape.js';
import type { EncodingType } from './list-objects.js';

export interface VersionSummary {
  key: string;
  versionId: string;
  isLatest: boolean;
  lastModified: Date;
  /** A delete marker renders as <DeleteMarker> with no ETag, size or storage class. */
  isDeleteMarker: boolean;
  /** Quoted or not; rendered quoted. */
  etag: string;
  size: number;
  /** Defaults to STANDARD. */
  storageClass?: string;
  checksumAlgorithm?: ChecksumAlgorithm;
  checksumType?: ChecksumType;
  owner: Owner;
}

export interface ListVersionsInput {
  bucket: string;
  /** Rendered always (empty when absent), as S3 does; so are the two markers. */
  prefix: string;
  keyMarker: string;
  versionIdMarker: string;
  /** Rendered only when truncated. */
  nextKeyMarker?: string;
  nextVersionIdMarker?: string;
  maxKeys: number;
  /** Rendered when non-empty. */
  delimiter?: string;
  encodingType?: EncodingType;
  isTruncated: boolean;
  versions: VersionSummary[];
  commonPrefixes: string[];
}

function entryEl(v: VersionSummary, encode: (text: string) => string): string {
  const head =
    `${el('Key', encode(v.key))}${el('VersionId', v.versionId)}${el('IsLatest', v.isLatest)}` +
    el('LastModified', isoTimestamp(v.lastModified));
  if (v.isDeleteMarker) return `<DeleteMarker>${ownerEl(v.owner)}${head}</DeleteMarker>`;
  return (
    `<Version>${head}${etagEl(v.etag)}${optEl('ChecksumAlgorithm', v.checksumAlgorithm)}${optEl('ChecksumType', v.checksumType)}` +
    `<Size>${v.size}</Size>${el('StorageClass', v.storageClass ?? 'STANDARD')}${ownerEl(v.owner)}</Version>`
  );
}

/** ListObjectVersions response. */
export function buildListVersionsResult(input: ListVersionsInput): string {
  const encode = input.encodingType === 'url' ? s3UrlEncode : (text: string): string => text;
  const next = input.isTruncated
    ? `${input.nextKeyMarker === undefined ? '' : el('NextKeyMarker', encode(input.nextKeyMarker))}${optEl('NextVersionIdMarker', input.nextVersionIdMarker)}`
    : '';
  let out =
    `${openRoot('ListVersionsResult')}${el('Name', input.bucket)}${el('Prefix', encode(input.prefix))}` +
    `${el('KeyMarker', encode(input.keyMarker))}${el('VersionIdMarker', input.versionIdMarker)}${next}` +
    `<MaxKeys>${input.maxKeys}</MaxKeys>${input.delimiter ? el('Delimiter', encode(input.delimiter)) : ''}` +
    `${optEl('EncodingType', input.encodingType)}<IsTruncated>${input.isTruncated}</IsTruncated>`;
  for (const v of input.versions) out += entryEl(v, encode);
  for (const p of input.commonPrefixes) out += `<CommonPrefixes>${el('Prefix', encode(p))}</CommonPrefixes>`;
  return `${out}</ListVersionsResult>`;
}
