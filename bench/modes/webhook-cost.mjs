// @ts-check
// `--webhook-cost=on|off|external`: the CPU a 4 KiB PUT costs each Store thread with webhooks on, off, or elsewhere.

import { randomBytes } from 'node:crypto';
import { BenchClient } from '../client.mjs';
import { cpuSeconds, runOps, threadCpuDuring } from '../proc-stats.mjs';
import { base64url40, cleanup } from '../servers.mjs';
import { startSoloStore } from '../stores.mjs';
import { startExternalSender, startWebhookReceiver } from '../webhook-receiver.mjs';
import { BUCKET } from '../workloads.mjs';

/** @typedef {import('../options.mjs').Options} Options */

/**
 * What webhooks cost a 4 KiB PUT, thread by thread (`--webhook-cost=on|off|external`; docs/performance.md, "Webhooks"):
 * one Store and a receiver, 1,500 PUTs at concurrency 16 to warm up, then `--puts` more, and the CPU per PUT of each
 * Store thread (`main` is the event loop), of the receiver and of this client. `on`: every PUT is delivered to the
 * receiver. `off`: webhooks off. `external`: webhooks off while a separate process POSTs event-sized signed requests to
 * the receiver at `--rate` per second, i.e. what deliveries cost the machine when they cost Store nothing. Alternate
 * the modes in pairs on a quiet machine and compare within a pair. Linux only (/proc).
 * @param {Options} opts
 */
export async function webhookCostMode(opts) {
  const receiver = await startWebhookReceiver();
  /** @type {{ close: () => Promise<void> } | undefined} */
  let sender;
  try {
    const { store, sign } = await startSoloStore(
      opts,
      opts.webhookCost === 'on' ? { WEBHOOK_URL: receiver.url, WEBHOOK_SECRET: base64url40() } : {},
    );
    const client = new BenchClient({ baseUrl: store.baseUrl, concurrency: 16, sign });
    const body = randomBytes(4096);
    let seq = 0;
    const put = (/** @type {number} */ n) =>
      runOps(16, n, () => client.request({ method: 'PUT', path: `/${BUCKET}/cost-${seq++}`, body: [body] }));
    await put(1500);
    if (opts.webhookCost === 'external') sender = startExternalSender(receiver.url, opts.rate);
    await new Promise((r) => setTimeout(r, 1000));
    const receiverBefore = cpuSeconds(receiver.pid);
    let putSeconds = 0;
    const cost = await threadCpuDuring(store.pid, async () => {
      const startedAt = Date.now();
      await put(opts.puts);
      putSeconds = (Date.now() - startedAt) / 1000;
      await new Promise((r) => setTimeout(r, 1500)); // deliveries still in flight count too
    });
    const perPut = (/** @type {number} */ cpu) => ((cpu * 1000) / opts.puts).toFixed(3);
    client.close();
    console.log(
      `${opts.webhookCost}${opts.webhookCost === 'external' ? ` (${opts.rate}/s)` : ''}: ${(opts.puts / putSeconds).toFixed(0)} PUT/s; ` +
        `ms of CPU per PUT: Store ${perPut(cost.total)} (${cost.threads.map(([name, cpu]) => `${name} ${perPut(cpu)}`).join(', ')}); ` +
        `receiver ${perPut(cpuSeconds(receiver.pid) - receiverBefore)}; client ${perPut(cost.clientSeconds)}`,
    );
  } finally {
    await sender?.close();
    await receiver.close();
    await cleanup();
  }
}
