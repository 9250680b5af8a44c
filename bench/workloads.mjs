// @ts-check
// The benchmark's scenarios: what each one sends, how it is timed, and how what is read back is verified.
// A scenario runs against one target at a time; run.mjs runs every scenario on Store, then on the floor.
import { ExpectBytes, LARGE_SIZE, objectBody } from './bodies.mjs';
import { BenchClient } from './client.mjs';
import { runTimed } from './timed-run.mjs';

export { combineRounds, runTimed } from './timed-run.mjs';

const KiB = 1024;
const MiB = 1024 * KiB;
const SMALL_SIZE = 4 * KiB;
const MPU_SIZE = 256 * MiB;
const MPU_PART_SIZE = 16 * MiB;
const MPU_PARALLEL = 4;
const LIST_KEYS = 10_000;
const LIST_PAGE = 1000;
/** One large GET in this many is compared byte for byte; the others are only length-checked. */
const LARGE_VERIFY_EVERY = 4;

export const BUCKET = 'bench';
export const LIST_BUCKET = 'bench-list';

/**
 * @typedef {import('./client.mjs').Signer} Signer
 * @typedef {{ smallKeys: number[], largeKeys: number[], seq: number, listSeeded: boolean, multipartVerified: boolean,
 *   objectCount?: number }} TargetState  objectCount: objects seeded in the scale bucket (scale run only)
 * @typedef {{ label: string, baseUrl: string, sign: Signer, cpuSeconds: () => number, state: TargetState }} Target
 * @typedef {{ ops: number, bytes: number, seconds: number, cpuSeconds: number, latencies: number[] }} Round
 *   one timed run of a scenario on one target; latencies in ms
 * @typedef {{ value: number, ops: number, bytes: number, seconds: number, cpuPercent: number,
 *   p50: number, p99: number, mean: number, roundValues: number[] }} ScenarioResult
 * @typedef {'ops/s' | 'MB/s' | 'pages/s'} Unit
 * @typedef {{ name: string, unit: Unit, hasLatency: boolean, run: (t: Target) => Promise<Round> }} Scenario
 */

/**
 * Makes sure a target holds at least `count` small objects (for GET/HEAD run without the PUT before them).
 * @param {Target} t @param {number} count
 */
async function ensureSmallObjects(t, count) {
  const client = new BenchClient({ baseUrl: t.baseUrl, concurrency: 16, sign: t.sign });
  try {
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (t.state.smallKeys.length < count) {
          const n = t.state.seq++;
          await client.request({
            method: 'PUT',
            path: `/${BUCKET}/s/${n}`,
            body: [Buffer.concat(objectBody('s', n, SMALL_SIZE))],
          });
          t.state.smallKeys.push(n);
        }
      }),
    );
  } finally {
    client.close();
  }
}

/** @param {Target} t */
async function ensureLargeObjects(t) {
  if (t.state.largeKeys.length > 0) return;
  const client = new BenchClient({ baseUrl: t.baseUrl, concurrency: 1, sign: t.sign });
  try {
    const n = t.state.seq++;
    await client.request({ method: 'PUT', path: `/${BUCKET}/l/${n}`, body: objectBody('l', n, LARGE_SIZE) });
    t.state.largeKeys.push(n);
  } finally {
    client.close();
  }
}

/**
 * @param {{ t: Target, concurrency: number, durationMs: number, warmupMs: number,
 *   op: (client: BenchClient, worker: number) => Promise<number> }} opts
 */
async function withClient({ t, concurrency, durationMs, warmupMs, op }) {
  const client = new BenchClient({ baseUrl: t.baseUrl, concurrency, sign: t.sign });
  try {
    return await runTimed({ concurrency, durationMs, warmupMs, cpuSeconds: t.cpuSeconds, op: (w) => op(client, w) });
  } finally {
    client.close();
  }
}

/** @param {{ concurrency: number, durationMs: number, warmupMs: number }} o @returns {Scenario[]} */
function smallScenarios({ concurrency, durationMs, warmupMs }) {
  const timing = { concurrency, durationMs, warmupMs };
  let cursor = 0;
  /** @param {Target} t */
  const nextKey = (t) => /** @type {number} */ (t.state.smallKeys[cursor++ % t.state.smallKeys.length]);
  return [
    {
      name: `put-4k-c${concurrency}`,
      unit: 'ops/s',
      hasLatency: true,
      run: (t) =>
        withClient({
          t,
          ...timing,
          op: async (client) => {
            const n = t.state.seq++;
            await client.request({
              method: 'PUT',
              path: `/${BUCKET}/s/${n}`,
              body: [Buffer.concat(objectBody('s', n, SMALL_SIZE))],
            });
            t.state.smallKeys.push(n);
            return SMALL_SIZE;
          },
        }),
    },
    {
      name: `get-4k-c${concurrency}`,
      unit: 'ops/s',
      hasLatency: true,
      run: async (t) => {
        await ensureSmallObjects(t, 256);
        return withClient({
          t,
          ...timing,
          op: async (client) => {
            const n = nextKey(t);
            const sink = new ExpectBytes(objectBody('s', n, SMALL_SIZE), `${t.label} GET s/${n}`);
            await client.request({ method: 'GET', path: `/${BUCKET}/s/${n}`, sink });
            return SMALL_SIZE;
          },
        });
      },
    },
    {
      name: `head-4k-c${concurrency}`,
      unit: 'ops/s',
      hasLatency: true,
      run: async (t) => {
        await ensureSmallObjects(t, 256);
        return withClient({
          t,
          ...timing,
          op: async (client) => {
            const n = nextKey(t);
            const reply = await client.request({ method: 'HEAD', path: `/${BUCKET}/s/${n}` });
            if (reply.headers['content-length'] !== String(SMALL_SIZE)) {
              throw new Error(
                `${t.label} HEAD s/${n}: content-length ${reply.headers['content-length']}, wrote ${SMALL_SIZE}`,
              );
            }
            return 0;
          },
        });
      },
    },
  ];
}

/**
 * One 64 MiB PUT of object `n` (the large scenarios' objects).
 * @param {BenchClient} client @param {number} n
 */
export async function largePut(client, n) {
  await client.request({ method: 'PUT', path: `/${BUCKET}/l/${n}`, body: objectBody('l', n, LARGE_SIZE) });
}

/** Bytes one upload of each kind sends: a 64 MiB PUT, a 256 MiB multipart upload. */
export const UPLOAD_BYTES = { put: LARGE_SIZE, multipart: MPU_SIZE };

/** @param {{ concurrency: number, durationMs: number }} o @returns {Scenario[]} */
function largeScenarios({ concurrency, durationMs }) {
  const timing = { concurrency, durationMs, warmupMs: 0 };
  let gets = 0;
  return [
    {
      name: `put-64m-c${concurrency}`,
      unit: 'MB/s',
      hasLatency: false,
      run: (t) =>
        withClient({
          t,
          ...timing,
          op: async (client) => {
            const n = t.state.seq++;
            await largePut(client, n);
            t.state.largeKeys.push(n);
            return LARGE_SIZE;
          },
        }),
    },
    {
      name: `get-64m-c${concurrency}`,
      unit: 'MB/s',
      hasLatency: false,
      run: async (t) => {
        await ensureLargeObjects(t);
        return withClient({
          t,
          ...timing,
          op: async (client) => {
            const n = /** @type {number} */ (t.state.largeKeys[gets % t.state.largeKeys.length]);
            const what = `${t.label} GET l/${n}`;
            const sink =
              gets++ % LARGE_VERIFY_EVERY === 0 ? new ExpectBytes(objectBody('l', n, LARGE_SIZE), what) : undefined;
            const reply = await client.request({ method: 'GET', path: `/${BUCKET}/l/${n}`, sink });
            if (reply.bytes !== LARGE_SIZE) throw new Error(`${what}: got ${reply.bytes} bytes, wrote ${LARGE_SIZE}`);
            return LARGE_SIZE;
          },
        });
      },
    },
  ];
}

/** The body of part `p` (1-based) of upload `n`. @param {number} n @param {number} p */
const partBody = (n, p) => objectBody(`m${n}p`, p, MPU_PART_SIZE);

/**
 * One whole multipart upload: initiate, MPU_PARALLEL part uploads at a time, complete.
 * @param {BenchClient} client @param {string} key @param {number} n
 */
export async function multipartUpload(client, key, n) {
  const path = `/${BUCKET}/${key}`;
  const init = await client.request({ method: 'POST', path: `${path}?uploads`, keepBody: true });
  const uploadId = /<UploadId>([^<]+)<\/UploadId>/.exec(String(init.body))?.[1];
  if (!uploadId) throw new Error(`initiate ${key}: no UploadId in ${String(init.body).slice(0, 300)}`);
  const partCount = MPU_SIZE / MPU_PART_SIZE;
  /** @type {string[]} */ const etags = [];
  let next = 1;
  await Promise.all(
    Array.from({ length: MPU_PARALLEL }, async () => {
      while (next <= partCount) {
        const p = next++;
        const reply = await client.request({
          method: 'PUT',
          path: `${path}?partNumber=${p}&uploadId=${encodeURIComponent(uploadId)}`,
          body: partBody(n, p),
        });
        const etag = reply.headers.etag;
        if (!etag) throw new Error(`upload part ${p} of ${key}: no ETag`);
        etags[p - 1] = etag;
      }
    }),
  );
  const xml = `<CompleteMultipartUpload>${etags.map((e, i) => `<Part><PartNumber>${i + 1}</PartNumber><ETag>${e}</ETag></Part>`).join('')}</CompleteMultipartUpload>`;
  await client.request({
    method: 'POST',
    path: `${path}?uploadId=${encodeURIComponent(uploadId)}`,
    body: [Buffer.from(xml)],
  });
}

/** @param {{ durationMs: number }} o @returns {Scenario} */
function multipartScenario({ durationMs }) {
  return {
    name: `multipart-256m-p${MPU_PARALLEL}`,
    unit: 'MB/s',
    hasLatency: false,
    run: async (t) => {
      const client = new BenchClient({ baseUrl: t.baseUrl, concurrency: MPU_PARALLEL, sign: t.sign });
      try {
        /** @type {number[]} */ const done = [];
        const r = await runTimed({
          concurrency: 1,
          durationMs,
          warmupMs: 0,
          cpuSeconds: t.cpuSeconds,
          op: async () => {
            const n = t.state.seq++;
            await multipartUpload(client, `m/${n}`, n);
            done.push(n);
            return MPU_SIZE;
          },
        });
        // Read one completed upload per target back whole (untimed): parts must come back complete and in order.
        if (!t.state.multipartVerified) {
          const n = /** @type {number} */ (done[0]);
          const expected = Array.from({ length: MPU_SIZE / MPU_PART_SIZE }, (_, i) => partBody(n, i + 1)).flat();
          await client.request({
            method: 'GET',
            path: `/${BUCKET}/m/${n}`,
            sink: new ExpectBytes(expected, `${t.label} GET m/${n}`),
          });
          t.state.multipartVerified = true;
        }
        return r;
      } finally {
        client.close();
      }
    },
  };
}

/** @param {Target} t */
async function seedListBucket(t) {
  if (t.state.listSeeded) return;
  const client = new BenchClient({ baseUrl: t.baseUrl, concurrency: 64, sign: t.sign });
  try {
    let next = 0;
    await Promise.all(
      Array.from({ length: 64 }, async () => {
        while (next < LIST_KEYS) {
          const key = `k/${String(next++).padStart(5, '0')}`;
          await client.request({ method: 'PUT', path: `/${LIST_BUCKET}/${key}` });
        }
      }),
    );
    t.state.listSeeded = true;
  } finally {
    client.close();
  }
}

/** @param {{ durationMs: number, warmupMs: number }} o @returns {Scenario} */
function listScenario({ durationMs, warmupMs }) {
  return {
    name: `list-10k-p${LIST_PAGE}`,
    unit: 'pages/s',
    hasLatency: true,
    run: async (t) => {
      await seedListBucket(t);
      // One worker walks the bucket page by page; each full walk must see every key once, in ascending order.
      let token = '';
      let walked = 0;
      let lastKey = '';
      return withClient({
        t,
        concurrency: 1,
        durationMs,
        warmupMs,
        op: async (client) => {
          const query = `list-type=2&max-keys=${LIST_PAGE}${token ? `&continuation-token=${encodeURIComponent(token)}` : ''}`;
          const reply = await client.request({ method: 'GET', path: `/${LIST_BUCKET}?${query}`, keepBody: true });
          const xml = String(reply.body);
          const keys = Array.from(xml.matchAll(/<Key>([^<]*)<\/Key>/g), (m) => /** @type {string} */ (m[1]));
          if (keys.length > LIST_PAGE)
            throw new Error(`${t.label} list: page of ${keys.length} keys > max-keys ${LIST_PAGE}`);
          for (const key of keys) {
            if (key <= lastKey) throw new Error(`${t.label} list: key ${key} not after ${lastKey}`);
            lastKey = key;
          }
          walked += keys.length;
          if (xml.includes('<IsTruncated>true</IsTruncated>')) {
            token = /<NextContinuationToken>([^<]+)<\/NextContinuationToken>/.exec(xml)?.[1] ?? '';
            if (!token) throw new Error(`${t.label} list: truncated page without NextContinuationToken`);
          } else {
            if (walked !== LIST_KEYS)
              throw new Error(`${t.label} list: a full walk saw ${walked} keys, seeded ${LIST_KEYS}`);
            token = '';
            walked = 0;
            lastKey = '';
          }
          return 0;
        },
      });
    },
  };
}

/**
 * Every scenario in run order; each `run` is one timed round of `durationMs` (after `warmupMs` for the
 * scenarios with many short operations) on one target.
 * @param {{ durationMs: number, warmupMs: number }} timing @returns {Scenario[]}
 */
export function buildScenarios({ durationMs, warmupMs }) {
  return [
    ...[1, 16, 64].flatMap((concurrency) => smallScenarios({ concurrency, durationMs, warmupMs })),
    ...[1, 4].flatMap((concurrency) => largeScenarios({ concurrency, durationMs })),
    multipartScenario({ durationMs }),
    listScenario({ durationMs, warmupMs }),
  ];
}
