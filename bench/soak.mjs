// @ts-check
// The soak run (`npm run soak`, or `--soak=SECONDS` of bench/run.mjs): a mixed workload against Store alone, with
// its resident memory and open file descriptors sampled every few seconds, to show that neither grows under
// sustained use. Also driven for a short run by test/fault/soak.test.ts (types in soak.d.mts).
import { randomBytes, randomInt } from 'node:crypto';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { BenchClient } from './client.mjs';

const CONCURRENCY = 16;
const KEYS = 4000;
const SMALL = randomBytes(4096);
const MEDIUM = randomBytes(256 * 1024);
const PART = randomBytes(300 * 1024);

/** Current resident set size of a process in KiB (VmRSS). @param {number} pid */
export function rssKiB(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) : NaN;
}

/**
 * Open file descriptors of a process (files, sockets, pipes, eventfds: everything in /proc/<pid>/fd). @param {number}
 * pid
 */
export function fdCount(pid) {
  return readdirSync(`/proc/${pid}/fd`).length;
}

/**
 * The open file descriptors that requests can leak, by kind: sockets (connections, the listener) and files other
 * than the metadata database's (blobs, staging files, backups). The rest (the database's own files, pipes, eventfds,
 * epoll instances) belong to the event loop and to threads the server starts on first use (the checkpointer, the
 * MD5 pool): they appear once, the first time the load needs them, and stay; they are not a leak.
 * @param {number} pid
 */
export function requestFds(pid) {
  let sockets = 0;
  let files = 0;
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    let target;
    try {
      target = readlinkSync(`/proc/${pid}/fd/${fd}`);
    } catch {
      continue; // closed between the listing and the read
    }
    if (target.startsWith('socket:')) sockets++;
    else if (target.startsWith('/') && !/\/meta\.db(-wal|-shm|-journal)?$/.test(target)) files++;
  }
  return { sockets, files };
}

/** @param {number} pid */
const idleLevel = (pid) => ({ rssMiB: rssKiB(pid) / 1024, fds: fdCount(pid), ...requestFds(pid) });

/**
 * A 404 (a key not written yet, or deleted) is a fine answer to a read; anything else fails the run. @param {unknown}
 * err
 */
const allow404 = (err) => {
  if (!String(err).includes('-> 404')) throw err;
};

/**
 * One multipart upload of one part: create, upload, complete (the part and upload rows, the completion path).
 * @param {BenchClient} client @param {string} path
 */
async function multipart(client, path) {
  const created = await client.request({ method: 'POST', path: `${path}?uploads`, keepBody: true });
  const uploadId = /<UploadId>([^<]+)<\/UploadId>/.exec(String(created.body))?.[1];
  if (!uploadId) throw new Error('CreateMultipartUpload answered no UploadId');
  const part = await client.request({ method: 'PUT', path: `${path}?partNumber=1&uploadId=${uploadId}`, body: [PART] });
  const xml = `<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>${part.headers.etag}</ETag></Part></CompleteMultipartUpload>`;
  await client.request({ method: 'POST', path: `${path}?uploadId=${uploadId}`, body: [Buffer.from(xml)] });
}

/**
 * One op of the mix: 36% 4 KiB PUT, 5% 256 KiB PUT, 28% GET, 9% HEAD, 5% DELETE, 5% ListObjectsV2 page of 100, 5%
 * overwrite of one hot key, 3% CopyObject, 2% PutObjectTagging, 2% multipart upload (one 300 KiB part). Keys come
 * from a fixed pool, so the data set stays bounded while every path (insert, overwrite, delete, blob GC) keeps
 * running. A read of a key not written yet (or deleted) may answer 404; any other failure fails the run.
 * @param {BenchClient} client @param {string} bucket
 */
async function oneOp(client, bucket) {
  const key = `soak/${String(randomInt(KEYS)).padStart(5, '0')}`;
  const path = `/${bucket}/${key}`;
  const dice = randomInt(100);
  if (dice < 36) await client.request({ method: 'PUT', path, body: [SMALL] });
  else if (dice < 41) await client.request({ method: 'PUT', path, body: [MEDIUM] });
  else if (dice < 69) await client.request({ method: 'GET', path }).catch(allow404);
  else if (dice < 78) await client.request({ method: 'HEAD', path }).catch(allow404);
  else if (dice < 83) await client.request({ method: 'DELETE', path, expectStatus: 204 });
  else if (dice < 88) {
    await client.request({
      method: 'GET',
      path: `/${bucket}?list-type=2&prefix=soak/&max-keys=100&start-after=${encodeURIComponent(key)}`,
    });
  } else if (dice < 93) await client.request({ method: 'PUT', path: `/${bucket}/soak/hot`, body: [SMALL] });
  else if (dice < 96) {
    await client
      .request({ method: 'PUT', path: `${path}-copy`, headers: { 'x-amz-copy-source': `/${bucket}/soak/hot` } })
      .catch(allow404);
  } else if (dice < 98) {
    const xml = `<Tagging><TagSet><Tag><Key>soak</Key><Value>${randomInt(1000)}</Value></Tag></TagSet></Tagging>`;
    await client.request({ method: 'PUT', path: `${path}?tagging`, body: [Buffer.from(xml)] }).catch(allow404);
  } else await multipart(client, path);
}

/**
 * @typedef {{ t: number, rssMiB: number, fds: number, ops: number, opsPerSecond: number }} SoakSample
 * @typedef {{ rssMiB: number, fds: number }} Level
 */

/** Mean RSS and fds of some samples. @param {SoakSample[]} xs @returns {Level} */
function levelOf(xs) {
  const n = Math.max(1, xs.length);
  return { rssMiB: xs.reduce((a, s) => a + s.rssMiB, 0) / n, fds: xs.reduce((a, s) => a + s.fds, 0) / n };
}

/**
 * Runs the mix for `seconds` and samples RSS, open fds and the operations done so far every `sampleMs`. The verdict
 * compares the first third of the run after warm-up (default the first fifth: caches, pools, the WAL and the V8 heap
 * filling) with the last third: growth should be about zero. `idleBefore` is measured before the load, `idleAfter`
 * once the client's
 * connections are closed and `settleMs` have passed: the sockets and files (requestFds) must come back to where they
 * started; the total may be higher by the threads the load started.
 * @param {{ baseUrl: string, sign: import('./client.mjs').Signer, pid: number, bucket: string, seconds: number,
 *   log: (m: string) => void, sampleMs?: number, settleMs?: number, warmUpSeconds?: number }} o
 */
export async function runSoak({ baseUrl, sign, pid, bucket, seconds, log, sampleMs, settleMs = 5000, warmUpSeconds }) {
  const client = new BenchClient({ baseUrl, concurrency: CONCURRENCY, sign });
  const idleBefore = idleLevel(pid);
  /** @type {SoakSample[]} */ const samples = [];
  const t0 = Date.now();
  const end = t0 + seconds * 1000;
  let ops = 0;
  let lastOps = 0;
  let lastT = 0;
  const every = sampleMs ?? Math.min(5000, (seconds * 1000) / 30);
  const sampler = setInterval(() => {
    const t = (Date.now() - t0) / 1000;
    const s = {
      t,
      rssMiB: rssKiB(pid) / 1024,
      fds: fdCount(pid),
      ops,
      opsPerSecond: (ops - lastOps) / Math.max(0.001, t - lastT),
    };
    lastOps = ops;
    lastT = t;
    samples.push(s);
    if (Math.floor(t / 60) !== Math.floor((t - every / 1000) / 60)) {
      log(
        `soak ${t.toFixed(0)} s: RSS ${s.rssMiB.toFixed(0)} MiB, ${s.fds} fds, ${ops} ops (${s.opsPerSecond.toFixed(0)}/s)`,
      );
    }
  }, every);
  try {
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (Date.now() < end) {
          await oneOp(client, bucket);
          ops++;
        }
      }),
    );
  } finally {
    clearInterval(sampler);
    client.close();
  }
  await sleep(settleMs);
  const idleAfter = idleLevel(pid);
  const warmUp = warmUpSeconds ?? seconds / 5;
  const third = (seconds - warmUp) / 3;
  const early = levelOf(samples.filter((s) => s.t >= warmUp && s.t < warmUp + third));
  const late = levelOf(samples.filter((s) => s.t >= seconds - third));
  return {
    ops,
    opsPerSecond: ops / seconds,
    samples,
    idleBefore,
    idleAfter,
    early,
    late,
    growthMiB: late.rssMiB - early.rssMiB,
    fdGrowth: late.fds - early.fds,
    peakMiB: Math.max(...samples.map((s) => s.rssMiB)),
    peakFds: Math.max(...samples.map((s) => s.fds)),
  };
}

/**
 * The curve by minute: mean RSS, mean and peak fds, and the operation rate of each minute.
 * @param {SoakSample[]} samples
 */
export function byMinute(samples) {
  /** @type {Map<number, SoakSample[]>} */ const minutes = new Map();
  for (const s of samples) {
    const m = Math.floor(s.t / 60);
    minutes.set(m, [...(minutes.get(m) ?? []), s]);
  }
  return [...minutes].map(([minute, xs]) => ({
    minute: minute + 1,
    rssMiB: Number(levelOf(xs).rssMiB.toFixed(1)),
    fds: Number(levelOf(xs).fds.toFixed(1)),
    peakFds: Math.max(...xs.map((s) => s.fds)),
    opsPerSecond: Math.round(xs.reduce((a, s) => a + s.opsPerSecond, 0) / xs.length),
  }));
}

/** The samples as CSV: t_s,rss_mib,fds,ops,ops_per_s. @param {SoakSample[]} samples */
export function samplesCsv(samples) {
  const rows = samples.map(
    (s) => `${s.t.toFixed(1)},${s.rssMiB.toFixed(1)},${s.fds},${s.ops},${s.opsPerSecond.toFixed(1)}`,
  );
  return `t_s,rss_mib,fds,ops,ops_per_s\n${rows.join('\n')}\n`;
}
