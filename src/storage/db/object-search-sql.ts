// The SQL of object search: the filter as WHERE terms over `objects AS o`, the trigrams probed in the FTS5 index, and
// the range bound of a prefix. Pure string building, no database access (object-search-repo.ts runs it).

/** What a search matches: current versions (the latest version, when it is not a delete marker). */
export interface SearchFilter {
  /** Key substring. Case-sensitive unless `ignoreCase`; any length (the index serves 3 characters or more). */
  q?: string | undefined;
  /** Compare `q` with ASCII letters folded (SQLite LIKE semantics); other characters stay exact. */
  ignoreCase?: boolean | undefined;
  /** Key prefix (exact case). */
  prefix?: string | undefined;
  bucket?: string | undefined;
  /** Bytes, inclusive. */
  minSize?: number | undefined;
  /** Bytes, inclusive. */
  maxSize?: number | undefined;
  /** Last-modified lower bound, epoch ms, inclusive. */
  from?: number | undefined;
  /** Last-modified upper bound, epoch ms, exclusive. */
  to?: number | undefined;
  /** Only objects with a tag of this key (exact case), and with `tagValue` that tag's value too. */
  tagKey?: string | undefined;
  tagValue?: string | undefined;
}

/** Named parameters every statement of one search may use (better-sqlite3 ignores the ones a statement lacks). */
export type SearchParams = Record<string, string | number>;

export const CURRENT = 'o.is_latest = 1 AND o.is_delete_marker = 0';
/** At most this many trigrams of `q` are counted in the index to find its rare ones. */
const MAX_PROBES = 8;

/** A filter as SQL: WHERE terms to AND together, and the named parameters they use. */
export interface FilterSql {
  /** The prefix as a key range (`o.key >= @prefix AND o.key < @prefixEnd`), seekable in the (bucket, key) index. */
  keyRange: string[];
  /** The size range, seekable in objects_current_by_size. */
  size: string[];
  /** The last-modified range, seekable in objects_current_by_modified. */
  modified: string[];
  /** Every term except the key range: current version, bucket, substring, size, last-modified. */
  rest: string[];
  /** True when a term reads a column outside the (bucket, key) index, so testing a row costs a table lookup. */
  readsRow: boolean;
  params: SearchParams;
}

/**
 * The WHERE terms and their parameters for every part of the filter. `o.key` comparisons are in SQLite's BINARY
 * collation (UTF-8 byte order, S3's listing order). instr() is exact and case-sensitive; LIKE folds ASCII only, with
 * its wildcards escaped so that `%` and `_` in `q` are literal.
 */
export function filterSql(f: SearchFilter): FilterSql {
  const sql: FilterSql = { keyRange: [], size: [], modified: [], rest: [CURRENT], readsRow: false, params: {} };
  // `param` is the one named parameter the term uses: { name: value }.
  const add = (list: string[], term: string, param: Record<string, string | number>) => {
    list.push(term);
    Object.assign(sql.params, param);
  };
  if (f.bucket !== undefined) add(sql.rest, 'o.bucket = @bucket', { bucket: f.bucket });
  if (f.prefix) {
    add(sql.keyRange, 'o.key >= @prefix', { prefix: f.prefix });
    const end = prefixUpperBound(f.prefix);
    if (end !== undefined) add(sql.keyRange, 'o.key < @prefixEnd', { prefixEnd: end });
  }
  if (f.q && f.ignoreCase)
    add(sql.rest, "o.key LIKE @like ESCAPE '\\'", { like: `%${f.q.replace(/[\\%_]/g, '\\$&')}%` });
  if (f.q && !f.ignoreCase) add(sql.rest, 'instr(o.key, @q) > 0', { q: f.q });
  if (f.minSize !== undefined) add(sql.size, 'o.size >= @minSize', { minSize: f.minSize });
  if (f.maxSize !== undefined) add(sql.size, 'o.size <= @maxSize', { maxSize: f.maxSize });
  if (f.from !== undefined) add(sql.modified, 'o.last_modified >= @from', { from: f.from });
  if (f.to !== undefined) add(sql.modified, 'o.last_modified < @to', { to: f.to });
  // Tags are a JSON array of {key, value} in the row (no index): a term that reads the row.
  const tagTerm = (value: boolean): string =>
    "EXISTS (SELECT 1 FROM json_each(o.tags) AS t WHERE json_extract(t.value, '$.key') = @tagKey" +
    (value ? " AND json_extract(t.value, '$.value') = @tagValue)" : ')');
  if (f.tagKey !== undefined) add(sql.rest, tagTerm(f.tagValue !== undefined), { tagKey: f.tagKey });
  if (f.tagKey !== undefined && f.tagValue !== undefined) Object.assign(sql.params, { tagValue: f.tagValue });
  sql.rest.push(...sql.size, ...sql.modified);
  sql.readsRow = sql.size.length + sql.modified.length > 0 || f.tagKey !== undefined;
  return sql;
}

/**
 * Trigrams of `q` to count in the index (at most MAX_PROBES, spread over `q`, distinct), none when `q` has fewer than
 * three code points (the trigram index cannot serve it). Any subset of q's trigrams finds a superset of the keys that
 * contain q, so the search may use only the rare ones and still post-filter every row with the exact test.
 */
export function probeTrigrams(q: string | undefined): string[] {
  const points = q ? Array.from(q) : [];
  const n = points.length - 2;
  if (n <= 0) return [];
  const picks =
    n <= MAX_PROBES
      ? Array.from({ length: n }, (_, i) => i)
      : Array.from({ length: MAX_PROBES }, (_, i) => Math.round((i * (n - 1)) / (MAX_PROBES - 1)));
  return [...new Set(picks.map((i) => points.slice(i, i + 3).join('')))];
}

/**
 * An FTS5 query string matching rows that hold every given text: each a double-quoted string (inner quotes doubled),
 * joined by AND. Inside a string FTS5 reads nothing as syntax (`*`, `NEAR`, `AND`, `:`, `^`, parentheses are text).
 */
export function ftsAllOf(texts: readonly string[]): string {
  return texts.map((t) => `"${t.replaceAll('"', '""')}"`).join(' AND ');
}

/**
 * The least string above every string that starts with `prefix`, in UTF-8 byte order (= code point order): the last
 * code point incremented (skipping the surrogate range), dropping trailing U+10FFFF. Undefined when there is none.
 * `key >= prefix AND key < bound` then selects exactly the keys that start with `prefix`, as an index range.
 */
export function prefixUpperBound(prefix: string): string | undefined {
  const points = Array.from(prefix);
  while (points.length > 0) {
    const last = (points.pop() as string).codePointAt(0) as number;
    if (last < 0x10ffff) return points.join('') + String.fromCodePoint(last === 0xd7ff ? 0xe000 : last + 1);
  }
  return undefined;
}

/** Compares two strings in UTF-8 byte order (SQLite's BINARY collation), which is code point order. */
export function compareUtf8(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}
