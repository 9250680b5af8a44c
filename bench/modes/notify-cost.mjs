// @ts-check
// `--notify-cost=webhook|redis|nats|amqp|mqtt|postgres|off|all`: the CPU one delivered bucket notification costs each
// Store thread, the message server and the client.

import { randomBytes } from 'node:crypto';
import { BenchClient } from '../client.mjs';
import { MESSAGE_KINDS, startMessageServer } from '../message-servers.mjs';
import { createTarget, putBucketNotification, startNotifyStores, statusLine, waitDrained } from '../notify-admin.mjs';
import { cpuSeconds, runOps, threadCpuDuring, treeCpuSeconds } from '../proc-stats.mjs';
import { cleanup, log } from '../servers.mjs';
import { startWebhookReceiver } from '../webhook-receiver.mjs';
import { BUCKET } from '../workloads.mjs';

/** @typedef {import('../options.mjs').Options} Options */

const WARMUP_PUTS = 1500;
/** How long the queue may take to drain after the last PUT before the run fails. */
const DRAIN_TIMEOUT_MS = 120_000;

/**
 * What a bucket notification costs, thread by thread (bench/README.md, "--notify-cost"): one Store with one target
 * of the kind referenced for `s3:ObjectCreated:*` on the bench bucket, 1,500 PUTs of 4 KiB at concurrency 16 to warm
 * up (and drained), then `--puts` more; the measurement ends when the target has delivered them all (polled, not a
 * fixed sleep). `off`: no target. `all`: off, then every kind in turn. Linux only (/proc).
 * @param {Options} opts
 */
export async function notifyCostMode(opts) {
  const kinds = opts.notifyCost === 'all' ? ['off', 'webhook', ...MESSAGE_KINDS] : [opts.notifyCost];
  for (const kind of kinds) {
    try {
      console.log(await costRun(opts, kind));
    } finally {
      await cleanup();
    }
  }
}

/**
 * The message server (or webhook receiver) of `kind`, started; undefined for off.
 * @param {string} kind @param {string} tmpDir
 */
async function startSink(kind, tmpDir) {
  if (kind === 'off') return undefined;
  if (kind === 'webhook') {
    const receiver = await startWebhookReceiver();
    const count = async () => (await receiver.stats()).deliveries;
    return { pid: receiver.pid, config: { endpoint: receiver.url }, count, close: receiver.close, cpu: cpuSeconds };
  }
  const server = await startMessageServer(/** @type {typeof MESSAGE_KINDS[number]} */ (kind), tmpDir);
  return { ...server, close: async () => undefined, cpu: treeCpuSeconds };
}

/** One run of one kind; resolves to its line. @param {Options} opts @param {string} kind */
async function costRun(opts, kind) {
  const sink = await startSink(kind, opts.tmpDir);
  try {
    const [{ server: store, target, admin }] = /** @type {Awaited<ReturnType<typeof startNotifyStores>>} */ (
      await startNotifyStores(opts, [`Store (${kind})`])
    );
    const id = `bench-${kind}`;
    if (sink) {
      const arn = await createTarget(admin, { id, kind, config: sink.config });
      await putBucketNotification(target, [{ arn }]);
    }
    // The configuration's s3:TestEvent is one delivery more.
    const drained = async (/** @type {number} */ puts) =>
      sink ? waitDrained(admin, { [id]: puts + 1 }, DRAIN_TIMEOUT_MS) : undefined;
    const client = new BenchClient({ baseUrl: store.baseUrl, concurrency: 16, sign: target.sign });
    const body = randomBytes(4096);
    let seq = 0;
    const put = (/** @type {number} */ n) =>
      runOps(16, n, () => client.request({ method: 'PUT', path: `/${BUCKET}/cost-${seq++}`, body: [body] }));
    await put(WARMUP_PUTS);
    const warm = await drained(WARMUP_PUTS);
    if (warm && !warm.drained) throw new Error(`warm-up did not drain: ${statusLine(warm.items)}`);
    const sinkBefore = sink ? sink.cpu(sink.pid) : 0;
    let putSeconds = 0;
    let drainMs = 0;
    /** @type {Awaited<ReturnType<typeof drained>>} */ let end;
    const cost = await threadCpuDuring(store.pid, async () => {
      const startedAt = Date.now();
      await put(opts.puts);
      putSeconds = (Date.now() - startedAt) / 1000;
      end = await drained(WARMUP_PUTS + opts.puts);
      drainMs = end?.ms ?? 0;
    });
    const sinkCpu = sink ? sink.cpu(sink.pid) - sinkBefore : NaN;
    client.close();
    const per = (/** @type {number} */ cpu) => ((cpu * 1000) / opts.puts).toFixed(3);
    const head = `${kind}: ${(opts.puts / putSeconds).toFixed(0)} PUT/s`;
    if (!sink || !end) {
      const threads = cost.threads.map(([name, cpu]) => `${name} ${per(cpu)}`).join(', ');
      return `${head}; ms of CPU per PUT: Store ${per(cost.total)} (${threads}); client ${per(cost.clientSeconds)}`;
    }
    const s = end.items.find((t) => t.id === id)?.status;
    const held = await sink.count();
    if (!end.drained) log(`warning: ${kind} did not drain in ${DRAIN_TIMEOUT_MS / 1000} s: ${statusLine(end.items)}`);
    const threads = cost.threads.map(([name, cpu]) => `${name} ${per(cpu)}`).join(', ');
    return (
      `${head}, drained ${drainMs} ms after the last PUT; ms of CPU per delivered event: Store ${per(cost.total)} ` +
      `(${threads}); ${kind === 'webhook' ? 'receiver' : `${kind} server`} ${per(sinkCpu)}; ` +
      `client ${per(cost.clientSeconds)}; delivered ${s?.delivered} of ${WARMUP_PUTS + opts.puts + 1}, ` +
      `dead-lettered ${s?.failed}, the server holds ${held ?? 'n/a'}`
    );
  } finally {
    await sink?.close();
  }
}
