// @ts-check
// `--download-cost=<concurrency>`: the CPU per MB of 64 MiB GETs, by Store thread, and the peak RSS.

import { BenchClient } from '../client.mjs';
import { costPerMb, runOps, threadCpuDuring } from '../proc-stats.mjs';
import { cleanup } from '../servers.mjs';
import { startSoloStore } from '../stores.mjs';
import { BUCKET, largePut, UPLOAD_BYTES } from '../workloads.mjs';

/** @typedef {import('../options.mjs').Options} Options */

/**
 * What large downloads cost Store, thread by thread (`--download-cost=<concurrency>`; docs/performance.md, "Large GETs:
 * measured and left"): one Store holding `concurrency` objects of 64 MiB, one GET of each to warm up, then
 * `--downloads` more GETs kept `concurrency` in flight (as get-64m-c1 and get-64m-c4, each body's length checked).
 * Prints MB/s, the ms of CPU per MB of each Store thread and of this client, and Store's peak RSS. CPU per MB separates
 * two builds where MB/s, which follows the machine's other work, cannot. Linux only (/proc).
 * @param {Options} opts
 */
export async function downloadCostMode(opts) {
  const concurrency = opts.downloadCost;
  const size = UPLOAD_BYTES.put;
  try {
    const { store, sign } = await startSoloStore(opts);
    const client = new BenchClient({ baseUrl: store.baseUrl, concurrency, sign });
    await Promise.all(Array.from({ length: concurrency }, (_, n) => largePut(client, n)));
    const download = (/** @type {number} */ n) =>
      runOps(concurrency, n, async (i) => {
        const reply = await client.request({ method: 'GET', path: `/${BUCKET}/l/${i % concurrency}` });
        if (reply.bytes !== size) throw new Error(`GET l/${i % concurrency}: ${reply.bytes} bytes, wrote ${size}`);
      });
    await download(concurrency);
    const cost = await threadCpuDuring(store.pid, () => download(opts.downloads));
    client.close();
    console.log(costPerMb(`GET 64 MiB c${concurrency}`, { bytes: opts.downloads * size, cost, pid: store.pid }));
  } finally {
    await cleanup();
  }
}
