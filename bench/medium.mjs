// @ts-check
// The medium-object scenarios of `npm run bench` (bench/README.md, "Scenarios"): 64 KiB, 256 KiB and 1 MiB PUTs and
// GETs at c1 and c32, and a 64 KiB mix of 70% GETs and 30% PUTs at c32. Objects above Store's inline threshold are
// where most real objects live (images, thumbnails, documents, log chunks).
import { BenchClient } from './client.mjs';
import { ExpectBytes, objectBody } from './bodies.mjs';
import { withClient } from './workloads.mjs';

const KiB = 1024;
/** The sizes measured, by the tag in the scenario names. */
const SIZES = /** @type {const} */ ([
  ['64k', 64 * KiB],
  ['256k', 256 * KiB],
  ['1m', 1024 * KiB],
]);
const CONCURRENCIES = [1, 32];
/** Objects each GET scenario reads in turn (written untimed first when the PUT scenarios left fewer). */
const GET_POOL = 64;
/** Of every 10 operations of the mix, this many are GETs (of objects already written); the rest PUT new keys. */
const MIX_GETS_IN_10 = 7;
const MIX_CONCURRENCY = 32;

/**
 * @typedef {import('./workloads.mjs').Target} Target
 * @typedef {import('./workloads.mjs').Scenario} Scenario
 */

/** The keys of the objects of one size written on a target so far. @param {Target} t @param {string} tag */
const keysOf = (t, tag) => ((t.state.mediumKeys ??= {})[tag] ??= []);

/**
 * PUTs a new object of the size (key `<tag>/<n>`) and records it. @param {BenchClient} client
 * @param {{ t: Target, tag: string, size: number }} o
 */
async function putNew(client, { t, tag, size }) {
  const n = t.state.seq++;
  await client.request({ method: 'PUT', path: `/bench/${tag}/${n}`, body: objectBody(tag, n, size) });
  keysOf(t, tag).push(n);
  return size;
}

/**
 * GETs object `n` of the size and compares every byte with what was written. @param {BenchClient} client
 * @param {{ t: Target, tag: string, size: number, n: number }} o
 */
async function getChecked(client, { t, tag, size, n }) {
  const sink = new ExpectBytes(objectBody(tag, n, size), `${t.label} GET ${tag}/${n}`);
  await client.request({ method: 'GET', path: `/bench/${tag}/${n}`, sink });
  return size;
}

/**
 * Writes (untimed) objects of the size until the target holds `count`.
 * @param {{ t: Target, tag: string, size: number, count: number }} o
 */
async function ensurePool({ t, tag, size, count }) {
  if (keysOf(t, tag).length >= count) return;
  const client = new BenchClient({ baseUrl: t.baseUrl, concurrency: 8, sign: t.sign });
  try {
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (keysOf(t, tag).length < count) await putNew(client, { t, tag, size });
      }),
    );
  } finally {
    client.close();
  }
}

/** @param {{ durationMs: number, warmupMs: number }} timing @returns {Scenario[]} */
export function mediumScenarios({ durationMs, warmupMs }) {
  /** @type {Scenario[]} */
  const out = [];
  for (const [tag, size] of SIZES) {
    for (const concurrency of CONCURRENCIES) {
      const timing = { concurrency, durationMs, warmupMs };
      out.push({
        name: `put-${tag}-c${concurrency}`,
        unit: 'ops/s',
        hasLatency: true,
        run: (t) => withClient({ t, ...timing, op: (client) => putNew(client, { t, tag, size }) }),
      });
      let cursor = 0;
      out.push({
        name: `get-${tag}-c${concurrency}`,
        unit: 'ops/s',
        hasLatency: true,
        run: async (t) => {
          await ensurePool({ t, tag, size, count: GET_POOL });
          const keys = keysOf(t, tag);
          return withClient({
            t,
            ...timing,
            op: (client) =>
              getChecked(client, { t, tag, size, n: /** @type {number} */ (keys[cursor++ % keys.length]) }),
          });
        },
      });
    }
  }
  const [mixTag, mixSize] = /** @type {[string, number]} */ (SIZES[0]);
  let op = 0;
  out.push({
    name: `mix-${mixTag}-c${MIX_CONCURRENCY}`,
    unit: 'ops/s',
    hasLatency: true,
    run: async (t) => {
      await ensurePool({ t, tag: mixTag, size: mixSize, count: GET_POOL });
      const keys = keysOf(t, mixTag);
      let cursor = 0;
      return withClient({
        t,
        concurrency: MIX_CONCURRENCY,
        durationMs,
        warmupMs,
        op: (client) =>
          op++ % 10 < MIX_GETS_IN_10
            ? getChecked(client, {
                t,
                tag: mixTag,
                size: mixSize,
                n: /** @type {number} */ (keys[cursor++ % keys.length]),
              })
            : putNew(client, { t, tag: mixTag, size: mixSize }),
      });
    },
  });
  return out;
}
