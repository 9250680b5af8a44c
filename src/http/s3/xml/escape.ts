// The one XML text escaper, S3's encoding-type=url encoder, and the small pieces every response
// builder shares (prolog, namespace, timestamps, checksum elements, owner).

import type { ChecksumAlgorithm, ChecksumType } from '../../../core/checksums.js';

export const XML_PROLOG = '<?xml version="1.0" encoding="UTF-8"?>\n';
export const S3_XMLNS = 'http://s3.amazonaws.com/doc/2006-03-01/';

/** `<?xml ...?><Name xmlns="...">` — the opening of every namespaced S3 response document. */
export function openRoot(name: string): string {
  return `${XML_PROLOG}<${name} xmlns="${S3_XMLNS}">`;
}

const NEEDS_ESCAPE = /[&<>"'\u0000-\u0008\u000A-\u001F\uFFFE\uFFFF]/;
const ESCAPE_ALL = /[&<>"'\u0000-\u0008\u000A-\u001F\uFFFE\uFFFF]/g;

function escapeChar(ch: string): string {
  switch (ch) {
    case '&':
      return '&amp;';
    case '<':
      return '&lt;';
    case '>':
      return '&gt;';
    case '"':
      return '&quot;';
    case "'":
      return '&apos;';
    default:
      return `&#x${ch.charCodeAt(0).toString(16).toUpperCase()};`;
  }
}

/**
 * Escapes text for element content. Markup characters become entities; CR and LF become character
 * references so parsers' end-of-line normalisation cannot turn "\r\n" in a key into "\n"; other
 * control characters (and U+FFFE/U+FFFF) become character references such as `&#x1;`, which is what
 * S3 itself sends. Those are not legal XML 1.0, so strict parsers refuse them: that is why clients
 * ask for encoding-type=url, and keys listed that way never contain them. Tab is legal and kept as is.
 */
export function escapeXml(text: string): string {
  return NEEDS_ESCAPE.test(text) ? text.replace(ESCAPE_ALL, escapeChar) : text;
}

const URL_SAFE = /^[A-Za-z0-9\-_.*/]*$/;
const URL_FIXUPS: Record<string, string> = {
  '%20': '+',
  '%2F': '/',
  '!': '%21',
  "'": '%27',
  '(': '%28',
  ')': '%29',
  '~': '%7E',
};

/**
 * S3's encoding-type=url form: UTF-8 percent-encoding that keeps letters, digits, `-_.*` and `/`
 * and writes a space as `+` (so `a+b (1).txt` becomes `a%2Bb+%281%29.txt`), as clients decode it
 * with unquote_plus.
 */
export function s3UrlEncode(text: string): string {
  if (URL_SAFE.test(text)) return text;
  return encodeURIComponent(text).replace(/%20|%2F|[!'()~]/g, (m) => URL_FIXUPS[m] ?? m);
}

/** `<Name>escaped text</Name>` */
export function el(name: string, text: string | number | boolean): string {
  return `<${name}>${typeof text === 'string' ? escapeXml(text) : String(text)}</${name}>`;
}

/** `el` when `text` is defined, '' otherwise. */
export function optEl(name: string, text: string | number | boolean | undefined): string {
  return text === undefined ? '' : el(name, text);
}

/** ISO 8601 with milliseconds in UTC, as S3 renders every timestamp: 2009-10-12T17:50:30.000Z */
export function isoTimestamp(date: Date): string {
  return date.toISOString();
}

/** The ETag as S3 writes it in XML: in double quotes (escaped as &quot;). */
export function etagEl(etag: string): string {
  const quoted = etag.length >= 2 && etag.startsWith('"') && etag.endsWith('"') ? etag : `"${etag}"`;
  return el('ETag', quoted);
}

export type ChecksumValues = Partial<Record<ChecksumAlgorithm, string>>;

const CHECKSUM_ORDER: ChecksumAlgorithm[] = ['CRC32', 'CRC32C', 'CRC64NVME', 'SHA1', 'SHA256'];

/** ChecksumCRC32 ... ChecksumSHA256 elements for the values present, in S3's order. */
export function checksumEls(checksums: ChecksumValues | undefined): string {
  if (checksums === undefined) return '';
  let out = '';
  for (const alg of CHECKSUM_ORDER) {
    const value = checksums[alg];
    if (value !== undefined) out += el(`Checksum${alg}`, value);
  }
  return out;
}

/** `<ChecksumType>` when known. */
export function checksumTypeEl(type: ChecksumType | undefined): string {
  return optEl('ChecksumType', type);
}

export interface Owner {
  id: string;
  displayName?: string;
}

/** `<Tag><ID>..</ID><DisplayName>..</DisplayName></Tag>` (DisplayName only when given). */
export function ownerEl(owner: Owner, tag = 'Owner'): string {
  return `<${tag}>${el('ID', owner.id)}${optEl('DisplayName', owner.displayName)}</${tag}>`;
}
