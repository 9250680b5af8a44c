// MD5 ETags as S3 computes and compares them: single-part hex MD5, multipart "md5-of-md5s-N",
// quoting, If-Match / If-None-Match list matching, and Content-MD5 parsing.

import { createHash } from 'node:crypto';
import { AppError } from './errors.js';

/** Lower-case hex MD5 of `data` (an unquoted single-part ETag). */
export function md5Hex(data: Uint8Array | string): string {
  return createHash('md5').update(data).digest('hex');
}

/**
 * The multipart ETag, unquoted: hex MD5 of the concatenated binary part MD5s, '-', the part count.
 * Example: `d41d8cd98f00b204e9800998ecf8427e-2`. Pass the parts in part-number order.
 */
export function multipartEtag(partMd5s: Buffer[]): string {
  const hash = createHash('md5');
  for (const md5 of partMd5s) hash.update(md5);
  return `${hash.digest('hex')}-${partMd5s.length}`;
}

/** Wraps an ETag in double quotes as S3 sends it in headers and XML; already quoted values are kept. */
export function quoteEtag(etag: string): string {
  return etag.length >= 2 && etag.startsWith('"') && etag.endsWith('"') ? etag : `"${etag}"`;
}

/** Strips a weak `W/` prefix and surrounding double quotes (clients send ETags every which way). */
export function unquoteEtag(etag: string): string {
  let v = etag.trim();
  if (v.startsWith('W/') || v.startsWith('w/')) v = v.slice(2);
  if (v.length >= 2 && v.startsWith('"') && v.endsWith('"')) v = v.slice(1, -1);
  return v;
}

/**
 * True when an If-Match / If-None-Match header value matches `etag`: `*` matches any existing object;
 * otherwise any comma-separated entry equal to the ETag after dropping `W/` and quotes. S3 compares
 * this loosely (weak and unquoted forms match), so we do too. An empty header matches nothing.
 */
export function etagMatches(header: string, etag: string): boolean {
  const target = unquoteEtag(etag);
  for (const raw of header.split(',')) {
    const entry = raw.trim();
    if (entry === '') continue;
    if (entry === '*') return true;
    if (unquoteEtag(entry) === target) return true;
  }
  return false;
}

const BASE64_16_BYTES = /^[A-Za-z0-9+/]{21}[AQgw]==$/;

/**
 * Decodes a Content-MD5 header (base64 of the 16-byte binary MD5).
 * Throws AppError InvalidDigest when it is not canonical base64 of exactly 16 bytes.
 */
export function parseContentMd5(b64: string): Buffer {
  const value = b64.trim();
  // 16 bytes encode to 22 significant characters + '=='; the last one carries 2 bits, so A/Q/g/w only.
  if (!BASE64_16_BYTES.test(value)) throw new AppError('InvalidDigest');
  return Buffer.from(value, 'base64');
}
