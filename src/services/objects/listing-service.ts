// ListObjects / ListObjectsV2 (current objects) and ListObjectVersions (every version and delete marker) under a
// prefix, rolled up into common prefixes at a delimiter. Every step is an index seek: a common prefix is skipped
// with one seek past it, never by reading its keys.

import { MAX_CHAR, rollUp } from '../../core/common-prefix.js';
import { AppError, noSuchBucket } from '../../core/errors.js';
import type { ListedObject, ListedVersion } from '../../storage/db/objects-repo.js';
import type { MetadataStore } from '../../storage/db/metadata-store.js';
import { checkVersionId } from './object-versions.js';

export type { ListedObject, ListedVersion };

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

export interface ListVersionsInput {
  bucket: string;
  prefix: string;
  delimiter: string;
  /** key-marker: list keys after this one ('' for none)... */
  keyMarker: string;
  /** ...or, with version-id-marker, the versions of keyMarker older than this one, then the keys after it. */
  versionIdMarker: string;
  maxKeys: number;
}

export interface VersionsPage {
  /** Versions and delete markers in listing order: by key, newest first within a key. */
  versions: ListedVersion[];
  commonPrefixes: string[];
  isTruncated: boolean;
  /**
   * Where the next page starts (meaningful when truncated): the last key or common prefix returned, and the last
   * version id (undefined when the page ended on a common prefix).
   */
  nextKeyMarker: string | undefined;
  nextVersionIdMarker: string | undefined;
}

/** Where a version listing continues: keys from `key` on, or (with `afterId`) the rest of that key first. */
interface VersionCursor {
  key: string;
  inclusive: boolean;
  afterId?: number;
}

const BATCH = 1000;
/**
 * Rows fetched right after seeking past a common prefix. Such a seek usually consumes one row before the next
 * seek, so fetching a full batch there made a delimiter page cost prefixes x max-keys rows (1.9 s for a page of
 * 1,000 prefixes over 1M keys). The batch doubles, up to BATCH, while rows are consumed without a seek.
 */
const FIRST_BATCH_AFTER_SEEK = 8;

export class ListingService {
  constructor(private readonly meta: MetadataStore) {}

  /** One page of a listing. Throws NoSuchBucket. */
  list(input: ListInput): ListPage {
    if (!this.meta.buckets.find(input.bucket)) {
      throw noSuchBucket(input.bucket);
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
      const rolled = delimiter ? rollUp(input.after, prefix, delimiter) : undefined;
      if (rolled !== undefined && rolled === input.after) {
        bound = rolled + MAX_CHAR;
        inclusive = true;
        skipping = rolled;
      }
    }

    let last: string | undefined;
    let batch = delimiter ? FIRST_BATCH_AFTER_SEEK : maxKeys + 1;
    for (;;) {
      const rows = this.meta.objects.listCurrent(input.bucket, {
        bound: bound,
        inclusive: inclusive,
        limit: delimiter ? Math.min(batch, maxKeys + 1) : maxKeys + 1,
      });
      if (rows.length === 0) return { objects, commonPrefixes, isTruncated: false, last };
      let skippedTo: string | undefined;
      for (const row of rows) {
        if (!row.key.startsWith(prefix)) return { objects, commonPrefixes, isTruncated: false, last };
        const rolled = delimiter ? rollUp(row.key, prefix, delimiter) : undefined;
        if (rolled !== undefined && rolled === skipping) continue; // keys starting with the prefix + U+10FFFF
        if (objects.length + commonPrefixes.length === maxKeys)
          return { objects, commonPrefixes, isTruncated: true, last };
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
        batch = FIRST_BATCH_AFTER_SEEK;
      } else {
        batch = Math.min(batch * 2, BATCH);
        if (!delimiter && rows.length <= maxKeys) return { objects, commonPrefixes, isTruncated: false, last };
        bound = (rows[rows.length - 1] as ListedObject).key;
        inclusive = false;
      }
    }
  }

  /**
   * One page of ListObjectVersions. Throws NoSuchBucket, InvalidArgument (a version-id marker without a key marker,
   * or a malformed one). A version-id marker whose version has since been deleted restarts that key from its newest
   * version: a page may repeat versions, but never skips one.
   */
  listVersions(input: ListVersionsInput): VersionsPage {
    if (!this.meta.buckets.find(input.bucket)) {
      throw noSuchBucket(input.bucket);
    }
    const { bucket, prefix, delimiter, maxKeys, keyMarker, versionIdMarker } = input;
    if (versionIdMarker !== '') {
      if (keyMarker === '') {
        throw new AppError('InvalidArgument', {
          message: 'A version-id marker cannot be specified without a key marker.',
          details: { ArgumentName: 'version-id-marker', ArgumentValue: versionIdMarker },
        });
      }
      checkVersionId(versionIdMarker);
    }
    const page: VersionsPage = {
      versions: [],
      commonPrefixes: [],
      isTruncated: false,
      nextKeyMarker: undefined,
      nextVersionIdMarker: undefined,
    };
    if (maxKeys === 0) return page;

    let cursor: VersionCursor = { key: prefix, inclusive: true };
    let skipping: string | undefined;
    if (keyMarker !== '' && keyMarker >= prefix) {
      cursor = { key: keyMarker, inclusive: false };
      const marker =
        versionIdMarker === '' ? undefined : this.meta.objects.findVersion(bucket, keyMarker, versionIdMarker);
      if (marker) cursor = { key: keyMarker, inclusive: false, afterId: marker.id };
      else if (versionIdMarker !== '') cursor = { key: keyMarker, inclusive: true };
      const rolled = delimiter && versionIdMarker === '' ? rollUp(keyMarker, prefix, delimiter) : undefined;
      if (rolled !== undefined && rolled === keyMarker) {
        // The previous page ended on this common prefix: resume past everything under it.
        cursor = { key: rolled + MAX_CHAR, inclusive: true };
        skipping = rolled;
      }
    }

    let count = 0;
    let batch = delimiter ? FIRST_BATCH_AFTER_SEEK : BATCH;
    for (;;) {
      const rows = this.versionBatch(bucket, cursor, Math.min(batch, maxKeys + 1));
      if (rows.length === 0) return page;
      let seek: VersionCursor | undefined;
      for (const row of rows) {
        if (!row.key.startsWith(prefix)) return page;
        const rolled = delimiter ? rollUp(row.key, prefix, delimiter) : undefined;
        if (rolled !== undefined && rolled === skipping) continue;
        if (count === maxKeys) {
          page.isTruncated = true;
          return page;
        }
        count += 1;
        if (rolled !== undefined) {
          page.commonPrefixes.push(rolled);
          page.nextKeyMarker = rolled;
          page.nextVersionIdMarker = undefined;
          skipping = rolled;
          seek = { key: rolled + MAX_CHAR, inclusive: true };
          break;
        }
        page.versions.push(row);
        page.nextKeyMarker = row.key;
        page.nextVersionIdMarker = row.versionId;
      }
      const last = rows[rows.length - 1] as ListedVersion;
      cursor = seek ?? { key: last.key, inclusive: false, afterId: last.id };
      batch = seek ? FIRST_BATCH_AFTER_SEEK : Math.min(batch * 2, BATCH);
    }
  }

  /** The next rows from a cursor: the rest of the cursor's key (when it has a version position), else later keys. */
  private versionBatch(bucket: string, cursor: VersionCursor, limit: number): ListedVersion[] {
    if (cursor.afterId !== undefined) {
      const rest = this.meta.objects.listOlderVersions(bucket, cursor.key, { beforeId: cursor.afterId, limit: limit });
      if (rest.length > 0) return rest;
    }
    return this.meta.objects.listVersions(bucket, { bound: cursor.key, inclusive: cursor.inclusive, limit: limit });
  }
}
