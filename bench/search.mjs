// @ts-check
// Object search at scale: seeds N varied object rows (4 buckets, realistic keys, sizes and dates) into a data
// directory through Store's own compiled MetadataStore (the search triggers index them as they go), then times
// typical searches through ObjectSearchService in-process. `npm run build` first.
// Usage: node bench/search.mjs [--objects=1000000] [--data-dir=<dir>] (a dir already seeded is reused, not re-seeded)
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';

const DAY = 86_400_000;
const END = Date.parse('2031-01-01T00:00:00Z');
const ROWS_PER_TRANSACTION = 20_000;
const RUNS = 7;

/** Deterministic PRNG (mulberry32), so every run seeds the same rows. @param {number} seed */
function prng(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = ['summer', 'winter', 'family', 'Holiday', 'party', 'beach', 'city', 'forest', 'wedding', 'concert'];
const DEPTS = ['finance', 'legal', 'hr', 'sales', 'engineering'];

/**
 * Row i: its bucket, key, size and last-modified. One key in 10,000 carries the rare word "xyzzy". @param {number} i
 * @param {() => number} r
 */
function objectAt(i, r) {
  const lastModified = END - Math.floor(r() * 730 * DAY);
  const d = new Date(lastModified).toISOString();
  // Sizes spread over 1 B .. ~100 MB (log-uniform), with one object in 10,000 of 1-5 GB.
  const size = r() < 0.0001 ? Math.floor((1 + r() * 4) * 2 ** 30) : Math.floor(Math.exp(r() * 18.4));
  const rare = i % 10_000 === 4_242 ? '-xyzzy' : '';
  const n = String(i).padStart(7, '0');
  const kind = i % 10;
  if (kind < 4)
    return {
      bucket: 'logs',
      key: `app-${i % 20}/${d.slice(0, 4)}/${d.slice(5, 7)}/${d.slice(8, 10)}/host${i % 50}-${n}${rare}.log.gz`,
      size,
      lastModified,
    };
  if (kind < 7)
    return {
      bucket: 'media',
      key: `photos/${d.slice(0, 4)}/${WORDS[i % 10]}/IMG_${n}${rare}.${i % 3 ? 'jpg' : 'JPG'}`,
      size,
      lastModified,
    };
  if (kind < 9) return { bucket: 'docs', key: `docs/${DEPTS[i % 5]}/report-${n}${rare}.pdf`, size, lastModified };
  return { bucket: 'backups', key: `db/nightly-${d.slice(0, 10)}-${n}${rare}.tar.zst`, size, lastModified };
}

/** @param {any} meta @param {number} count */
function seed(meta, count) {
  const r = prng(42);
  const started = performance.now();
  const base = {
    versionId: 'null',
    isLatest: true,
    isDeleteMarker: false,
    etag: 'd41d8cd98f00b204e9800998ecf8427e',
    headers: {},
    userMeta: {},
    checksumAlgorithm: undefined,
    checksumValue: undefined,
    checksumType: undefined,
    blobId: undefined,
    partCount: undefined,
    storageClass: 'STANDARD',
  };
  meta.db.pragma('cache_size = -262144');
  for (let from = 0; from < count; from += ROWS_PER_TRANSACTION) {
    meta.transaction(() => {
      for (let i = from; i < Math.min(count, from + ROWS_PER_TRANSACTION); i++)
        meta.objects.insert({ ...base, ...objectAt(i, r) });
    });
    if ((from + ROWS_PER_TRANSACTION) % 200_000 === 0)
      process.stderr.write(
        `seeded ${from + ROWS_PER_TRANSACTION} (${((performance.now() - started) / 1000).toFixed(0)} s)\n`,
      );
  }
  const seeded = performance.now();
  // The triggers only queued the rows; index them as the search-index loop would, in bigger batches.
  while (meta.transaction(() => meta.objectSearch.indexQueued(ROWS_PER_TRANSACTION)) > 0);
  process.stderr.write(
    `rows ${((seeded - started) / 1000).toFixed(1)} s, trigram index ${((performance.now() - seeded) / 1000).toFixed(1)} s\n`,
  );
  meta.db.pragma('wal_checkpoint(TRUNCATE)');
  return (performance.now() - started) / 1000;
}

const iso = (/** @type {number} */ ms) => new Date(ms).toISOString();
/** @type {Array<[string, Record<string, unknown>]>} */
const QUERIES = [
  ['no filter', {}],
  ['q 3 chars, rare ("yzz")', { q: 'yzz' }],
  ['q 3 chars, 40% ("log")', { q: 'log' }],
  ['q 5 chars, rare ("xyzzy")', { q: 'xyzzy' }],
  ['q 5 chars, 30% ("IMG_0")', { q: 'IMG_0' }],
  ['q 10 chars, 10 hits ("IMG_012345")', { q: 'IMG_012345' }],
  ['q 10 chars, ~1% ("2030/06/1")', { q: '/2030/06/1' }],
  ['q 10 chars, none ("IMG_999999")', { q: 'IMG_999999' }],
  ['q 2 chars, many (".p")', { q: '.p' }],
  ['q 2 chars, none ("Zq")', { q: 'Zq' }],
  ['q ignoreCase ("img_00123")', { q: 'img_00123', ignoreCase: true }],
  ['prefix, one bucket', { bucket: 'media', prefix: 'photos/2030/beach/' }],
  ['prefix, all buckets', { prefix: 'app-3/2030/06/' }],
  ['size >= 1 GiB (rare)', { minSize: 2 ** 30 }],
  ['size 1-2 MiB (~4%)', { minSize: 2 ** 20, maxSize: 2 ** 21 }],
  ['modified in the last day', { from: iso(END - DAY) }],
  ['modified in one month', { from: '2030-06-01', to: '2030-07-01' }],
  ['q + bucket + size', { q: 'IMG', bucket: 'media', minSize: 50 * 2 ** 20 }],
  ['q + date', { q: '.pdf', from: iso(END - 7 * DAY) }],
  ['prefix + q + size', { prefix: 'docs/hr/', q: '99', maxSize: 1000 }],
];

/**
 * Times page 1 (RUNS times) and pages 2..depth by cursor; returns ms figures. @param {any} search @param
 * {Record<string, unknown>} query
 */
function timeQuery(search, query, depth) {
  const first = [];
  let page;
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    page = search.search({ ...query, limit: 100 });
    first.push(performance.now() - t);
  }
  first.sort((a, b) => a - b);
  const deep = [];
  let items = page.items.length;
  let cursor = page.nextCursor;
  for (let n = 1; n < depth && cursor; n++) {
    const t = performance.now();
    const next = search.search({ ...query, limit: 100, cursor });
    deep.push(performance.now() - t);
    items += next.items.length;
    cursor = next.nextCursor;
  }
  deep.sort((a, b) => a - b);
  return {
    median: first[Math.floor(RUNS / 2)],
    max: first[RUNS - 1],
    firstCount: page.items.length,
    items,
    pages: deep.length + 1,
    deepMedian: deep[Math.floor(deep.length / 2)],
    deepMax: deep[deep.length - 1],
  };
}

async function main() {
  const { values } = parseArgs({
    options: {
      objects: { type: 'string', default: '1000000' },
      'data-dir': { type: 'string' },
      depth: { type: 'string', default: '100' },
    },
  });
  const count = Number(values.objects);
  const dist = new URL('../dist/', import.meta.url);
  const { MetadataStore } = await import(new URL('storage/db/metadata-store.js', dist).href);
  const { ObjectSearchService } = await import(new URL('services/objects/object-search-service.js', dist).href);
  const dir = values['data-dir'] ?? mkdtempSync(path.join(os.tmpdir(), 'store-search-bench-'));
  const file = path.join(dir, 'meta.db');
  const fresh = !existsSync(file);
  const meta = MetadataStore.open(file);
  try {
    if (fresh) process.stderr.write(`seeded ${count} objects in ${seed(meta, count).toFixed(0)} s\n`);
    const search = new ObjectSearchService({ meta });
    console.log(`| query | page 1 median / max ms (items) | pages 2-${values.depth} median / max ms | items seen |`);
    console.log('|---|---|---|---|');
    for (const [name, query] of QUERIES) {
      const r = timeQuery(search, query, Number(values.depth));
      const deep = r.deepMedian === undefined ? 'n/a' : `${r.deepMedian.toFixed(1)} / ${r.deepMax.toFixed(1)}`;
      console.log(
        `| ${name} | ${r.median.toFixed(1)} / ${r.max.toFixed(1)} (${r.firstCount}) | ${deep} | ${r.items} in ${r.pages} pages |`,
      );
    }
  } finally {
    await meta.close();
    if (!values['data-dir']) rmSync(dir, { recursive: true, force: true });
  }
}

await main();
