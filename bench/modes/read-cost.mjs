// @ts-check
// `--read-cost=HEAD|GET|PUT`: the CPU one small read (or a PUT of a new key) costs each Store thread.

import { randomBytes } from 'node:crypto';
import { BenchClient } from '../client.mjs';
import { runOps, threadCpuDuring } from '../proc-stats.mjs';
import { cleanup } from '../servers.mjs';
import { startSoloStore } from '../stores.mjs';
import { BUCKET } from '../workloads.mjs';

/** @typedef {import('../options.mjs').Options} Options */

/**
 * What one small read costs Store, thread by thread (`--read-cost=HEAD|GET`; docs/performance.md, "the per-request CPU
 * of a HEAD"): one Store, 256 objects of `--read-size` bytes (default 4 KiB, stored inline; above 64 KiB they are
 * files), 5,000 reads at concurrency 16 to warm up, then `--ops` more, and the CPU per read of each Store thread
 * (`main` is the event loop) and of this client. A HEAD at c16 is all per-request CPU on the event loop, and this
 * separates two builds where the benchmark's ratio cannot: alternate `--store-cmd` between them on a quiet machine and
 * compare within a pair. `PUT` writes new keys of `--read-size` bytes instead (a write's cost, the same way). Linux
 * only (/proc).
 * @param {Options} opts
 */
export async function readCostMode(opts) {
  const KEYS = 256;
  const SIZE = opts.readSize;
  try {
    const { store, sign } = await startSoloStore(opts);
    const client = new BenchClient({ baseUrl: store.baseUrl, concurrency: 16, sign });
    const body = randomBytes(SIZE);
    await runOps(16, KEYS, (k) => client.request({ method: 'PUT', path: `/${BUCKET}/cost-${k}`, body: [body] }));
    const expectedBytes = opts.readCost === 'GET' ? SIZE : 0;
    let seq = 0;
    const put = (/** @type {number} */ n) =>
      runOps(16, n, () => client.request({ method: 'PUT', path: `/${BUCKET}/new-${seq++}`, body: [body] }));
    const read = (/** @type {number} */ n) =>
      opts.readCost === 'PUT'
        ? put(n)
        : runOps(16, n, async (i) => {
            const key = `cost-${i % KEYS}`;
            const reply = await client.request({ method: opts.readCost, path: `/${BUCKET}/${key}` });
            if (reply.bytes !== expectedBytes || reply.headers['content-length'] !== String(SIZE)) {
              throw new Error(
                `${opts.readCost} ${key}: ${reply.bytes} bytes, content-length ${reply.headers['content-length']}`,
              );
            }
          });
    await read(5000);
    const cost = await threadCpuDuring(store.pid, () => read(opts.ops));
    const perRead = (/** @type {number} */ cpu) => ((cpu * 1e6) / opts.ops).toFixed(1);
    client.close();
    console.log(
      `${opts.readCost} ${SIZE} B c16: ${(opts.ops / cost.seconds).toFixed(0)}/s; µs of CPU per ${opts.readCost}: Store ${perRead(cost.total)} ` +
        `(${cost.threads.map(([name, cpu]) => `${name} ${perRead(cpu)}`).join(', ')}); client ${perRead(cost.clientSeconds)}`,
    );
  } finally {
    await cleanup();
  }
}
