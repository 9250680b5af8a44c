// The SQL of object search: the filter as WHERE terms over `objects AS o`, the FTS5 phrase for a substring, and the
// range bound for a prefix. Pure string building, no database access (object-search-repo.ts runs it).

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
}

/** Named parameters every statement of one search may use (better-sqlite3 ignores the ones a statement lacks). */
export type SearchParams = Record<string, string | number>;

/** The trigram tokenizer needs three characters (code points) to use the index. */
export const MIN_INDEXED_CHARS = 3;

export const CURRENT = 'o.is_latest = 1 AND o.is_delete_marker = 0';

/** A filter as SQL: WHERE terms to AND together, and the named parameters they use. */
export interface FilterSql {
  /** The key range of the prefix: seekable in the (bucket, key) index. */
  keyRange: string[];
  /** The size range: seekable in objects_current_by_size. */
  size: string[];
  /** The last-modified range: seekable in objects_current_by_modified. */
  modified: string[];
  /** Every term, the key range and the current-version test included. */
  all: string[];
  params: SearchParams;
}

/**
 * The WHERE terms and their parameters for every part of the filter. `o.key` comparisons are in SQLite's BINARY
 * collation (UTF-8 byte order, S3's listing order). instr() is exact and case-sensitive; LIKE folds ASCII only, with
 * its wildcards escaped so that `%` and `_` in `q` are literal.
 */
export function filterSql(f: SearchFilter): FilterSql {
  const keyRange: string[] = [];
  const size: string[] = [];
  const modified: string[] = [];
  const terms = [CURRENT];
  const params: SearchParams = {};
  if (f.bucket !== undefined) {
    terms.push('o.bucket = @bucket');
    params['bucket'] = f.bucket;
  }
  if (f.prefix) {
    keyRange.push('o.key >= @prefix');
    params['prefix'] = f.prefix;
    const end = prefixUpperBound(f.prefix);
    if (end !== undefined) {
      keyRange.push('o.key < @prefixEnd');
      params['prefixEnd'] = end;
    }
    terms.push(...keyRange);
  }
  if (f.q) {
    if (f.ignoreCase) {
      terms.push("o.key LIKE @like ESCAPE '\\'");
      params['like'] = `%${f.q.replace(/[\\%_]/g, '\\$&')}%`;
    } else {
      terms.push('instr(o.key, @q) > 0');
      params['q'] = f.q;
    }
    params['match'] = ftsPhrase(f.q);
  }
  if (f.minSize !== undefined) {
    size.push('o.size >= @minSize');
    params['minSize'] = f.minSize;
  }
  if (f.maxSize !== undefined) {
    size.push('o.size <= @maxSize');
    params['maxSize'] = f.maxSize;
  }
  if (f.from !== undefined) {
    modified.push('o.last_modified >= @from');
    params['from'] = f.from;
  }
  if (f.to !== undefined) {
    modified.push('o.last_modified < @to');
    params['to'] = f.to;
  }
  terms.push(...size, ...modified);
  return { keyRange, size, modified, all: terms, params };
}

/**
 * `q` as one FTS5 phrase: a double-quoted string, inner quotes doubled. Inside a string FTS5 reads nothing as
 * syntax (`*`, `NEAR`, `AND`, `:`, `^`, parentheses are text), so any input is a literal substring search.
 */
export function ftsPhrase(q: string): string {
  return `"${q.replaceAll('"', '""')}"`;
}

/** True when the trigram index can answer the substring (at least three code points). */
export function isIndexable(q: string | undefined): q is string {
  if (!q) return false;
  let n = 0;
  for (const _ of q) if (++n >= MIN_INDEXED_CHARS) return true;
  return false;
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
