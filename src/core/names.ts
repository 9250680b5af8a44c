// Bucket name and object key validation: S3's general-purpose bucket naming rules plus Store's own
// reserved names, and the key limits (non-empty, valid UTF-8, at most 1024 bytes).
// Rules: https://docs.aws.amazon.com/AmazonS3/latest/userguide/bucketnamingrules.html

import { AppError } from './errors.js';

/** S3's limit on the UTF-8 encoded length of an object key. */
export const MAX_KEY_BYTES = 1024;

/** Names that would collide with the service's own paths on the shared listener. */
export const RESERVED_BUCKET_NAMES: ReadonlySet<string> = new Set(['api', 'admin', 'metrics']);

const BUCKET_CHARS = /^[a-z0-9][a-z0-9.-]*[a-z0-9]$/;
const IPV4_LIKE = /^\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;
const RESERVED_PREFIXES = ['xn--', 'sthree-', 'amzn-s3-demo-'];
// --table-s3 is reserved for S3 Tables buckets alongside the others.
const RESERVED_SUFFIXES = ['-s3alias', '--ol-s3', '.mrap', '--x-s3', '--table-s3'];

/**
 * Checks a bucket name against S3's general-purpose naming rules: 3-63 characters of lower-case
 * letters, digits, dots and hyphens; starts and ends with a letter or digit; no two adjacent dots;
 * not an IPv4 address; no reserved prefix or suffix; not one of Store's reserved names.
 * Throws AppError InvalidBucketName (with the bucket name as resource).
 */
export function validateBucketName(name: string): void {
  const reason = bucketNameProblem(name);
  if (reason !== undefined) {
    throw new AppError('InvalidBucketName', {
      message: `The specified bucket is not valid: ${reason}.`,
      resource: name,
      details: { BucketName: name },
    });
  }
}

function bucketNameProblem(name: string): string | undefined {
  if (name.length < 3 || name.length > 63) return 'bucket names must be between 3 and 63 characters long';
  if (!BUCKET_CHARS.test(name)) {
    return 'bucket names may contain only lower-case letters, digits, dots and hyphens, and must begin and end with a letter or digit';
  }
  if (name.includes('..')) return 'bucket names must not contain two adjacent periods';
  if (IPV4_LIKE.test(name)) return 'bucket names must not be formatted as an IP address';
  for (const prefix of RESERVED_PREFIXES) {
    if (name.startsWith(prefix)) return `bucket names must not start with ${prefix}`;
  }
  for (const suffix of RESERVED_SUFFIXES) {
    if (name.endsWith(suffix)) return `bucket names must not end with ${suffix}`;
  }
  if (RESERVED_BUCKET_NAMES.has(name)) return `${name} is reserved by this service`;
  return undefined;
}

// A high surrogate not followed by a low one, or a low one not preceded by a high one.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Checks an object key: non-empty, well-formed Unicode (no lone surrogates, and no U+FFFD, which is what
 * a lossy decoder leaves where invalid UTF-8 bytes were: we refuse rather than store a different key),
 * and at most MAX_KEY_BYTES bytes of UTF-8.
 * Throws AppError InvalidArgument (empty or malformed) or KeyTooLongError.
 */
export function validateObjectKey(key: string): void {
  if (key.length === 0) {
    throw new AppError('InvalidArgument', { message: 'Object key must not be empty.' });
  }
  if (LONE_SURROGATE.test(key) || key.includes('\uFFFD')) {
    throw new AppError('InvalidArgument', { message: 'Object key is not valid UTF-8.' });
  }
  // Cheap bound first: every UTF-16 unit encodes to at most 3 bytes.
  if (key.length * 3 > MAX_KEY_BYTES && Buffer.byteLength(key, 'utf8') > MAX_KEY_BYTES) {
    throw new AppError('KeyTooLongError', {
      details: { Size: String(Buffer.byteLength(key, 'utf8')), MaxSizeAllowed: String(MAX_KEY_BYTES) },
    });
  }
}
