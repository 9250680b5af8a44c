// @ts-check
// The soak run (`--soak=SECONDS`, 600 for the 10 minutes): a mixed workload against Store alone, with its
// resident memory sampled every few seconds, to show that memory does not grow under sustained use.
import { randomBytes, randomInt } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { BenchClient } from './client.mjs';

const CONCURRENCY = 16;
const KEYS = 4000;
const SMALL = randomBytes(4096);
const MEDIUM = randomBytes(256 * 1024);

/** Current resident set size of a process in KiB (VmRSS). @param {number} pid */
export function rssKiB(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) : NaN;
}

/**
 * One op of the mix: 40% 4 KiB PUT, 5% 256 KiB PUT, 30% GET, 10% HEAD, 5% DELETE, 5% ListObjectsV2 page of 100,
 * 5% overwrite of one hot key. Keys come from a fixed pool, so the data set stays bounded while
 * every path (insert, overwrite, delete, blob GC) keeps running. A read of a key not written yet (or deleted) may
 * answer 404; any other failure fails the run.
 * @param {BenchClient} client @param {string} bucket
 */
async function oneOp(client, bucket) {
  const key = `soak/${String(randomInt(KEYS)).padStart(5, '0')}`;
  const path = `/${bucket}/${key}`;
  const dice = randomInt(100);
  if (dice < 40 || dice >= 95) {
    await client.request({ method: 'PUT', path: dice >= 95 ? `/${bucket}/soak/hot` : path, body: [SMALL] });
  } else if (dice < 45) {
    await client.request({ method: 'PUT', path, body: [MEDIUM] });
  } else if (dice < 75) {
    await client.request({ method: 'GET', path }).catch((err) => {
      if (!String(err).includes('-> 404')) throw err; // not written yet, or deleted: fine
    });
  } else if (dice < 85) {
    await client.request({ method: 'HEAD', path }).catch((err) => {
      if (!String(err).includes('-> 404')) throw err;
    });
  } else if (dice < 90) {
    await client.request({ method: 'DELETE', path, expectStatus: 204 });
  } else {
    await client.request({ method: 'GET', path: `/${bucket}?list-type=2&prefix=soak/&max-keys=100&start-after=${encodeURIComponent(key)}` });
  }
}

/**
 * Runs the mix for `seconds` and samples RSS. Returns the samples and a verdict: growth is the mean RSS of the last
 * fifth of the run minus that of the second fifth (the first fifth is warm-up: caches and pools filling).
 * @param {{ baseUrl: string, sign: import('./client.mjs').Signer, pid: number, bucket: string, seconds: number, log: (m: string) => void }} o
 */
export async function runSoak({ baseUrl, sign, pid, bucket, seconds, log }) {
  const client = new BenchClient({ baseUrl, concurrency: CONCURRENCY, sign });
  /** @type {{ t: number, rssMiB: number }[]} */ const samples = [];
  const t0 = Date.now();
  const end = t0 + seconds * 1000;
  let ops = 0;
  const sampleMs = Math.min(5000, (seconds * 1000) / 25); // at least five samples in every fifth of the run
  const sampler = setInterval(() => {
    const s = { t: (Date.now() - t0) / 1000, rssMiB: rssKiB(pid) / 1024 };
    samples.push(s);
    if (s.t % 60 < sampleMs / 1000) log(`soak ${s.t.toFixed(0)} s: RSS ${s.rssMiB.toFixed(0)} MiB, ${ops} ops`);
  }, sampleMs);
  try {
    await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
      while (Date.now() < end) {
        await oneOp(client, bucket);
        ops++;
      }
    }));
  } finally {
    clearInterval(sampler);
    client.close();
  }
  const fifth = (/** @type {number} */ i) => samples.filter((s) => s.t >= (seconds * i) / 5 && s.t < (seconds * (i + 1)) / 5);
  const mean = (/** @type {{ rssMiB: number }[]} */ xs) => xs.reduce((a, s) => a + s.rssMiB, 0) / Math.max(1, xs.length);
  const early = mean(fifth(1));
  const late = mean(fifth(4));
  const peak = Math.max(...samples.map((s) => s.rssMiB));
  return { ops, opsPerSecond: ops / seconds, samples, earlyMiB: early, lateMiB: late, growthMiB: late - early, peakMiB: peak };
}
