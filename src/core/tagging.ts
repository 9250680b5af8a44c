// Tag sets of objects and buckets: S3's limits and character rules, and the x-amz-tagging header
// (URL query form) read into the same model. Limits:
// https://docs.aws.amazon.com/AmazonS3/latest/userguide/object-tagging.html and .../CostAllocTagging.html

import { AppError } from './errors.js';

export interface Tag {
  key: string;
  value: string;
}

/** A tag set in the order it was given (GetObjectTagging answers it in that order). Plain JSON. */
export type TagSet = Tag[];

/** Objects carry at most 10 tags, buckets at most 50. */
export const MAX_OBJECT_TAGS = 10;
export const MAX_BUCKET_TAGS = 50;
/**
 * Lengths in UTF-16 code units: "Amazon S3 object tags are internally represented in UTF-16. Note that
 * in UTF-16, characters consume either 1 or 2 character positions." That is JavaScript's string length.
 */
export const MAX_TAG_KEY_LENGTH = 128;
export const MAX_TAG_VALUE_LENGTH = 256;

export type TagTarget = 'object' | 'bucket';

// AWS's tag pattern: Unicode letters, separators (spaces), numbers and _ . : / = + - @.
const TAG_TEXT = /^[\p{L}\p{Z}\p{N}_.:/=+\-@]*$/u;
const RESERVED_PREFIX = 'aws:';

function invalidTag(message: string): AppError {
  return new AppError('InvalidTag', { message });
}

/**
 * Checks one tag: key of 1 to 128 and value of 0 to 256 characters, only the characters AWS allows,
 * and no key starting with the reserved `aws:` (in any case). Throws AppError InvalidTag.
 */
export function validateTag(tag: Tag): void {
  if (typeof tag.key !== 'string' || tag.key === '' || !TAG_TEXT.test(tag.key)) {
    throw invalidTag('The TagKey you have provided is invalid');
  }
  if (tag.key.length > MAX_TAG_KEY_LENGTH) throw invalidTag('The TagKey you have provided is too long, max 128');
  if (tag.key.toLowerCase().startsWith(RESERVED_PREFIX)) throw invalidTag('Your TagKey cannot be prefixed with aws:');
  if (typeof tag.value !== 'string' || !TAG_TEXT.test(tag.value)) {
    throw invalidTag('The TagValue you have provided is invalid');
  }
  if (tag.value.length > MAX_TAG_VALUE_LENGTH) throw invalidTag('The TagValue you have provided is too long, max 256');
}

/**
 * Checks a whole tag set for an object (at most 10 tags) or a bucket (at most 50): each tag as
 * validateTag, and no key twice. An empty set is valid (PutObjectTagging with it clears the tags).
 * Throws AppError InvalidTag.
 */
export function validateTagSet(tags: readonly Tag[], target: TagTarget): void {
  if (target === 'object' && tags.length > MAX_OBJECT_TAGS) {
    // AWS answers this one with code BadRequest; s3-tests ask for InvalidTag (docs/decisions.md, "Bucket
    // configuration").
    throw invalidTag('Object tags cannot be greater than 10');
  }
  if (target === 'bucket' && tags.length > MAX_BUCKET_TAGS) throw invalidTag('Bucket tags cannot be greater than 50');
  const seen = new Set<string>();
  for (const tag of tags) {
    validateTag(tag);
    if (seen.has(tag.key)) throw invalidTag('Cannot provide multiple Tags with the same key');
    seen.add(tag.key);
  }
}

const HEADER_MESSAGE =
  "The header 'x-amz-tagging' shall be encoded as UTF-8 then URLEncoded URL query parameters without tag name duplicates.";

function headerError(): AppError {
  return new AppError('InvalidArgument', { message: HEADER_MESSAGE, details: { ArgumentName: 'x-amz-tagging' } });
}

const utf8 = new TextDecoder('utf-8', { fatal: true });
const encoder = new TextEncoder();

/** Form decoding (`+` is a space, as HTML forms and Python's urlencode write it), strict UTF-8. */
function formDecode(text: string): string {
  const plus = text.replace(/\+/g, ' ');
  if (!plus.includes('%')) return plus;
  if (/%(?![0-9A-Fa-f]{2})/.test(plus)) throw headerError();
  // Percent-escapes may split a multi-byte character, so decode to bytes first.
  const bytes: number[] = [];
  for (const part of plus.split(/(%[0-9A-Fa-f]{2})/)) {
    if (part.startsWith('%')) bytes.push(parseInt(part.slice(1), 16));
    else bytes.push(...encoder.encode(part));
  }
  try {
    return utf8.decode(Uint8Array.from(bytes));
  } catch {
    throw headerError();
  }
}

/**
 * Reads an `x-amz-tagging` header (`k1=v1&k2=v2`, URL-encoded) into a tag set for an object.
 * A key without `=` has the empty value; empty pairs (`a=1&&b=2`) are skipped; an empty header is
 * an empty set. Throws AppError InvalidArgument (ArgumentName x-amz-tagging) for a bad escape, invalid
 * UTF-8, a raw `=` in a value or a repeated key, as S3 does, and InvalidTag for a tag that fails
 * validateTagSet(tags, 'object').
 */
export function parseTaggingHeader(header: string): TagSet {
  const tags: TagSet = [];
  const seen = new Set<string>();
  for (const pair of header.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const rawKey = eq === -1 ? pair : pair.slice(0, eq);
    const rawValue = eq === -1 ? '' : pair.slice(eq + 1);
    if (rawValue.includes('=')) throw headerError();
    const key = formDecode(rawKey);
    if (seen.has(key)) throw headerError();
    seen.add(key);
    tags.push({ key, value: formDecode(rawValue) });
  }
  validateTagSet(tags, 'object');
  return tags;
}

/** The x-amz-tagging form of a tag set (for replication and copies); parseTaggingHeader reads it back. */
export function formatTaggingHeader(tags: readonly Tag[]): string {
  return tags.map((t) => `${encodeURIComponent(t.key)}=${encodeURIComponent(t.value)}`).join('&');
}
