// Cross-bucket search over current object versions, paged in (bucket, key) order. Picks a plan per query: the rows
// of a selective index (trigram key index, size, last-modified), sorted; or a walk of the (bucket, key) index with
// every filter applied as it goes, bounded per page. docs/admin-search.md ("How a search runs") has the costs.

import type BetterSqlite3 from 'better-sqlite3';
import type { Db } from './database.js';
import { compareUtf8, CURRENT, filterSql, ftsAllOf, probeTrigrams, type FilterSql, type SearchFilter } from './object-search-sql.js';

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
  /**
   * What a walk may spend on one page, in index entries examined (an entry whose filters read its table row counts
   * ROW_LOOKUP_COST). A page cut short by it still has a resumeAfter.
   */
  scanBudget: number;
}

/** Sized from the 1M-object measurements in docs/performance.md ("Object search"): each plan stays near 30 ms. */
export const DEFAULT_SEARCH_TUNING: SearchTuning = { candidateCap: 10_000, scanBudget: 120_000 };

/** A table row read in key order costs about this many index entries read alone (random page access). */
const ROW_LOOKUP_COST = 12;
/** Hopping to the next bucket of a walk: two index seeks. */
const BUCKET_HOP_COST = 64;
/** Probing stops at a trigram this rare: its candidates are already cheap. */
const RARE_ENOUGH = 256;
/** Candidates are the rows holding the rarest few trigrams (more would cost more doclist merging than it saves). */
const MAX_MATCH_TRIGRAMS = 3;
const FIRST_CHUNK = 256;
const MAX_CHUNK = 16_384;
const COLUMNS = 'o.bucket, o.key, o.size, o.etag, o.last_modified';
const INDEX = { size: 'objects_current_by_size', modified: 'objects_current_by_modified' } as const;

/** A selective index: the trigram index (rows holding every trigram in `match`), or a size or last-modified range. */
type Source = { kind: 'fts'; match: string } | { kind: 'size' | 'modified' };

/** A walk's lower key bound within a bucket: after a position, or from the prefix. */
interface Lower {
  op: '>' | '>=';
  key: string;
}

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

  /**
   * The index with the fewest matches, if one has at most candidateCap. Each is counted only up to the cap; for the
   * trigram index, each probed trigram of `q` is counted alone and the rare ones make the candidate set: a phrase of
   * common trigrams (`/2030/06/1`) would make FTS5 merge their huge position lists.
   */
  private selectiveSource(filter: SearchFilter, sql: FilterSql): Source | undefined {
    const cap = this.tuning.candidateCap;
    const countUpTo = (query: string, params: Record<string, string | number>): number =>
      this.stmt(`SELECT count(*) FROM (${query} LIMIT @cap)`).pluck().get({ ...params, cap: cap + 1 }) as number;
    const options: Array<{ source: Source; n: number }> = [];
    const rare: Array<{ trigram: string; n: number }> = [];
    for (const trigram of probeTrigrams(filter.q)) {
      const n = countUpTo('SELECT 1 FROM object_search WHERE object_search MATCH @probe', { probe: ftsAllOf([trigram]) });
      if (n <= cap) rare.push({ trigram, n });
      if (n <= RARE_ENOUGH) break;
    }
    rare.sort((a, b) => a.n - b.n);
    const rarest = rare[0];
    if (rarest) options.push({ source: { kind: 'fts', match: ftsAllOf(rare.slice(0, MAX_MATCH_TRIGRAMS).map((r) => r.trigram)) }, n: rarest.n });
    for (const kind of ['size', 'modified'] as const) {
      if (sql[kind].length === 0) continue;
      const n = countUpTo(`SELECT 1 FROM objects AS o INDEXED BY ${INDEX[kind]} WHERE ${[CURRENT, ...sql[kind]].join(' AND ')}`, sql.params);
      if (n <= cap) options.push({ source: { kind }, n });
    }
    options.sort((a, b) => a.n - b.n);
    return options[0]?.source;
  }

  /** Reads every match of one selective index, applies the other filters, sorts, and takes the page. */
  private fromCandidates(source: Source, sql: FilterSql, after: SearchPosition | undefined, limit: number): SearchPage {
    const from = source.kind === 'fts' ? 'object_search AS s CROSS JOIN objects AS o ON o.id = s.rowid' : `objects AS o INDEXED BY ${INDEX[source.kind]}`;
    const where = [...sql.rest, ...sql.keyRange];
    if (source.kind === 'fts') where.push('s.object_search MATCH @match');
    if (after) where.push('(o.bucket, o.key) > (@afterBucket, @afterKey)');
    const rows = this.stmt(`SELECT ${COLUMNS} FROM ${from} WHERE ${where.join(' AND ')} ORDER BY o.bucket, o.key LIMIT @n`).all({
      ...sql.params, match: source.kind === 'fts' ? source.match : '', afterBucket: after?.bucket ?? '', afterKey: after?.key ?? '', n: limit + 1,
    }) as RawHit[];
    return pageOf(rows.map(toHit), limit, undefined);
  }

  /**
   * Walks the (bucket, key) index of current versions from `after`, bucket by bucket (a prefix is a range seek in
   * each), in chunks: the end of each chunk is found index-only, then its matches are read. Stops when the page is
   * full or the budget is spent; then resumes after the last entry examined. Keys are never empty, so "after
   * (bucket, '')" is the whole of a bucket.
   */
  private walk(filter: SearchFilter, sql: FilterSql, after: SearchPosition | undefined, limit: number): SearchPage {
    const hits: SearchHit[] = [];
    const entryCost = sql.readsRow ? ROW_LOOKUP_COST : 1;
    let budget = this.tuning.scanBudget;
    let chunk = Math.max(FIRST_CHUNK, limit + 1);
    let bucket = after?.bucket ?? this.nextBucket(undefined, sql);
    let key = after?.key ?? '';
    while (bucket !== undefined) {
      if (filter.bucket === undefined || filter.bucket === bucket) {
        for (;;) {
          // One lower bound only: SQLite seeks on one of several, not on the greatest.
          const lower: Lower = filter.prefix && compareUtf8(filter.prefix, key) > 0 ? { op: '>=', key: filter.prefix } : { op: '>', key };
          const size = Math.max(1, Math.min(chunk, Math.floor(budget / entryCost)));
          const end = this.chunkEnd(sql, bucket, lower, size);
          hits.push(...this.chunkMatches(sql, bucket, lower, end, limit + 1 - hits.length).map(toHit));
          if (hits.length > limit) return pageOf(hits, limit, undefined);
          budget -= size * entryCost;
          chunk = Math.min(chunk * 4, MAX_CHUNK);
          if (end === undefined) break;
          key = end;
          if (budget <= 0) return pageOf(hits, limit, { bucket, key });
        }
      }
      budget -= BUCKET_HOP_COST;
      bucket = this.nextBucket(bucket, sql);
      key = '';
      if (bucket !== undefined && budget <= 0) return pageOf(hits, limit, { bucket, key });
    }
    return pageOf(hits, limit, undefined);
  }

  /** The next bucket (after `after`) holding a current version, within the bucket filter. */
  private nextBucket(after: string | undefined, sql: FilterSql): string | undefined {
    const where = [CURRENT];
    if (after !== undefined) where.push('o.bucket > @afterBucket');
    if (sql.params['bucket'] !== undefined) where.push('o.bucket = @bucket');
    return this.stmt(`SELECT o.bucket FROM objects AS o INDEXED BY objects_current WHERE ${where.join(' AND ')} ORDER BY o.bucket LIMIT 1`)
      .pluck().get({ ...sql.params, afterBucket: after ?? '' }) as string | undefined;
  }

  /** The key of the `size`-th current version of the bucket from `lower` within the prefix range, or undefined. */
  private chunkEnd(sql: FilterSql, bucket: string, lower: Lower, size: number): string | undefined {
    const where = ['o.bucket = @walkBucket', CURRENT, `o.key ${lower.op} @walkKey`];
    if (sql.params['prefixEnd'] !== undefined) where.push('o.key < @prefixEnd');
    return this.stmt(`SELECT o.key FROM objects AS o INDEXED BY objects_current WHERE ${where.join(' AND ')} ORDER BY o.key LIMIT 1 OFFSET @skip`)
      .pluck().get({ ...sql.params, walkBucket: bucket, walkKey: lower.key, skip: size - 1 }) as string | undefined;
  }

  /** The matches of the bucket from `lower` up to `end` inclusive (to the prefix range's end when undefined), at most `n`. */
  private chunkMatches(sql: FilterSql, bucket: string, lower: Lower, end: string | undefined, n: number): RawHit[] {
    const where = ['o.bucket = @walkBucket', `o.key ${lower.op} @walkKey`, ...sql.rest];
    if (end !== undefined) where.push('o.key <= @walkEnd');
    else if (sql.params['prefixEnd'] !== undefined) where.push('o.key < @prefixEnd');
    return this.stmt(`SELECT ${COLUMNS} FROM objects AS o INDEXED BY objects_current WHERE ${where.join(' AND ')} ORDER BY o.key LIMIT @n`)
      .all({ ...sql.params, walkBucket: bucket, walkKey: lower.key, walkEnd: end ?? '', n }) as RawHit[];
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
