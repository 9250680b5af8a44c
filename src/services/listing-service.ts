// ListObjects / ListObjectsV2: current objects under a prefix, rolled up into common prefixes at a delimiter.
// Every step is an index seek: a common prefix is skipped with one seek past it, never by reading its keys.

import { AppError } from '../core/errors.js';
import type { ListedObject } from '../storage/db/objects-repo.js';
import type { MetadataStore } from '../storage/db/metadata-store.js';

export type { ListedObject };

export interface ListInput {
  bucket: string;
  prefix: string;
  delimiter: string;
  /** List strictly after this key (marker, start-after, or a decoded continuation token). */
  after: string;
  maxKeys: number;
}

export interface ListPage {
  objects: ListedObject[];
  commonPrefixes: string[];
  isTruncated: boolean;
  /** The last key or common prefix returned: where the next page starts. */
  last: string | undefined;
}

/** The largest code point: a key P + U+10FFFF sorts after every key that starts with P and a smaller character. */
const MAX_CHAR = String.fromCodePoint(0x10ffff);
const BATCH = 1000;

export class ListingService {
  constructor(private readonly meta: MetadataStore) {}

  /** One page of a listing. Throws NoSuchBucket. */
  list(input: ListInput): ListPage {
    if (!this.meta.buckets.find(input.bucket)) {
      throw new AppError('NoSuchBucket', { resource: `/${input.bucket}`, details: { BucketName: input.bucket } });
    }
    const { prefix, delimiter, maxKeys } = input;
    const objects: ListedObject[] = [];
    const commonPrefixes: string[] = [];
    if (maxKeys === 0) return { objects, commonPrefixes, isTruncated: false, last: undefined };

    // Start at the prefix, or after the marker, whichever is later. A marker that is itself a common prefix
    // (the previous page ended on it) resumes past everything under it.
    let bound = prefix;
    let inclusive = true;
    // The common prefix being skipped: keys that roll up into it are never listed again.
    let skipping: string | undefined;
    if (input.after !== '' && input.after >= prefix) {
      bound = input.after;
      inclusive = false;
      const rolled = delimiter ? this.rollUp(input.after, prefix, delimiter) : undefined;
      if (rolled !== undefined && rolled === input.after) {
        bound = rolled + MAX_CHAR;
        inclusive = true;
        skipping = rolled;
      }
    }

    let last: string | undefined;
    for (;;) {
      const rows = this.meta.objects.listCurrent(input.bucket, bound, inclusive, delimiter ? Math.min(BATCH, maxKeys + 1) : maxKeys + 1);
      if (rows.length === 0) return { objects, commonPrefixes, isTruncated: false, last };
      let skippedTo: string | undefined;
      for (const row of rows) {
        if (!row.key.startsWith(prefix)) return { objects, commonPrefixes, isTruncated: false, last };
        const rolled = delimiter ? this.rollUp(row.key, prefix, delimiter) : undefined;
        if (rolled !== undefined && rolled === skipping) continue; // keys starting with the prefix + U+10FFFF
        if (objects.length + commonPrefixes.length === maxKeys) return { objects, commonPrefixes, isTruncated: true, last };
        if (rolled !== undefined) {
          commonPrefixes.push(rolled);
          last = rolled;
          skipping = rolled;
          skippedTo = rolled + MAX_CHAR;
          break;
        }
        objects.push(row);
        last = row.key;
      }
      if (skippedTo !== undefined) {
        bound = skippedTo;
        inclusive = true;
      } else {
        if (!delimiter && rows.length <= maxKeys) return { objects, commonPrefixes, isTruncated: false, last };
        bound = (rows[rows.length - 1] as ListedObject).key;
        inclusive = false;
      }
    }
  }

  /** The common prefix a key rolls up into (prefix + up to and including the first delimiter after it), if any. */
  private rollUp(key: string, prefix: string, delimiter: string): string | undefined {
    const at = key.indexOf(delimiter, prefix.length);
    return at < 0 ? undefined : key.slice(0, at + delimiter.length);
  }
}
