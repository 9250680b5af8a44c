// Conditional request evaluation for reads and copies (RFC 9110 section 13 with S3's documented precedence:
// https://docs.aws.amazon.com/AmazonS3/latest/API/API_GetObject.html "Conditional requests").

import { AppError } from './errors.js';
import { etagMatches } from './etag.js';

export interface ReadConditions {
  ifMatch?: string | undefined;
  ifNoneMatch?: string | undefined;
  ifModifiedSince?: string | undefined;
  ifUnmodifiedSince?: string | undefined;
}

/** HTTP dates have second precision: compare whole seconds. Unparseable dates are ignored, as HTTP says. */
function parseHttpDate(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : Math.floor(ms / 1000);
}

/**
 * Throws PreconditionFailed (412) or NotModified (304) when the conditions do not hold for an object with this
 * ETag (unquoted) and last-modified time (ms). `forCopy` reports failures of x-amz-copy-source-if-* as 412 always.
 */
export function checkReadConditions(
  c: ReadConditions,
  object: { etag: string; lastModified: number },
  forCopy = false,
): void {
  const { etag, lastModified: lastModifiedMs } = object;
  const modified = Math.floor(lastModifiedMs / 1000);
  const unmodifiedSince = parseHttpDate(c.ifUnmodifiedSince);
  const modifiedSince = parseHttpDate(c.ifModifiedSince);

  if (c.ifMatch !== undefined) {
    if (!etagMatches(c.ifMatch, etag)) throw new AppError('PreconditionFailed', { details: { Condition: 'If-Match' } });
  } else if (unmodifiedSince !== undefined && modified > unmodifiedSince) {
    throw new AppError('PreconditionFailed', { details: { Condition: 'If-Unmodified-Since' } });
  }

  const notModified = forCopy ? 'PreconditionFailed' : 'NotModified';
  if (c.ifNoneMatch !== undefined) {
    if (etagMatches(c.ifNoneMatch, etag)) throw new AppError(notModified, { details: { Condition: 'If-None-Match' } });
  } else if (modifiedSince !== undefined && modified <= modifiedSince) {
    throw new AppError(notModified, { details: { Condition: 'If-Modified-Since' } });
  }
}
