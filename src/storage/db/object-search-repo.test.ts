// ObjectSearchRepo against a brute-force oracle: every filter and combination, awkward keys (LIKE and FTS5 syntax
// characters, unicode, case, the largest code point), paged to the end under plan thresholds that force each plan.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import BetterSqlite3 from 'better-sqlite3';
import { migrate } from './database.js';
import { MetadataStore } from './metadata-store.js';
import { MIGRATIONS } from './migrations.js';
import { ObjectSearchRepo, type SearchFilter, type SearchHit, type SearchTuning } from './object-search-repo.js';
import { prefixUpperBound, probeTrigrams } from './object-search-sql.js';
import type { NewObjectRow } from './objects-repo.js';

const T0 = Date.parse('2030-01-01T00:00:00Z');
const AWKWARD = [
  'photos/2024/Summer.JPG',
  'photos/2024/summer.jpg',
  'PHOTOS/winter.png',
  'docs/report 100%.pdf',
  'docs/report_100.pdf',
  'docs/report-100.pdf',
  'a"quote"b',
  '"',
  'star*key',
  'NEAR AND OR NOT',
  'near and',
  'back\\slash',
  'café/menü.txt',
  'CAFÉ/MENÜ.TXT',
  '日本語/ファイル',
  'emoji/😀😁.txt',
  'emoji/😀x',
  'x',
  'xy',
  'ab',
  'AB',
  'tab\there',
  'line\nbreak',
  'paren(1)',
  'col:on',
  'caret^up',
  '-minus',
  '\u{10FFFF}edge',
  'z\u{10FFFF}',
  'z\u{10FFFF}\u{10FFFF}a',
  'z\uffff',
  'z\ue000',
  'z\ud7ff',
  "it's",
  '%%',
  '__',
  'a%b_c',
  'aaaaa',
  'baaab',
];

let dir: string;
let meta: MetadataStore;
/** Every row written, with whether it is a current version: the oracle's input. */
const rows: Array<NewObjectRow & { current: boolean }> = [];

function add(
  bucket: string,
  key: string,
  { i, kind = 'current' }: { i: number; kind?: 'current' | 'noncurrent' | 'marker' },
): void {
  const row: NewObjectRow = {
    bucket,
    key,
    versionId: `v${rows.length}`,
    isLatest: kind !== 'noncurrent',
    isDeleteMarker: kind === 'marker',
    size: (i * 37) % 1000,
    etag: `e${i}`,
    lastModified: T0 + i * 60_000,
    headers: {},
    userMeta: {},
    checksumAlgorithm: undefined,
    checksumValue: undefined,
    checksumType: undefined,
    blobId: undefined,
    partCount: undefined,
    storageClass: 'STANDARD',
  };
  meta.objects.insert(row);
  rows.push({ ...row, current: kind === 'current' });
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'object-search-repo-'));
  meta = MetadataStore.open(join(dir, 'meta.db'));
  meta.transaction(() => {
    let i = 0;
    for (const bucket of ['alpha', 'beta', 'gamma-2']) {
      for (const key of AWKWARD) if (i++ % 3 !== 2) add(bucket, key, { i });
      for (let n = 0; n < 40; n++) add(bucket, `k/${String(n).padStart(4, '0')}/obj`, { i: i++ });
    }
    // Not current: an older version alone, and a key whose latest version is a delete marker.
    add('beta', 'hidden/old-version', { i: i++, kind: 'noncurrent' });
    add('beta', 'hidden/deleted', { i: i++, kind: 'noncurrent' });
    add('beta', 'hidden/deleted', { i: i++, kind: 'marker' });
  });
});

afterAll(async () => {
  await meta.close();
  rmSync(dir, { recursive: true, force: true });
});

const foldAscii = (s: string): string => s.replace(/[A-Z]/g, (c) => c.toLowerCase());
const utf8Order = (a: string, b: string): number => Buffer.compare(Buffer.from(a), Buffer.from(b));

function oracle(f: SearchFilter): string[] {
  return rows
    .filter((r) => r.current)
    .filter((r) => !f.q || (f.ignoreCase ? foldAscii(r.key).includes(foldAscii(f.q)) : r.key.includes(f.q)))
    .filter((r) => !f.prefix || r.key.startsWith(f.prefix))
    .filter((r) => f.bucket === undefined || r.bucket === f.bucket)
    .filter((r) => (f.minSize === undefined || r.size >= f.minSize) && (f.maxSize === undefined || r.size <= f.maxSize))
    .filter((r) => (f.from === undefined || r.lastModified >= f.from) && (f.to === undefined || r.lastModified < f.to))
    .sort((a, b) => utf8Order(a.bucket, b.bucket) || utf8Order(a.key, b.key))
    .map((r) => `${r.bucket}/${r.key}`);
}

/** Pages to the end; returns every hit in order and how many pages were short but not last. */
function pageAll(repo: ObjectSearchRepo, f: SearchFilter, limit: number): { hits: string[]; shortPages: number } {
  const hits: SearchHit[] = [];
  let after;
  let shortPages = 0;
  for (let pages = 0; ; pages++) {
    expect(pages).toBeLessThan(2000);
    const page = repo.search(f, after, limit);
    expect(page.hits.length).toBeLessThanOrEqual(limit);
    hits.push(...page.hits);
    if (!page.resumeAfter) break;
    if (page.hits.length < limit) shortPages++;
    after = page.resumeAfter;
  }
  return { hits: hits.map((h) => `${h.bucket}/${h.key}`), shortPages };
}

const QUERIES: SearchFilter[] = [
  {},
  { q: 'report' },
  { q: 'Report' },
  { q: 'REPORT', ignoreCase: true },
  { q: '%' },
  { q: '_' },
  { q: '100%' },
  { q: 'rt_1' },
  { q: '%%' },
  { q: '"' },
  { q: '"quote"' },
  { q: 'a"q' },
  { q: '*' },
  { q: 'r*k' },
  { q: 'NEAR' },
  { q: 'AND' },
  { q: 'near and', ignoreCase: true },
  { q: ' OR ' },
  { q: '\\' },
  { q: "'s" },
  { q: 'é' },
  { q: 'CAFÉ', ignoreCase: true },
  { q: 'café' },
  { q: 'menü' },
  { q: '😀' },
  { q: '😀😁' },
  { q: '😀😁.' },
  { q: '本語/' },
  { q: 'x' },
  { q: 'xy' },
  { q: 'ab' },
  { q: 'AB', ignoreCase: true },
  { q: '\t' },
  { q: 'b\nb' },
  { q: '(1)' },
  { q: ':' },
  { q: '^up' },
  { q: '-mi' },
  { q: '\u{10FFFF}' },
  { q: 'k/00' },
  { q: '/' },
  { q: 'no such text' },
  { q: 'hidden' },
  { q: 'aaaa' },
  { q: 'aaa' },
  { q: 'photos/2024/summer.jpg' },
  { q: 'hotos/2024/SUMM', ignoreCase: true },
  { q: 'k/0001/obj' },
  { prefix: 'photos/' },
  { prefix: 'PHOTOS/' },
  { prefix: 'z' },
  { prefix: '\u{10FFFF}' },
  { prefix: 'z\u{10FFFF}' },
  { prefix: 'z\ud7ff' },
  { prefix: 'emoji/😀' },
  { prefix: '%' },
  { bucket: 'beta' },
  { bucket: 'nope' },
  { minSize: 500 },
  { maxSize: 10 },
  { minSize: 100, maxSize: 200 },
  { minSize: 999, maxSize: 999 },
  { from: T0 + 30 * 60_000 },
  { to: T0 + 10 * 60_000 },
  { from: T0 + 50 * 60_000, to: T0 + 60 * 60_000 },
  { q: 'k/', minSize: 300, bucket: 'alpha' },
  { prefix: 'k/', q: '7', from: T0 + 20 * 60_000 },
  { q: 'report', prefix: 'docs/', maxSize: 900 },
  { q: 'obj', bucket: 'gamma-2', minSize: 10, maxSize: 600, to: T0 + 140 * 60_000 },
  { q: 'k', ignoreCase: true, prefix: 'K' },
  { prefix: 'k/003', bucket: 'beta', from: T0 },
];

const TUNINGS: Array<[string, Partial<SearchTuning>]> = [
  ['the default thresholds', {}],
  ['always walking, a few entries per page', { candidateBudget: 0, scanBudget: 4 }],
  ['tiny thresholds (candidates or short walks)', { candidateBudget: 40, scanBudget: 7 }],
  ['candidates whenever an index applies', { candidateBudget: 100_000_000, scanBudget: 1_000_000 }],
];

describe('ObjectSearchRepo', () => {
  it('has awkward data to search (a check on the fixture itself)', () => {
    expect(oracle({ q: 'report' }).length).toBeGreaterThan(3);
    expect(oracle({ q: 'hidden' })).toEqual([]);
  });

  function expectOracle(repo: ObjectSearchRepo): void {
    for (const f of QUERIES) {
      const expected = oracle(f);
      for (const limit of [3, 1000]) {
        const { hits } = pageAll(repo, f, limit);
        expect({ f, limit, hits }).toEqual({ f, limit, hits: expected });
      }
    }
  }
  const queued = (): number => meta.db.prepare('SELECT count(*) FROM object_search_queue').pluck().get() as number;

  // In order: the rows start queued by the writers' triggers, then half, then all of them are indexed.
  it('matches the oracle while every row is still only queued for the trigram index', () => {
    expect(queued()).toBe(rows.filter((r) => r.current).length);
    expectOracle(new ObjectSearchRepo(meta.db));
  });

  it('matches the oracle with half the rows indexed and half queued', () => {
    const repo = new ObjectSearchRepo(meta.db);
    meta.transaction(() => repo.indexQueued(Math.floor(queued() / 2)));
    expect(queued()).toBeGreaterThan(10);
    expectOracle(repo);
  });

  for (const [name, tuning] of TUNINGS) {
    it(`matches the oracle for every filter, paged at any size, everything indexed, with ${name}`, () => {
      const repo = new ObjectSearchRepo(meta.db, tuning);
      while (meta.transaction(() => repo.indexQueued(50)) > 0);
      expect(queued()).toBe(0);
      expectOracle(repo);
    });
  }

  it('cuts a walk short on a selective filter no index serves, and resumes where it stopped', () => {
    for (const scanBudget of [1, 20]) {
      const repo = new ObjectSearchRepo(meta.db, { candidateBudget: 0, scanBudget });
      const f = { q: 'k/0039' };
      const { hits, shortPages } = pageAll(repo, f, 10);
      expect(hits).toEqual(oracle(f));
      expect(shortPages).toBeGreaterThan(3);
    }
  });

  it('finds a substring whose every trigram is common (counted up to the cap), queued or indexed', () => {
    meta.transaction(() => {
      for (let n = 0; n < 300; n++) add('delta', `common/${String(n).padStart(3, '0')}/common`, { i: 1000 + n });
    });
    const repo = new ObjectSearchRepo(meta.db);
    for (const f of [{ q: 'common/' }, { q: 'mon/222/com' }, { q: 'common/2', prefix: 'common/' }]) {
      expect(pageAll(repo, f, 50).hits).toEqual(oracle(f));
      while (meta.transaction(() => repo.indexQueued(100)) > 0);
      expect(pageAll(repo, f, 50).hits).toEqual(oracle(f));
    }
  });

  it('names no next page after the last match', () => {
    const repo = new ObjectSearchRepo(meta.db);
    const all = oracle({ q: 'report' });
    expect(repo.search({ q: 'report' }, undefined, all.length).resumeAfter).toBeUndefined();
    expect(repo.search({ q: 'report' }, undefined, all.length - 1).resumeAfter).toBeDefined();
  });
});

describe('probeTrigrams', () => {
  it('takes every trigram of a short q, at most eight spread over a long one, none under three code points', () => {
    expect(probeTrigrams('ab')).toEqual([]);
    expect(probeTrigrams('😀😁')).toEqual([]);
    expect(probeTrigrams('😀😁x')).toEqual(['😀😁x']);
    expect(probeTrigrams('abcde')).toEqual(['abc', 'bcd', 'cde']);
    expect(probeTrigrams('aaaaaa')).toEqual(['aaa']);
    const long = probeTrigrams('abcdefghijklmnopqrstuvwxyz');
    expect(long).toHaveLength(8);
    expect(long[0]).toBe('abc');
    expect(long[7]).toBe('xyz');
  });
});

describe('prefixUpperBound', () => {
  it('is the next string in code point order, skipping surrogates and trailing U+10FFFF', () => {
    expect(prefixUpperBound('abc')).toBe('abd');
    expect(prefixUpperBound('a\ud7ff')).toBe('a\ue000');
    expect(prefixUpperBound('a\u{10FFFF}\u{10FFFF}')).toBe('b');
    expect(prefixUpperBound('😀')).toBe('😁');
    expect(prefixUpperBound('\u{10FFFF}')).toBeUndefined();
  });
});

describe('the object search migration', () => {
  it('indexes the current versions already in a database made before it', () => {
    const db = new BetterSqlite3(':memory:');
    const at = MIGRATIONS.findIndex((sql) => sql.includes('CREATE VIRTUAL TABLE object_search'));
    expect(at).toBeGreaterThan(0);
    for (const sql of MIGRATIONS.slice(0, at)) db.exec(sql);
    db.pragma(`user_version = ${at}`);
    const insert = db.prepare(
      `INSERT INTO objects (bucket, key, version_id, is_latest, is_delete_marker, size, etag, last_modified)
       VALUES ('old', ?, ?, ?, ?, 1, 'e', 0)`,
    );
    insert.run('kept/current.txt', 'a', 1, 0);
    insert.run('kept/older.txt', 'b', 0, 0);
    insert.run('gone/deleted.txt', 'c', 0, 0);
    insert.run('gone/deleted.txt', 'd', 1, 1);
    migrate(db);
    const repo = new ObjectSearchRepo(db);
    // Backfilled through the queue: found at once, and by the index once the queue is worked off.
    expect(db.prepare('SELECT object_id FROM object_search_queue').pluck().all()).toEqual([1]);
    expect(repo.search({ q: '.txt' }, undefined, 10).hits.map((h) => h.key)).toEqual(['kept/current.txt']);
    expect(repo.indexQueued(10)).toBe(1);
    expect(repo.indexQueued(10)).toBe(0);
    expect(db.prepare('SELECT rowid FROM object_search WHERE object_search MATCH \'"t.tx"\'').pluck().all()).toEqual([
      1,
    ]);
    expect(repo.search({ q: '.txt' }, undefined, 10).hits.map((h) => h.key)).toEqual(['kept/current.txt']);
    expect(repo.search({ q: 'old', minSize: 1 }, undefined, 10).hits).toEqual([]);
    db.close();
  });
});
