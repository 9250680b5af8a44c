// How a file is uploaded: one PUT up to SINGLE_PUT_MAX, otherwise a multipart upload in parts of at least 8 MiB
// (S3's minimum is 5 MiB, its maximum 10,000 parts). Pure (unit-tested in Node).

export const MiB = 1024 * 1024;
/** Files up to this size go in one PUT; larger ones as a multipart upload. */
export const SINGLE_PUT_MAX = 16 * MiB;
export const MIN_PART_SIZE = 8 * MiB;
export const MAX_PARTS = 10_000;
/** Parts of one file in flight at once. */
export const PART_CONCURRENCY = 3;

export interface PartRange {
  partNumber: number;
  start: number;
  /** Exclusive. */
  end: number;
}

/** Whether a file of this size is sent as a multipart upload. */
export function isMultipart(size: number): boolean {
  return size > SINGLE_PUT_MAX;
}

/** The part size for a file: 8 MiB, or larger (a whole number of MiB) so that it fits in 10,000 parts. */
export function partSize(size: number): number {
  const needed = Math.ceil(size / MAX_PARTS);
  return Math.max(MIN_PART_SIZE, Math.ceil(needed / MiB) * MiB);
}

/** The byte ranges of the parts of a file, in order. An empty file is one empty part. */
export function planParts(size: number): PartRange[] {
  const step = partSize(size);
  const parts: PartRange[] = [];
  for (let start = 0, n = 1; start < size || n === 1; start += step, n++) {
    parts.push({ partNumber: n, start, end: Math.min(size, start + step) });
    if (size === 0) break;
  }
  return parts;
}
