// The canonical request and string to sign of AWS Signature Version 4, as S3 computes them. One
// implementation, shared by verification (verify.ts) and signing (sign.ts).
// https://docs.aws.amazon.com/AmazonS3/latest/API/sig-v4-header-based-auth.html
import crypto from 'node:crypto';

export const ALGORITHM = 'AWS4-HMAC-SHA256';
export const UNSIGNED_PAYLOAD = 'UNSIGNED-PAYLOAD';
export const EMPTY_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

/** What the canonical request is built from; header names lower-cased. */
export interface CanonicalInput {
  method: string;
  /** The path as sent on the wire, still percent-encoded. */
  rawPath: string;
  /** The query string as sent, without '?'. */
  rawQuery: string;
  headers: Record<string, string | string[] | undefined>;
  /** Lower-case names, in the order the client listed them (sorted by every real client). */
  signedHeaders: readonly string[];
  /** The last line: a hex SHA-256, UNSIGNED-PAYLOAD or a STREAMING-* literal. */
  payloadHash: string;
  /** Presigned URLs carry the signature in the query; it is not part of what was signed. */
  isPresigned: boolean;
}

const HEX = '0123456789ABCDEF';
// AWS UriEncode: every byte except A-Za-z0-9 - . _ ~ becomes %XX (upper-case hex).
const ENCODED_BYTE: readonly string[] = Array.from({ length: 256 }, (_, b) =>
  isUnreserved(b) ? String.fromCharCode(b) : `%${HEX[b >> 4]}${HEX[b & 15]}`,
);
const CANONICAL_PATH = /^[A-Za-z0-9\-._~/]*$/;
const CANONICAL_COMPONENT = /^[A-Za-z0-9\-._~]*$/;
const NON_LATIN1 = /[^\x00-\xff]/;

function isUnreserved(b: number): boolean {
  return (
    (b >= 0x41 && b <= 0x5a) ||
    (b >= 0x61 && b <= 0x7a) ||
    (b >= 0x30 && b <= 0x39) ||
    b === 0x2d ||
    b === 0x2e ||
    b === 0x5f ||
    b === 0x7e
  );
}

function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x41 && c <= 0x46) return c - 0x37;
  if (c >= 0x61 && c <= 0x66) return c - 0x57;
  return -1;
}

/**
 * Percent-decodes to bytes. A '%' not followed by two hex digits stays literal (what S3 does rather
 * than failing). Characters up to U+00FF are taken as the byte they stand for, because Node hands
 * the request line to us latin1-decoded; characters above (only from strings built in code) are UTF-8.
 */
export function percentDecode(raw: string, plusIsSpace: boolean): Buffer {
  const out = Buffer.allocUnsafe(raw.length * 3);
  let n = 0;
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (c === 0x25 && i + 2 < raw.length) {
      const hi = hexValue(raw.charCodeAt(i + 1));
      const lo = hexValue(raw.charCodeAt(i + 2));
      if (hi >= 0 && lo >= 0) {
        out[n++] = hi * 16 + lo;
        i += 2;
        continue;
      }
    }
    if (c === 0x2b && plusIsSpace) out[n++] = 0x20;
    else if (c <= 0xff) out[n++] = c;
    else {
      const cp = raw.codePointAt(i) ?? c;
      if (cp > 0xffff) i++;
      n += out.write(String.fromCodePoint(cp), n, 'utf8');
    }
  }
  return out.subarray(0, n);
}

/** AWS UriEncode of raw bytes: all but A-Za-z0-9-._~ percent-encoded, '/' included. */
export function uriEncodeBytes(bytes: Uint8Array): string {
  let out = '';
  for (const b of bytes) out += ENCODED_BYTE[b];
  return out;
}

/** AWS UriEncode of a (decoded) string, UTF-8; for building query strings on the client side. */
export function uriEncode(value: string): string {
  return CANONICAL_COMPONENT.test(value) ? value : uriEncodeBytes(Buffer.from(value, 'utf8'));
}

/**
 * The canonical URI for S3: each segment decoded, then re-encoded once. No normalisation of '.',
 * '..' or '//' segments: S3 keys may contain them and the client signs them as they are. Segments
 * are handled apart so an encoded slash (%2F) stays encoded, as the client signed it.
 */
export function canonicalUri(rawPath: string): string {
  if (rawPath === '') return '/';
  if (CANONICAL_PATH.test(rawPath)) return rawPath;
  return rawPath
    .split('/')
    .map((segment) => canonicalComponent(segment, false))
    .join('/');
}

function canonicalComponent(raw: string, plusIsSpace: boolean): string {
  return CANONICAL_COMPONENT.test(raw) ? raw : uriEncodeBytes(percentDecode(raw, plusIsSpace));
}

/**
 * The canonical query string: each name and value decoded then re-encoded, sorted by name then value,
 * a parameter without '=' has an empty value. '+' reads as a space, as in any form-encoded query.
 */
export function canonicalQuery(rawQuery: string, isPresigned: boolean): string {
  if (rawQuery === '') return '';
  const pairs: Array<[string, string]> = [];
  for (const part of rawQuery.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const name = canonicalComponent(eq < 0 ? part : part.slice(0, eq), true);
    if (isPresigned && name === 'X-Amz-Signature') continue;
    pairs.push([name, eq < 0 ? '' : canonicalComponent(part.slice(eq + 1), true)]);
  }
  pairs.sort(comparePairs);
  return pairs.map(([name, value]) => `${name}=${value}`).join('&');
}

function comparePairs(a: [string, string], b: [string, string]): number {
  if (a[0] !== b[0]) return a[0] < b[0] ? -1 : 1;
  if (a[1] !== b[1]) return a[1] < b[1] ? -1 : 1;
  return 0;
}

/**
 * Trims and collapses runs of spaces and tabs only: Node decodes header bytes as latin1, so a UTF-8
 * byte like 0xA0 (inside 'à') must not be mistaken for whitespace, as `\s` and `trim()` would.
 */
function trimAll(value: string): string {
  return value.replace(/[ \t]+/g, ' ').replace(/^ | $/g, '');
}

/** A header's canonical value; repeated headers (an array) are joined with ','. */
export function canonicalHeaderValue(value: string | string[] | undefined): string {
  if (value === undefined) return '';
  if (typeof value === 'string') return trimAll(value);
  return value.map(trimAll).join(',');
}

/** The full canonical request, lines joined by '\n'. */
export function canonicalRequest(input: CanonicalInput): string {
  let headerLines = '';
  for (const name of input.signedHeaders) {
    headerLines += `${name}:${canonicalHeaderValue(input.headers[name])}\n`;
  }
  return [
    input.method,
    canonicalUri(input.rawPath),
    canonicalQuery(input.rawQuery, input.isPresigned),
    headerLines,
    input.signedHeaders.join(';'),
    input.payloadHash,
  ].join('\n');
}

/** `crypto.hash` (Node 20.12+): a one-shot digest without a Hash object, about half the cost per request. */
const oneShotHash = typeof crypto.hash === 'function' ? crypto.hash : undefined;

/** Hex SHA-256 of a string as it travelled: latin1 bytes unless it holds characters above U+00FF. */
export function sha256Hex(data: string | Uint8Array): string {
  const bytes = typeof data === 'string' ? Buffer.from(data, NON_LATIN1.test(data) ? 'utf8' : 'latin1') : data;
  return oneShotHash ? oneShotHash('sha256', bytes, 'hex') : crypto.createHash('sha256').update(bytes).digest('hex');
}

/** The raw 32-byte SHA-256 of some bytes, through the one-shot digest where Node has it. */
export function sha256Bytes(bytes: Uint8Array): Buffer {
  return oneShotHash ? oneShotHash('sha256', bytes, 'buffer') : crypto.createHash('sha256').update(bytes).digest();
}

/** e.g. 20130524/us-east-1/s3/aws4_request */
export function credentialScope(date: string, region: string, service: string): string {
  return `${date}/${region}/${service}/aws4_request`;
}

export function stringToSign(amzDate: string, scope: string, canonical: string): string {
  return `${ALGORITHM}\n${amzDate}\n${scope}\n${sha256Hex(canonical)}`;
}

/** 20130524T000000Z for a Date. */
export function formatAmzDate(date: Date): string {
  return date
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
}
