// Cross-bucket object search for the admin API: validates the query, turns the opaque cursor into a position, and
// pages the current versions that match in (bucket, key) order (docs/admin-search.md).

import { AppError } from '../../core/errors.js';
import { parseIso8601 } from '../../core/iso8601.js';
import type { MetadataStore } from '../../storage/db/metadata-store.js';
import { ObjectSearchRepo, type SearchFilter, type SearchTuning } from '../../storage/db/object-search-repo.js';
import { decodeCursor, encodeCursor, filterFingerprint } from './search-cursor.js';

export type { SearchTuning };

/** A search as the admin API receives it. An empty string is the same as an absent parameter. */
export interface SearchQuery {
  /** Key substring, case-sensitive unless ignoreCase (ASCII letters only). */
  q?: string | undefined;
  ignoreCase?: boolean | undefined;
  prefix?: string | undefined;
  bucket?: string | undefined;
  /** Bytes, inclusive. */
  minSize?: number | undefined;
  /** Bytes, inclusive. */
  maxSize?: number | undefined;
  /** ISO 8601; last-modified at or after it. */
  from?: string | undefined;
  /** ISO 8601; last-modified before it. */
  to?: string | undefined;
  /** Only objects with this tag key (exact case); with tagValue, that value too (exact; empty: any value). */
  tagKey?: string | undefined;
  tagValue?: string | undefined;
  cursor?: string | undefined;
  /** 1..1000, default 100. */
  limit?: number | undefined;
}

export interface SearchItem {
  bucket: string;
  key: string;
  size: number;
  /** Hex MD5, or `<hex>-N` for multipart objects; unquoted. */
  etag: string;
  /** ISO 8601, UTC, milliseconds. */
  lastModified: string;
}

export interface SearchResult {
  items: SearchItem[];
  /** Pass back as `cursor` for the next page; null when there is none. A page may be short and still have one. */
  nextCursor: string | null;
}

export const DEFAULT_SEARCH_LIMIT = 100;
/** Rows indexed per transaction by indexPending(): about 5 ms of the event loop. */
export const INDEX_BATCH = 500;
export const MAX_SEARCH_LIMIT = 1000;
/** S3's key limit: a longer substring or prefix cannot match. */
const MAX_TEXT_BYTES = 1024;
/** S3 bucket names are at most 63 characters; anything up to this length is accepted (and matches nothing). */
const MAX_BUCKET_LENGTH = 255;

export interface ObjectSearchServiceOptions {
  meta: MetadataStore;
  /** Plan thresholds (tests shrink them to exercise every plan on small data). */
  tuning?: Partial<SearchTuning>;
}

export class ObjectSearchService {
  private readonly meta: MetadataStore;
  private readonly repo: ObjectSearchRepo;

  constructor(opts: ObjectSearchServiceOptions) {
    this.meta = opts.meta;
    this.repo = opts.tuning ? new ObjectSearchRepo(opts.meta.db, opts.tuning) : opts.meta.objectSearch;
  }

  /**
   * Indexes up to `max` of the rows writers queued for the trigram index, in one transaction, and returns how many
   * it took (fewer than `max`: the queue is empty). Searches are exact whether or not this has run; it keeps them
   * fast. The search-index loop calls it; nothing waits on its durability (a lost commit leaves the rows queued).
   */
  indexPending(max = INDEX_BATCH): number {
    return this.meta.transaction(() => this.repo.indexQueued(max));
  }

  /**
   * One page of current versions (not delete markers, not older versions) matching every given filter, in
   * (bucket, key) order (UTF-8 byte order of keys), after the cursor's position. Following nextCursor until it is
   * null visits each match once, even while objects are written: keys after the position appear when added, keys
   * before it never come back. Throws ValidationError naming the field for a bad limit, size, date, text or cursor
   * (a cursor made for other filters included).
   */
  search(query: SearchQuery): SearchResult {
    const limit = checkLimit(query.limit);
    const filter = normalise(query);
    const fingerprint = filterFingerprint([
      filter.q ?? null,
      filter.ignoreCase ?? false,
      filter.prefix ?? null,
      filter.bucket ?? null,
      filter.minSize ?? null,
      filter.maxSize ?? null,
      filter.from ?? null,
      filter.to ?? null,
      // Appended only when used, so cursors of searches without a tag keep their fingerprint.
      ...(filter.tagKey !== undefined ? [filter.tagKey, filter.tagValue ?? null] : []),
    ]);
    const after = query.cursor ? decodeCursor(query.cursor, fingerprint) : undefined;
    const page = this.repo.search(filter, after, limit);
    return {
      items: page.hits.map((h) => ({
        bucket: h.bucket,
        key: h.key,
        size: h.size,
        etag: h.etag,
        lastModified: new Date(h.lastModified).toISOString(),
      })),
      nextCursor: page.resumeAfter ? encodeCursor(page.resumeAfter, fingerprint) : null,
    };
  }
}

function invalid(field: string, why: string): AppError {
  return new AppError('ValidationError', { message: `${field}: ${why}`, details: { field } });
}

function checkLimit(limit: number | undefined): number {
  if (limit === undefined) return DEFAULT_SEARCH_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_SEARCH_LIMIT) {
    throw invalid('limit', `must be an integer from 1 to ${MAX_SEARCH_LIMIT}`);
  }
  return limit;
}

function normalise(query: SearchQuery): SearchFilter {
  const filter: SearchFilter = {
    q: text('q', query.q),
    prefix: text('prefix', query.prefix),
    bucket: query.bucket || undefined,
    minSize: size('minSize', query.minSize),
    maxSize: size('maxSize', query.maxSize),
    from: instant('from', query.from),
    to: instant('to', query.to),
    tagKey: text('tagKey', query.tagKey),
    tagValue: text('tagValue', query.tagValue),
  };
  if (filter.tagValue !== undefined && filter.tagKey === undefined) throw invalid('tagValue', 'needs tagKey');
  if (filter.q !== undefined && query.ignoreCase) filter.ignoreCase = true;
  // U+0000 cannot be searched for: SQLite's LIKE and the FTS5 query parser stop at it.
  if (filter.q?.includes('\0')) throw invalid('q', 'must not contain U+0000');
  if (filter.bucket !== undefined && filter.bucket.length > MAX_BUCKET_LENGTH)
    throw invalid('bucket', `must be at most ${MAX_BUCKET_LENGTH} characters`);
  if (filter.minSize !== undefined && filter.maxSize !== undefined && filter.minSize > filter.maxSize) {
    throw invalid('maxSize', 'must not be less than minSize');
  }
  if (filter.from !== undefined && filter.to !== undefined && filter.from >= filter.to)
    throw invalid('to', 'must be after from');
  return filter;
}

/** A substring or prefix: undefined when empty; well-formed UTF-16 (no lone surrogates), at most 1024 UTF-8 bytes. */
function text(field: string, value: string | undefined): string | undefined {
  if (!value) return undefined;
  if (/\p{Surrogate}/u.test(value)) throw invalid(field, 'is not valid Unicode (lone surrogate)');
  if (Buffer.byteLength(value, 'utf8') > MAX_TEXT_BYTES)
    throw invalid(field, `must be at most ${MAX_TEXT_BYTES} bytes (UTF-8)`);
  return value;
}

function size(field: string, value: number | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isSafeInteger(value) || value < 0) throw invalid(field, 'must be a whole number of bytes, 0 or more');
  return value;
}

function instant(field: string, value: string | undefined): number | undefined {
  if (!value) return undefined;
  const date = parseIso8601(value);
  if (!date) throw invalid(field, 'must be an ISO 8601 date or date-time, e.g. 2030-01-02 or 2030-01-02T03:04:05Z');
  return date.getTime();
}
