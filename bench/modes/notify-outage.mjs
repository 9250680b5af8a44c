// @ts-check
// `--notify-outage[=SECONDS]`: 4 KiB PUTs through a webhook target's outage (up, down, back), then the drain.

import { randomBytes } from 'node:crypto';
import { BenchClient, summarizeLatencies } from '../client.mjs';
import {
  createTarget,
  notificationMetrics,
  putBucketNotification,
  startNotifyStores,
  statusLine,
  targetStatus,
  waitDrained,
} from '../notify-admin.mjs';
import { runOps } from '../proc-stats.mjs';
import { cleanup, log } from '../servers.mjs';
import { startWebhookReceiver } from '../webhook-receiver.mjs';
import { BUCKET } from '../workloads.mjs';

/** @typedef {import('../options.mjs').Options} Options */

const PHASES = ['target up', 'target down', 'target back'];
const CONCURRENCY = 16;
const WARMUP_PUTS = 1500;

/**
 * What a webhook target's outage does to writes and to delivery (bench/README.md, "--notify-outage"): one Store
 * with a webhook target (the bench's receiver) for `s3:ObjectCreated:*`, 1,500 PUTs to warm up (drained), then 4 KiB
 * PUTs at concurrency 16 without pause through three phases of `--notify-outage` seconds: the receiver up, stopped
 * (connection refused), and a new one on the same port. Per phase: PUT/s and p50/p99 (each PUT counted in the phase
 * it started in) and the queue at its end. Then: how long the queue takes to drain, delivered against the PUT count,
 * the dead-lettered count, the target's status and Store's store_notification_* metrics.
 * @param {Options} opts
 */
export async function notifyOutageMode(opts) {
  let receiver = await startWebhookReceiver();
  try {
    const port = Number(new URL(receiver.url).port);
    const [{ server: store, target, admin }] = /** @type {Awaited<ReturnType<typeof startNotifyStores>>} */ (
      await startNotifyStores(opts, ['Store'])
    );
    const id = 'bench-webhook';
    await putBucketNotification(target, [
      { arn: await createTarget(admin, { id, kind: 'webhook', config: { endpoint: receiver.url } }) },
    ]);
    const client = new BenchClient({ baseUrl: store.baseUrl, concurrency: CONCURRENCY, sign: target.sign });
    const body = randomBytes(4096);
    let seq = 0;
    await runOps(CONCURRENCY, WARMUP_PUTS, () =>
      client.request({ method: 'PUT', path: `/${BUCKET}/w-${seq++}`, body: [body] }),
    );
    const warm = await waitDrained(admin, { [id]: WARMUP_PUTS + 1 }, 120_000);
    if (!warm.drained) throw new Error(`warm-up did not drain: ${statusLine(warm.items)}`);
    const phaseMs = opts.notifyOutage * 1000;
    /** @type {number[][]} */ const latencies = PHASES.map(() => []);
    /** @type {string[]} */ const queueAtEnd = [];
    const t0 = performance.now();
    const worker = async () => {
      for (let start = performance.now(); start < t0 + 3 * phaseMs; start = performance.now()) {
        await client.request({ method: 'PUT', path: `/${BUCKET}/o-${seq++}`, body: [body] });
        latencies[Math.floor((start - t0) / phaseMs)]?.push(performance.now() - start);
      }
    };
    const phaseEnd = async (/** @type {number} */ i) => {
      await new Promise((r) => setTimeout(r, Math.max(0, t0 + (i + 1) * phaseMs - performance.now())));
      const s = (await targetStatus(admin)).find((t) => t.id === id)?.status;
      queueAtEnd[i] =
        `queued ${s?.queued}, delivered ${s?.delivered}, dead-lettered ${s?.failed}, lastErrorClass ${s?.lastErrorClass}`;
    };
    /** What the first receiver got before it was stopped. */
    let before = { requests: 0, deliveries: 0 };
    const outage = async () => {
      await phaseEnd(0);
      before = await receiver.stop();
      await phaseEnd(1);
      receiver = await startWebhookReceiver(port);
      await phaseEnd(2);
    };
    await Promise.all([outage(), ...Array.from({ length: CONCURRENCY }, worker)]);
    client.close();
    const puts = latencies.reduce((n, l) => n + l.length, 0);
    for (const [i, l] of latencies.entries()) {
      const { p50, p99 } = summarizeLatencies(l);
      console.log(
        `${PHASES[i]}: ${(l.length / opts.notifyOutage).toFixed(0)} PUT/s, p50 ${p50.toFixed(2)} ms, ` +
          `p99 ${p99.toFixed(2)} ms; at its end ${queueAtEnd[i]}`,
      );
    }
    // The backlog of three phases goes out at the target's delivery rate, which can be far below the PUT rate.
    const drainLimitMs = Math.max(600, 20 * opts.notifyOutage) * 1000;
    const end = await waitDrained(admin, { [id]: WARMUP_PUTS + puts + 1 }, drainLimitMs);
    const s = end.items.find((t) => t.id === id)?.status;
    const after = await receiver.stats();
    console.log(
      `${end.drained ? `drained ${end.ms} ms` : `NOT drained after ${end.ms} ms`} after the last phase; ` +
        `delivered ${s?.delivered} of ${WARMUP_PUTS} + ${puts} PUTs + 1 test event; dead-lettered ${s?.failed}` +
        `${s?.delivered === WARMUP_PUTS + puts + 1 && s?.failed === 0 ? ' (nothing lost)' : ' (NOT all delivered)'}`,
    );
    console.log(`status: ${statusLine(end.items)}, oldestPendingAgeSeconds ${s?.oldestPendingAgeSeconds}`);
    console.log(
      `receiver: ${before.deliveries} distinct deliveries (${before.requests} requests) before the outage ` +
        `(warm-up included), ${after.deliveries} (${after.requests}) after it: ${before.deliveries + after.deliveries} ` +
        `of ${WARMUP_PUTS + puts + 1}`,
    );
    console.log(`metrics right after the drain:\n  ${(await notificationMetrics(store.baseUrl)).join('\n  ')}`);
    // store_notification_queue is a snapshot taken at most once a second after a dispatcher pass.
    await new Promise((r) => setTimeout(r, 2500));
    const later = (await notificationMetrics(store.baseUrl)).filter((l) => l.startsWith('store_notification_queue'));
    console.log(`2.5 s later:\n  ${later.join('\n  ')}`);
    if (!end.drained) log(`warning: the queue did not drain: ${statusLine(end.items)}`);
  } finally {
    await receiver.close();
    await cleanup();
  }
}
