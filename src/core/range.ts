// Byte ranges: the GET/HEAD Range header (RFC 9110 section 14 as S3 applies it) and UploadPartCopy's
// x-amz-copy-source-range. Both resolve to inclusive [start, end] offsets within the object.

import { AppError } from './errors.js';

export interface ByteRange {
  /** First byte offset, inclusive. */
  start: number;
  /** Last byte offset, inclusive (always < size). */
  end: number;
}

// One range-spec: `first-last`, `first-`, or `-suffix`. The unit is case-insensitive (RFC 9110 14.1).
const SINGLE_RANGE = /^bytes=(\d*)-(\d*)$/i;

/**
 * Resolves a Range header against an object of `size` bytes.
 * - undefined when there is no header or it should be ignored (the whole object is served with 200):
 *   not `bytes`, not parseable, first > last, or several ranges (S3 does not serve multipart/byteranges
 *   and answers such a request with the whole object).
 * - `{start, end}` with end clamped to size - 1 (`bytes=0-999999` on a small object is fine).
 * Throws AppError InvalidRange (416, `Content-Range: bytes *\/size`, RangeRequested/ActualObjectSize details)
 * when the range cannot be satisfied: first >= size, a zero-length suffix, or any range on an empty object.
 */
export function parseRange(header: string | undefined, size: number): ByteRange | undefined {
  if (header === undefined) return undefined;
  const match = SINGLE_RANGE.exec(header.trim());
  if (!match) return undefined;
  const [, first = '', last = ''] = match;
  if (first === '' && last === '') return undefined;

  if (first === '') {
    // Suffix range: the last N bytes. N = 0 and an empty object are unsatisfiable (RFC 9110 14.1.3).
    const suffix = Number(last);
    if (suffix === 0 || size === 0) throw unsatisfiable(header, size);
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }

  const start = Number(first);
  const end = last === '' ? Infinity : Number(last);
  if (end < start) return undefined; // invalid range-spec: the header is ignored
  if (start >= size) throw unsatisfiable(header, size);
  return { start, end: Math.min(end, size - 1) };
}

function unsatisfiable(header: string, size: number): AppError {
  return new AppError('InvalidRange', {
    headers: { 'Content-Range': `bytes */${size}` },
    details: { RangeRequested: header, ActualObjectSize: String(size) },
  });
}

const COPY_RANGE = /^bytes=(\d+)-(\d+)$/;
const COPY_RANGE_FORM_MESSAGE =
  'The x-amz-copy-source-range value must be of the form bytes=first-last where first and last are the zero-based offsets of the first and last bytes to copy';

/**
 * Resolves x-amz-copy-source-range against a source object of `size` bytes. Only `bytes=first-last`
 * is allowed and the whole range must lie inside the object (no clamping, unlike GET).
 * Throws AppError InvalidArgument in both failure cases, with AWS's messages and ArgumentName/Value:
 * malformed (not `bytes=first-last`, first > last, several ranges), and outside the object (last >= size).
 */
export function parseCopySourceRange(header: string, size: number): ByteRange {
  const details = { ArgumentName: 'x-amz-copy-source-range', ArgumentValue: header };
  const match = COPY_RANGE.exec(header.trim());
  const start = match ? Number(match[1]) : NaN;
  const end = match ? Number(match[2]) : NaN;
  if (!match || end < start) {
    throw new AppError('InvalidArgument', { message: COPY_RANGE_FORM_MESSAGE, details });
  }
  if (end >= size) {
    // AWS answers 400 InvalidArgument here (not 416 InvalidRange as for GET).
    throw new AppError('InvalidArgument', {
      message: `Range specified is not valid for source object of size: ${size}`,
      details,
    });
  }
  return { start, end };
}
