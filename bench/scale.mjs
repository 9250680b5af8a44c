// @ts-check
// The scale scenarios (`--objects=N`): lookups, listings and PUTs against a bucket seeded with N objects by
// bench/seed-metadata.mjs, run alternately on a Store holding N objects and one holding 10,000; plus the table.
import { randomInt } from 'node:crypto';
import { BenchClient } from './client.mjs';
import { runTimed } from './workloads.mjs';
import { SEED_OBJECT_SIZE, seededBody, seededKey } from './seed-metadata.mjs';

export const SCALE_BUCKET = 'bench-scale';
const PAGE = 1000;
const CONCURRENCY = 16;
/**
 * Common prefixes per delimiter page: each rolls up 100 keys, so a page covers 5,000 keys whatever the bucket's size
 * (the 10,000-object bucket has only 100 prefixes, so a 1,000-prefix page would not be the same work on both).
 */
const DELIMITER_PAGE = 50;

/**
 * @typedef {import('./workloads.mjs').Target} Target
 * @typedef {import('./workloads.mjs').Scenario} Scenario
 * @typedef {import('./workloads.mjs').ScenarioResult} ScenarioResult
 * @typedef {{ scenario: string, unit: string, small: ScenarioResult, large: ScenarioResult, ratio: number }} ScaleRow
 */

/** @param {Target} t */
const countOf = (t) => /** @type {number} */ (t.state.objectCount);

/**
 * @param {{ t: Target, concurrency: number, durationMs: number, warmupMs: number, op: (c: BenchClient) =>
 * Promise<number> }} o
 */
async function timed({ t, concurrency, durationMs, warmupMs, op }) {
  const client = new BenchClient({ baseUrl: t.baseUrl, concurrency, sign: t.sign });
  try {
    return await runTimed({ concurrency, durationMs, warmupMs, cpuSeconds: t.cpuSeconds, op: () => op(client) });
  } finally {
    client.close();
  }
}

/**
 * Keys, or common prefixes, of a ListObjectsV2 page, checked ascending. @param {string} xml @param {string} tag @param
 * {string} what
 */
function listed(xml, tag, what) {
  const re = tag === 'Key' ? /<Key>([^<]*)<\/Key>/g : /<Prefix>([^<]*)<\/Prefix>\s*<\/CommonPrefixes>/g;
  const items = Array.from(xml.matchAll(re), (m) => /** @type {string} */ (m[1]));
  for (let i = 1; i < items.length; i++) {
    if (/** @type {string} */ (items[i]) <= /** @type {string} */ (items[i - 1]))
      throw new Error(`${what}: ${items[i]} not after ${items[i - 1]}`);
  }
  return items;
}

/** @param {{ durationMs: number, warmupMs: number }} timing @returns {Scenario[]} */
export function buildScaleScenarios({ durationMs, warmupMs }) {
  const body = seededBody();
  const small = { concurrency: CONCURRENCY, durationMs, warmupMs };
  return [
    {
      name: `head-4k-c${CONCURRENCY}-random`,
      unit: 'ops/s',
      hasLatency: true,
      run: (t) =>
        timed({
          t,
          ...small,
          op: async (c) => {
            const key = seededKey(randomInt(countOf(t)));
            const reply = await c.request({ method: 'HEAD', path: `/${SCALE_BUCKET}/${key}` });
            if (reply.headers['content-length'] !== String(SEED_OBJECT_SIZE))
              throw new Error(`${t.label} HEAD ${key}: content-length ${reply.headers['content-length']}`);
            return 0;
          },
        }),
    },
    {
      name: `get-4k-c${CONCURRENCY}-random`,
      unit: 'ops/s',
      hasLatency: true,
      run: (t) =>
        timed({
          t,
          ...small,
          op: async (c) => {
            const key = seededKey(randomInt(countOf(t)));
            const reply = await c.request({ method: 'GET', path: `/${SCALE_BUCKET}/${key}`, keepBody: true });
            if (!reply.body?.equals(body)) throw new Error(`${t.label} GET ${key}: body differs from the seeded one`);
            return SEED_OBJECT_SIZE;
          },
        }),
    },
    {
      name: `list-p${PAGE}-random-start`,
      unit: 'pages/s',
      hasLatency: true,
      run: (t) =>
        timed({
          t,
          concurrency: 1,
          durationMs,
          warmupMs,
          op: async (c) => {
            // Start far enough from the end that every page is full.
            const i = randomInt(Math.max(1, countOf(t) - PAGE));
            const after = seededKey(i);
            const reply = await c.request({
              method: 'GET',
              path: `/${SCALE_BUCKET}?list-type=2&max-keys=${PAGE}&start-after=${encodeURIComponent(after)}`,
              keepBody: true,
            });
            const keys = listed(String(reply.body), 'Key', `${t.label} list after ${after}`);
            if (keys.length !== Math.min(PAGE, countOf(t) - i - 1) || keys[0] !== seededKey(i + 1))
              throw new Error(`${t.label} list after ${after}: ${keys.length} keys from ${keys[0]}`);
            return 0;
          },
        }),
    },
    {
      name: `list-delimiter-p${DELIMITER_PAGE}`,
      unit: 'pages/s',
      hasLatency: true,
      run: (t) =>
        timed({
          t,
          concurrency: 1,
          durationMs,
          warmupMs,
          op: async (c) => {
            // Common prefixes k/NNNNNNN/ from a random one on (start-after the prefix itself), each rolling up 100
            // keys.
            const prefixes = Math.ceil(countOf(t) / 100);
            const from = randomInt(Math.max(1, prefixes - DELIMITER_PAGE));
            const after = seededKey(from * 100).replace(/obj-.*/, '');
            const query = `list-type=2&prefix=k%2F&delimiter=%2F&max-keys=${DELIMITER_PAGE}&start-after=${encodeURIComponent(after)}`;
            const reply = await c.request({ method: 'GET', path: `/${SCALE_BUCKET}?${query}`, keepBody: true });
            const got = listed(String(reply.body), 'Prefix', `${t.label} delimiter list after ${after}`);
            if (got.length !== Math.min(DELIMITER_PAGE, prefixes - from - 1))
              throw new Error(`${t.label} delimiter list after ${after}: ${got.length} prefixes`);
            return 0;
          },
        }),
    },
    {
      name: `put-4k-c${CONCURRENCY}-new-keys`,
      unit: 'ops/s',
      hasLatency: true,
      run: (t) =>
        timed({
          t,
          ...small,
          op: async (c) => {
            const n = t.state.seq++;
            await c.request({
              method: 'PUT',
              path: `/${SCALE_BUCKET}/k/${String(randomInt(countOf(t) / 100)).padStart(7, '0')}/new-${n}`,
              body: [body],
            });
            return SEED_OBJECT_SIZE;
          },
        }),
    },
  ];
}

/**
 * The scale table: each scenario on the small and the large bucket, and large/small (1.00 = no slower with N objects;
 * the target "within 1.5x" is >= 0.67 for a throughput). @param {ScaleRow[]} rows @param {string} smallLabel @param
 * {string} largeLabel
 */
export function formatScaleTable(rows, smallLabel, largeLabel) {
  const ms = (/** @type {number} */ v) => (v < 10 ? v.toFixed(2) : v.toFixed(1));
  const header = [
    'scenario',
    'unit',
    smallLabel,
    largeLabel,
    `${largeLabel}/${smallLabel}`,
    `${smallLabel} p50/p99 ms`,
    `${largeLabel} p50/p99 ms`,
    'p99 ratio',
  ];
  const body = rows.map((r) => [
    r.scenario,
    r.unit,
    Math.round(r.small.value).toLocaleString('en-US'),
    Math.round(r.large.value).toLocaleString('en-US'),
    r.ratio.toFixed(2),
    `${ms(r.small.p50)} / ${ms(r.small.p99)}`,
    `${ms(r.large.p50)} / ${ms(r.large.p99)}`,
    (r.large.p99 / r.small.p99).toFixed(2),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((c) => String(c[i]).length)));
  const line = (/** @type {string[]} */ cells) =>
    cells
      .map((c, i) =>
        i < 2 ? c.padEnd(/** @type {number} */ (widths[i])) : c.padStart(/** @type {number} */ (widths[i])),
      )
      .join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)].join('\n');
}
