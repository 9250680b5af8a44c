// Cross-bucket search over current object versions, paged in (bucket, key) order. Picks a plan per query: the rows
// of a selective index (trigram key index, size, last-modified), sorted; or a walk of the (bucket, key) index with
// every filter applied as it goes, bounded per page. Also indexes the rows writers queued for the trigram index.
// docs/admin-search.md ("How a search runs") has the costs.

import type BetterSqlite3 from 'better-sqlite3';
import type { Db } from './database.js';
import {
  compareUtf8,
  CURRENT,
  filterSql,
  ftsAllOf,
  probeTrigrams,
  type FilterSql,
  type SearchFilter,
} from './object-search-sql.js';

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

/**
 * Plan limits, in units of work: reading one index entry costs 1, reading an object's table row costs
 * ROW_LOOKUP_COST (a random page access).
 */
export interface SearchTuning {
  /** A selective index is read whole and sorted when its matches cost at most this. */
  candidateBudget: number;
  /** What a walk may spend on one page; a page cut short by it still has a resumeAfter. */
  scanBudget: number;
}

/** Sized from the 1M-object measurements in docs/performance.md ("Object search"): each plan stays near 30 ms. */
export const DEFAULT_SEARCH_TUNING: SearchTuning = { candidateBudget: 120_000, scanBudget: 120_000 };

/** Reading a table row costs about this many index entries read in order (measured at 1M objects). */
export const ROW_LOOKUP_COST = 12;
/** Hopping to the next bucket of a walk: two index seeks. */
const BUCKET_HOP_COST = 64;
/** A trigram this rare is cheap enough as the candidate set: probing looks for one first. */
const RARE_ENOUGH = 256;
/** Candidates are the rows holding the rarest few trigrams (more would cost more doclist merging than it saves). */
const MAX_MATCH_TRIGRAMS = 3;
const FIRST_CHUNK = 256;
const MAX_CHUNK = 16_384;
const columns = (t: string) => `${t}.bucket, ${t}.key, ${t}.size, ${t}.etag, ${t}.last_modified`;
const INDEX = { size: 'objects_current_by_size', modified: 'objects_current_by_modified' } as const;

/** A selective index: the trigram index (rows holding every trigram in `match`), or a size or last-modified range. */
type Source = { kind: 'fts'; match: string } | { kind: 'size' | 'modified' };

/** A walk's lower key bound within a bucket: after a position, or from the prefix. */
interface Lower {
  op: '>' | '>=';
  key: string;
}

/** Where one chunk of a walk starts: a bucket and a lower key bound in it. */
interface Chunk {
  bucket: string;
  lower: Lower;
}

/** At most `limit` matches after `after` (or from the start). */
interface Page {
  after: SearchPosition | undefined;
  limit: number;
}

interface RawHit {
  bucket: string;
  key: string;
  size: number;
  etag: string;
  last_modified: number;
}

const toHit = (r: RawHit): SearchHit => ({
  bucket: r.bucket,
  key: r.key,
  size: r.size,
  etag: r.etag,
  lastModified: r.last_modified,
});

export class ObjectSearchRepo {
  private readonly statements = new Map<string, BetterSqlite3.Statement>();
  private readonly tuning: SearchTuning;

  constructor(
    private readonly db: Db,
    tuning: Partial<SearchTuning> = {},
  ) {
    const t = { ...DEFAULT_SEARCH_TUNING, ...tuning };
    // A walk must examine at least one entry per page, or paging could stall.
    this.tuning = { candidateBudget: Math.max(0, t.candidateBudget), scanBudget: Math.max(1, t.scanBudget) };
  }

  /**
   * At most `limit` matches after `after` (or from the start) in (bucket, key) order. Read-only; never throws on input.
   */
  search(filter: SearchFilter, after: SearchPosition | undefined, limit: number): SearchPage {
    const sql = filterSql(filter);
    const source = this.selectiveSource(filter, sql);
    return source === undefined
      ? this.walk(filter, sql, { after: after, limit: limit })
      : this.fromCandidates(source, sql, { after: after, limit: limit });
  }

  /**
   * Indexes up to `max` queued rows, lowest ids first: each leaves the trigram index (a no-op when absent) and comes
   * back with its key if it is still a current version, so a reused row id or a changed key is indexed afresh. Call
   * inside a transaction: the queue rows go in the same commit. Returns how many rows were taken from the queue.
   */
  indexQueued(max: number): number {
    const ids = this.stmt('SELECT object_id FROM object_search_queue ORDER BY object_id LIMIT ?')
      .pluck()
      .all(max) as number[];
    const last = ids[ids.length - 1];
    if (last === undefined) return 0;
    const unindex = this.stmt('DELETE FROM object_search WHERE rowid = ?');
    for (const id of ids) unindex.run(id);
    // CROSS JOIN keeps the queue outside: the planner would otherwise walk every current version to probe the queue.
    this.stmt(
      `INSERT INTO object_search (rowid, key) SELECT o.id, o.key FROM object_search_queue AS q CROSS JOIN objects AS o
      ON o.id = q.object_id WHERE q.object_id <= ? AND ${CURRENT}`,
    ).run(last);
    this.stmt('DELETE FROM object_search_queue WHERE object_id <= ?').run(last);
    return ids.length;
  }

  /**
   * The cheapest selective index, if its matches fit the candidate budget. Each is counted only up to what the budget
   * allows. For the trigram index each probed trigram of `q` is counted alone and the rare ones make the candidate
   * set (a phrase of common trigrams like `/2030/06/1` would make FTS5 merge their huge position lists), together
   * with the rows still queued for indexing, which the index may not have yet; every candidate costs a row read. The
   * size and last-modified indexes carry (bucket, key), so their candidates cost a row read only when another
   * filter needs the row (the other range).
   */
  private selectiveSource(filter: SearchFilter, sql: FilterSql): Source | undefined {
    const countUpTo = (query: string, params: Record<string, string | number>, cap: number): number =>
      this.stmt(`SELECT count(*) FROM (${query} LIMIT @cap)`)
        .pluck()
        .get({ ...params, cap: cap + 1 }) as number;
    const options: Array<{ source: Source; cost: number }> = [];
    const ftsCap = Math.floor(this.tuning.candidateBudget / ROW_LOOKUP_COST);
    // Two passes: a cheap count of every trigram up to RARE_ENOUGH finds a rare one wherever it sits in `q`; only
    // when none is that rare are they counted up to the cap.
    const probe = (trigram: string, cap: number) => ({
      trigram,
      n: countUpTo('SELECT 1 FROM object_search WHERE object_search MATCH @probe', { probe: ftsAllOf([trigram]) }, cap),
    });
    const trigrams = probeTrigrams(filter.q);
    let rare = trigrams
      .map((t) => probe(t, Math.min(RARE_ENOUGH, ftsCap)))
      .filter((p) => p.n <= Math.min(RARE_ENOUGH, ftsCap));
    if (rare.length === 0 && ftsCap > RARE_ENOUGH)
      rare = trigrams.map((t) => probe(t, ftsCap)).filter((p) => p.n <= ftsCap);
    rare.sort((a, b) => a.n - b.n);
    const rarest = rare[0];
    if (rarest) {
      const n = rarest.n + countUpTo('SELECT 1 FROM object_search_queue', {}, ftsCap);
      const match = ftsAllOf(rare.slice(0, MAX_MATCH_TRIGRAMS).map((r) => r.trigram));
      if (n <= ftsCap) options.push({ source: { kind: 'fts', match }, cost: n * ROW_LOOKUP_COST });
    }
    for (const kind of ['size', 'modified'] as const) {
      if (sql[kind].length === 0) continue;
      const other = kind === 'size' ? sql.modified : sql.size;
      const unit = other.length > 0 ? ROW_LOOKUP_COST : 1;
      const cap = Math.floor(this.tuning.candidateBudget / unit);
      const n = countUpTo(
        `SELECT 1 FROM objects AS o INDEXED BY ${INDEX[kind]} WHERE ${[CURRENT, ...sql[kind]].join(' AND ')}`,
        sql.params,
        cap,
      );
      if (n <= cap) options.push({ source: { kind }, cost: n * unit });
    }
    options.sort((a, b) => a.cost - b.cost);
    return options[0]?.source;
  }

  /**
   * Reads every match of one selective index, applies the other filters, sorts, and takes the page: the sort runs on
   * row ids, bucket and key only, and just the page's rows are read whole.
   */
  private fromCandidates(source: Source, sql: FilterSql, { after, limit }: Page): SearchPage {
    const from =
      source.kind === 'fts'
        ? `(SELECT rowid AS id FROM object_search WHERE object_search MATCH @match UNION SELECT object_id FROM object_search_queue) AS s
         CROSS JOIN objects AS o ON o.id = s.id`
        : `objects AS o INDEXED BY ${INDEX[source.kind]}`;
    const where = [...sql.rest, ...sql.keyRange];
    if (after) where.push('(o.bucket, o.key) > (@afterBucket, @afterKey)');
    const page = `SELECT o.id FROM ${from} WHERE ${where.join(' AND ')} ORDER BY o.bucket, o.key LIMIT @n`;
    const rows = this.stmt(
      `SELECT ${columns('r')} FROM objects AS r WHERE r.id IN (${page}) ORDER BY r.bucket, r.key`,
    ).all({
      ...sql.params,
      match: source.kind === 'fts' ? source.match : '',
      afterBucket: after?.bucket ?? '',
      afterKey: after?.key ?? '',
      n: limit + 1,
    }) as RawHit[];
    return pageOf(rows.map(toHit), limit, undefined);
  }

  /**
   * Walks the (bucket, key) index of current versions from `after`, bucket by bucket (a prefix is a range seek in
   * each), in chunks: the end of each chunk is found index-only, then its matches are read. Stops when the page is
   * full or the budget is spent; then resumes after the last entry examined. Keys are never empty, so "after
   * (bucket, '')" is the whole of a bucket.
   */
  private walk(filter: SearchFilter, sql: FilterSql, { after, limit }: Page): SearchPage {
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
          const lower: Lower =
            filter.prefix && compareUtf8(filter.prefix, key) > 0 ? { op: '>=', key: filter.prefix } : { op: '>', key };
          const size = Math.max(1, Math.min(chunk, Math.floor(budget / entryCost)));
          const end = this.chunkEnd(sql, { bucket: bucket, lower: lower }, size);
          hits.push(
            ...this.chunkMatches(sql, { bucket: bucket, lower: lower }, { end: end, n: limit + 1 - hits.length }).map(
              toHit,
            ),
          );
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
    return this.stmt(
      `SELECT o.bucket FROM objects AS o INDEXED BY objects_current WHERE ${where.join(' AND ')} ORDER BY o.bucket LIMIT 1`,
    )
      .pluck()
      .get({ ...sql.params, afterBucket: after ?? '' }) as string | undefined;
  }

  /** The key of the `size`-th current version of the bucket from `lower` within the prefix range, or undefined. */
  private chunkEnd(sql: FilterSql, { bucket, lower }: Chunk, size: number): string | undefined {
    const where = ['o.bucket = @walkBucket', CURRENT, `o.key ${lower.op} @walkKey`];
    if (sql.params['prefixEnd'] !== undefined) where.push('o.key < @prefixEnd');
    return this.stmt(
      `SELECT o.key FROM objects AS o INDEXED BY objects_current WHERE ${where.join(' AND ')} ORDER BY o.key LIMIT 1 OFFSET @skip`,
    )
      .pluck()
      .get({ ...sql.params, walkBucket: bucket, walkKey: lower.key, skip: size - 1 }) as string | undefined;
  }

  /**
   * The matches of the bucket from `lower` up to `end` inclusive (to the prefix range's end when undefined), at most
   * `n`.
   */
  private chunkMatches(
    sql: FilterSql,
    { bucket, lower }: Chunk,
    { end, n }: { end: string | undefined; n: number },
  ): RawHit[] {
    const where = ['o.bucket = @walkBucket', `o.key ${lower.op} @walkKey`, ...sql.rest];
    if (end !== undefined) where.push('o.key <= @walkEnd');
    else if (sql.params['prefixEnd'] !== undefined) where.push('o.key < @prefixEnd');
    return this.stmt(
      `SELECT ${columns('o')} FROM objects AS o INDEXED BY objects_current WHERE ${where.join(' AND ')} ORDER BY o.key LIMIT @n`,
    ).all({ ...sql.params, walkBucket: bucket, walkKey: lower.key, walkEnd: end ?? '', n }) as RawHit[];
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
