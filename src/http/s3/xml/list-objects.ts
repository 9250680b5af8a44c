// ListBucketResult for ListObjects (v1) and ListObjectsV2. Hot path: one pass of string concatenation.
// With encoding-type=url, S3 URL-encodes Key, Prefix, Delimiter, Marker/NextMarker (v1), StartAfter (v2)
// and CommonPrefixes/Prefix; continuation tokens are opaque and never encoded.

import type { ChecksumAlgorithm, ChecksumType } from '../../../core/checksums.js';
import { type Owner, el, etagEl, isoTimestamp, openRoot, optEl, ownerEl, s3UrlEncode } from './escape.js';

export interface ObjectSummary {
  key: string;
  lastModified: Date;
  /** Quoted or not; rendered quoted. */
  etag: string;
  size: number;
  /** Defaults to STANDARD. */
  storageClass?: string;
  checksumAlgorithm?: ChecksumAlgorithm;
  checksumType?: ChecksumType;
  /** Rendered in v1 whenever present, in v2 only with fetch-owner. */
  owner?: Owner;
}

export type EncodingType = 'url';

interface ListObjectsCommon {
  bucket: string;
  /** Always rendered, empty when absent, as S3 does. */
  prefix?: string;
  /** Rendered when non-empty. */
  delimiter?: string;
  maxKeys: number;
  isTruncated: boolean;
  contents: ObjectSummary[];
  commonPrefixes: string[];
  encodingType?: EncodingType;
}

export interface ListObjectsV1Input extends ListObjectsCommon {
  /** Echoed; rendered empty when absent. */
  marker?: string;
  /** Rendered only when truncated and a delimiter was given, as S3 does (otherwise clients use the last key). */
  nextMarker?: string;
}

export interface ListObjectsV2Input extends ListObjectsCommon {
  continuationToken?: string;
  /** Rendered when truncated. */
  nextContinuationToken?: string;
  startAfter?: string;
  fetchOwner?: boolean;
}

type Encode = (text: string) => string;
const identity: Encode = (text) => text;

function contentsEls(contents: ObjectSummary[], encode: Encode, withOwner: boolean): string {
  let out = '';
  for (const o of contents) {
    out +=
      `<Contents>${el('Key', encode(o.key))}${el('LastModified', isoTimestamp(o.lastModified))}${etagEl(o.etag)}` +
      `${optEl('ChecksumAlgorithm', o.checksumAlgorithm)}${optEl('ChecksumType', o.checksumType)}` +
      `<Size>${o.size}</Size>${withOwner && o.owner ? ownerEl(o.owner) : ''}` +
      `${el('StorageClass', o.storageClass ?? 'STANDARD')}</Contents>`;
  }
  return out;
}

function commonPrefixEls(prefixes: string[], encode: Encode): string {
  let out = '';
  for (const p of prefixes) out += `<CommonPrefixes>${el('Prefix', encode(p))}</CommonPrefixes>`;
  return out;
}

function delimiterAndEncoding(input: ListObjectsCommon, encode: Encode): string {
  return (input.delimiter ? el('Delimiter', encode(input.delimiter)) : '') + optEl('EncodingType', input.encodingType);
}

/** ListObjects (v1) response. */
export function buildListObjectsV1Result(input: ListObjectsV1Input): string {
  const encode = input.encodingType === 'url' ? s3UrlEncode : identity;
  const nextMarker =
    input.isTruncated && input.delimiter && input.nextMarker !== undefined
      ? el('NextMarker', encode(input.nextMarker))
      : '';
  return (
    `${openRoot('ListBucketResult')}${el('Name', input.bucket)}${el('Prefix', encode(input.prefix ?? ''))}` +
    `${el('Marker', encode(input.marker ?? ''))}${nextMarker}<MaxKeys>${input.maxKeys}</MaxKeys>` +
    `${delimiterAndEncoding(input, encode)}<IsTruncated>${input.isTruncated}</IsTruncated>` +
    `${contentsEls(input.contents, encode, true)}${commonPrefixEls(input.commonPrefixes, encode)}</ListBucketResult>`
  );
}

/** ListObjectsV2 response. KeyCount is computed: keys plus common prefixes on this page. */
export function buildListObjectsV2Result(input: ListObjectsV2Input): string {
  const encode = input.encodingType === 'url' ? s3UrlEncode : identity;
  const next = input.isTruncated ? optEl('NextContinuationToken', input.nextContinuationToken) : '';
  const startAfter = input.startAfter === undefined ? '' : el('StartAfter', encode(input.startAfter));
  return (
    `${openRoot('ListBucketResult')}${el('Name', input.bucket)}${el('Prefix', encode(input.prefix ?? ''))}` +
    `${optEl('ContinuationToken', input.continuationToken)}${next}${startAfter}` +
    `<KeyCount>${input.contents.length + input.commonPrefixes.length}</KeyCount><MaxKeys>${input.maxKeys}</MaxKeys>` +
    `${delimiterAndEncoding(input, encode)}<IsTruncated>${input.isTruncated}</IsTruncated>` +
    `${contentsEls(input.contents, encode, input.fetchOwner === true)}${commonPrefixEls(input.commonPrefixes, encode)}` +
    `</ListBucketResult>`
  );
}
