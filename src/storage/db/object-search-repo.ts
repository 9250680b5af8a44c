// Cross-bucket search over current object versions, paged in (bucket, key) order. Picks a plan per query: the rows
// of a selective index (trigram key index, size, last-modified), sorted; or a walk of the (bucket, key) index with
// every filter applied as it goes, bounded per page. docs/admin-search.md ("How a search runs") has the costs.

import type BetterSqlite3 from 'better-sqlite3';
import type { Db } from './database.js';
import { CURRENT, filterSql, isIndexable, type FilterSql, type SearchFilter, type SearchParams } from './object-search-sql.js';

export type { SearchFilter } from './object-search-sql.js';

/** A position in (bucket, key) order; a page holds the matches strictly after it. */
export interface SearchPosition {
  bucket: string;
  key: string;
}

export interface SearchHit {
  bucket: string;
  key: string;
  size: number;
  etag: string;
  lastModified: number;
}

export interface SearchPage {
  hits: SearchHit[];
  /** Where the next page starts (after this position); undefined when there is nothing after the page. */
  resumeAfter: SearchPosition | undefined;
}

export interface SearchTuning {
  /** An index whose matches number at most this many is read whole and sorted (cost grows with this). */
  candidateCap: number;
  /** The most index entries a walk examines for one page; a page cut short by it still has a resumeAfter. */
  scanBudget: number;
}

export const DEFAULT_SEARCH_TUNING: SearchTuning = { candidateCap: 20_000, scanBudget: 200_000 };

/** What hopping to the next bucket of a walk is charged against the scan budget (two index seeks). */
const BUCKET_HOP_COST = 64;
const FIRST_CHUNK = 256;
const MAX_CHUNK = 16_384;
const COLUMNS = 'o.bucket, o.key, o.size, o.etag, o.last_modified';

type Source = 'fts' | 'size' | 'modified';
const INDEX = { size: 'objects_current_by_size', modified: 'objects_current_by_modified' } as const;

interface RawHit {
  bucket: string;
  key: string;
  size: number;
  etag: string;
  last_modified: number;
}

const toHit = (r: RawHit): SearchHit => ({ bucket: r.bucket, key: r.key, size: r.size, etag: r.etag, lastModified: r.last_modified });

export class ObjectSearchRepo {
  private readonly statements = new Map<string, BetterSqlite3.Statement>();
  private readonly tuning: SearchTuning;

  constructor(private readonly db: Db, tuning: Partial<SearchTuning> = {}) {
    const t = { ...DEFAULT_SEARCH_TUNING, ...tuning };
    // A walk must examine at least one entry per page, or paging could stall.
    this.tuning = { candidateCap: Math.max(0, t.candidateCap), scanBudget: Math.max(1, t.scanBudget) };
  }

  /** At most `limit` matches after `after` (or from the start) in (bucket, key) order. Read-only; never throws on input. */
  search(filter: SearchFilter, after: SearchPosition | undefined, limit: number): SearchPage {
    const sql = filterSql(filter);
    const source = this.selectiveSource(filter, sql);
    return source === undefined ? this.walk(filter, sql, after, limit) : this.fromCandidates(source, sql, after, limit);
  }

  /** The index with the fewest matches, if one has at most candidateCap (each is counted only up to the cap). */
  private selectiveSource(filter: SearchFilter, sql: FilterSql): Source | undefined {
    const cap = this.tuning.candidateCap;
    const counts: Array<[Source, string]> = [];
    if (isIndexable(filter.q)) counts.push(['fts', 'SELECT 1 FROM object_search WHERE object_search MATCH @match']);
    for (const [source, range] of [['size', sql.size], ['modified', sql.modified]] as const) {
      if (range.length > 0) counts.push([source, `SELECT 1 FROM objects AS o INDEXED BY ${INDEX[source]} WHERE ${[CURRENT, ...range].join(' AND ')}`]);
    }
    let best: { source: Source; n: number } | undefined;
    for (const [source, query] of counts) {
      const n = this.stmt(`SELECT count(*) FROM (${query} LIMIT @cap)`).pluck().get({ ...sql.params, cap: cap + 1 }) as number;
      if (n <= cap && (best === undefined || n < best.n)) best = { source, n };
    }
    return best?.source;
  }

  /** Reads every match of one selective index, applies the other filters, sorts, and takes the page. */
  private fromCandidates(source: Source, sql: FilterSql, after: SearchPosition | undefined, limit: number): SearchPage {
    const from = source === 'fts' ? 'object_search AS s CROSS JOIN objects AS o ON o.id = s.rowid' : `objects AS o INDEXED BY ${INDEX[source]}`;
    const where = [...sql.all];
    if (source === 'fts') where.push('s.object_search MATCH @match');
    if (after) where.push('(o.bucket, o.key) > (@afterBucket, @afterKey)');
    const rows = this.stmt(`SELECT ${COLUMNS} FROM ${from} WHERE ${where.join(' AND ')} ORDER BY o.bucket, o.key LIMIT @n`)
      .all({ ...sql.params, afterBucket: after?.bucket ?? '', afterKey: after?.key ?? '', n: limit + 1 }) as RawHit[];
    return pageOf(rows.map(toHit), limit, undefined);
  }

  /**
   * Walks the (bucket, key) index of current versions from `after`, bucket by bucket (a prefix is a range seek in
   * each), in chunks: the end of each chunk is found index-only, then its matches are read. Stops when the page is
   * full or scanBudget entries were examined; then resumes after the last entry examined. Keys are never empty, so
   * "after (bucket, '')" is the whole of a bucket.
   */
  private walk(filter: SearchFilter, sql: FilterSql, after: SearchPosition | undefined, limit: number): SearchPage {
    const hits: SearchHit[] = [];
    let budget = this.tuning.scanBudget;
    let chunk = Math.max(FIRST_CHUNK, limit + 1);
    let bucket = after?.bucket ?? this.nextBucket(undefined, sql.params);
    let key = after?.key ?? '';
    while (bucket !== undefined) {
      if (filter.bucket === undefined || filter.bucket === bucket) {
        for (;;) {
          const size = Math.min(chunk, budget);
          const end = this.chunkEnd(sql, bucket, key, size);
          hits.push(...this.chunkMatches(sql, bucket, key, end, limit + 1 - hits.length).map(toHit));
          if (hits.length > limit) return pageOf(hits, limit, undefined);
          budget -= size;
          chunk = Math.min(chunk * 4, MAX_CHUNK);
          if (end === undefined) break;
          key = end;
          if (budget <= 0) return pageOf(hits, limit, { bucket, key });
        }
      }
      budget -= BUCKET_HOP_COST;
      bucket = this.nextBucket(bucket, sql.params);
      key = '';
      if (bucket !== undefined && budget <= 0) return pageOf(hits, limit, { bucket, key });
    }
    return pageOf(hits, limit, undefined);
  }

  /** The next bucket (after `after`) holding a current version, within the bucket filter. */
  private nextBucket(after: string | undefined, params: SearchParams): string | undefined {
    const where = [CURRENT];
    if (after !== undefined) where.push('o.bucket > @afterBucket');
    if (params['bucket'] !== undefined) where.push('o.bucket = @bucket');
    return this.stmt(`SELECT o.bucket FROM objects AS o INDEXED BY objects_current WHERE ${where.join(' AND ')} ORDER BY o.bucket LIMIT 1`)
      .pluck().get({ ...params, afterBucket: after ?? '' }) as string | undefined;
  }

  /** The key of the `size`-th current version of the bucket after `key` within the prefix range, or undefined. */
  private chunkEnd(sql: FilterSql, bucket: string, key: string, size: number): string | undefined {
    const where = ['o.bucket = @walkBucket', CURRENT, 'o.key > @walkKey', ...sql.keyRange];
    return this.stmt(`SELECT o.key FROM objects AS o INDEXED BY objects_current WHERE ${where.join(' AND ')} ORDER BY o.key LIMIT 1 OFFSET @skip`)
      .pluck().get({ ...sql.params, walkBucket: bucket, walkKey: key, skip: size - 1 }) as string | undefined;
  }

  /** The matches in (key, end] of the bucket (to its end when `end` is undefined), at most `n`. */
  private chunkMatches(sql: FilterSql, bucket: string, key: string, end: string | undefined, n: number): RawHit[] {
    const where = ['o.bucket = @walkBucket', 'o.key > @walkKey', ...sql.all];
    if (end !== undefined) where.push('o.key <= @walkEnd');
    return this.stmt(`SELECT ${COLUMNS} FROM objects AS o INDEXED BY objects_current WHERE ${where.join(' AND ')} ORDER BY o.key LIMIT @n`)
      .all({ ...sql.params, walkBucket: bucket, walkKey: key, walkEnd: end ?? '', n }) as RawHit[];
  }

  /** Statements are cached by their text: a search has a few dozen shapes at most. */
  private stmt(sql: string): BetterSqlite3.Statement {
    let stmt = this.statements.get(sql);
    if (!stmt) {
      stmt = this.db.prepare(sql);
      this.statements.set(sql, stmt);
    }
    return stmt;
  }
}

/** The first `limit` hits; with more than `limit`, the page resumes after its last hit. */
function pageOf(hits: SearchHit[], limit: number, resumeAfter: SearchPosition | undefined): SearchPage {
  if (hits.length > limit) {
    const page = hits.slice(0, limit);
    const last = page[page.length - 1] as SearchHit;
    return { hits: page, resumeAfter: { bucket: last.bucket, key: last.key } };
  }
  return { hits, resumeAfter };
}
