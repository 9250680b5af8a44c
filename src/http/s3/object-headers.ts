// Object metadata on the wire: system headers and x-amz-meta-* read from a request, and the headers a
// GET/HEAD answers with.

import type { IncomingMessage } from 'node:http';
import { checksumHeader } from '../../core/checksums.js';
import { checkUserMetaSize } from '../../core/user-metadata.js';
import type { ObjectHeaders, ObjectRow } from '../../services/objects/object-service.js';
import { headerOf } from './context.js';

/**
 * Content-Encoding without the transport-only `aws-chunked` token (S3 never stores it); the other codings are kept as
 * sent, spacing included (`gzip, br` comes back as `gzip, br`).
 */
function storedContentEncoding(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const kept = value
    .split(',')
    .filter((coding) => coding.trim() !== '' && coding.trim().toLowerCase() !== 'aws-chunked');
  return kept.length > 0 ? kept.join(',').trimStart() : undefined;
}

export function readObjectHeaders(req: IncomingMessage): ObjectHeaders {
  const headers: ObjectHeaders = {};
  const set = (field: keyof ObjectHeaders, value: string | undefined): void => {
    if (value !== undefined) headers[field] = value;
  };
  set('contentType', headerOf(req, 'content-type'));
  set('contentEncoding', storedContentEncoding(headerOf(req, 'content-encoding')));
  set('contentDisposition', headerOf(req, 'content-disposition'));
  set('contentLanguage', headerOf(req, 'content-language'));
  set('cacheControl', headerOf(req, 'cache-control'));
  set('expires', headerOf(req, 'expires'));
  return headers;
}

/** x-amz-meta-* headers (names lower-cased, prefix removed). Throws MetadataTooLarge over 2 KB. */
export function readUserMeta(req: IncomingMessage): Record<string, string> {
  const meta: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (!name.startsWith('x-amz-meta-') || value === undefined) continue;
    meta[name.slice('x-amz-meta-'.length)] = Array.isArray(value) ? value.join(',') : value;
  }
  checkUserMetaSize(meta);
  return meta;
}

export function httpDate(ms: number): string {
  return new Date(ms).toUTCString();
}

/**
 * The headers describing a stored version (GET, HEAD). Checksums only when asked for and the whole object is served.
 */
export function objectHeaders(
  row: ObjectRow,
  opts: { checksums: boolean; versioned: boolean },
): Record<string, string | number | undefined> {
  const h = row.headers;
  const out: Record<string, string | number | undefined> = {
    ETag: `"${row.etag}"`,
    'Last-Modified': httpDate(row.lastModified),
    'Accept-Ranges': 'bytes',
    'Content-Type': h.contentType ?? 'binary/octet-stream',
    'Content-Encoding': h.contentEncoding,
    'Content-Disposition': h.contentDisposition,
    'Content-Language': h.contentLanguage,
    'Cache-Control': h.cacheControl,
    Expires: h.expires,
    'x-amz-server-side-encryption': 'AES256',
    'x-amz-storage-class': row.storageClass === 'STANDARD' ? undefined : row.storageClass,
    'x-amz-version-id': opts.versioned ? row.versionId : undefined,
  };
  for (const [name, value] of Object.entries(row.userMeta)) out[`x-amz-meta-${name}`] = value;
  if (opts.checksums && row.checksumAlgorithm && row.checksumValue) {
    out[checksumHeader(row.checksumAlgorithm)] = row.checksumValue;
    out['x-amz-checksum-type'] = row.checksumType;
  }
  return out;
}
