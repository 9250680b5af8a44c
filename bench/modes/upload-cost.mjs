// @ts-check
// `--upload-cost=put|multipart`: the CPU per MB of large uploads, by Store thread, and the peak RSS.

import { BenchClient } from '../client.mjs';
import { costPerMb, threadCpuDuring } from '../proc-stats.mjs';
import { cleanup } from '../servers.mjs';
import { startSoloStore } from '../stores.mjs';
import { largePut, multipartUpload, UPLOAD_BYTES } from '../workloads.mjs';

/** @typedef {import('../options.mjs').Options} Options */

/**
 * What large uploads cost Store, thread by thread (`--upload-cost=put|multipart`; docs/performance.md, "multipart
 * uploads were paying for full GCs"): one Store, one upload to warm up, then `--uploads` more, each either four 64 MiB
 * PUTs at once (`put`, as put-64m-c4) or one 256 MiB multipart upload of 16 MiB parts, four in flight (`multipart`, as
 * multipart-256m-p4). Prints MB/s, the ms of CPU per MB of each Store thread (`main` is the event loop; the V8 platform
 * threads are the garbage collector's helpers) and of this client, and Store's peak RSS. Alternate `--store-cmd`
 * between two builds on a quiet machine and compare within a pair. Linux only (/proc).
 * @param {Options} opts
 */
export async function uploadCostMode(opts) {
  try {
    const { store, sign } = await startSoloStore(opts);
    const client = new BenchClient({ baseUrl: store.baseUrl, concurrency: 4, sign });
    let seq = 0;
    /** One upload of the chosen kind; resolves to the bytes it sent. */
    const upload = async () => {
      if (opts.uploadCost === 'multipart') {
        await multipartUpload(client, `m/${seq}`, seq++);
        return UPLOAD_BYTES.multipart;
      }
      await Promise.all(Array.from({ length: 4 }, () => largePut(client, seq++)));
      return 4 * UPLOAD_BYTES.put;
    };
    await upload();
    let bytes = 0;
    const cost = await threadCpuDuring(store.pid, async () => {
      for (let i = 0; i < opts.uploads; i++) bytes += await upload();
    });
    client.close();
    console.log(costPerMb(opts.uploadCost, { bytes, cost, pid: store.pid }));
  } finally {
    await cleanup();
  }
}
