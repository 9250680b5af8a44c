// @ts-check
// `npm run bench` (and --webhooks, --webhooks-ab): Store against the floor and, in a full run, s3rver, scenario by
// scenario (bench/workloads.mjs), the table printed and the results written under bench/results/.

import os from 'node:os';
import path from 'node:path';
import { createSigner, stubSignRequest } from '../client.mjs';
import { peakRssKiB } from '../proc-stats.mjs';
import { formatTable, ratioOf, writeResults } from '../report.mjs';
import { roundOrder, SECONDS_PER_SIDE } from '../rounds.mjs';
import {
  BENCH_DIR,
  FLOOR_CMD,
  REPO_DIR,
  S3RVER_CMD,
  S3RVER_CREDENTIALS,
  accessKeyId20,
  base64url40,
  log,
} from '../servers.mjs';
import { chooseSignRequest, prepareTarget, startServers, startStorePair } from '../stores.mjs';
import { startWebhookReceiver } from '../webhook-receiver.mjs';
import { buildScenarios, combineRounds } from '../workloads.mjs';

/** @typedef {import('../options.mjs').Options} Options */

/**
 * @typedef {import('../workloads.mjs').Target} Target
 * @typedef {import('../workloads.mjs').Scenario} Scenario
 * @typedef {import('../workloads.mjs').Round} Round
 * @typedef {import('../workloads.mjs').ScenarioResult} ScenarioResult
 */

/**
 * The default run: every scenario (or those --only names) on Store and the floor (and s3rver in a full run), rounds
 * alternating; prints the table and writes bench/results/<timestamp>.json and latest.json.
 * @param {Options} opts
 */
export async function compareMode(opts) {
  const perSideMs = 1000 * (opts.quick ? SECONDS_PER_SIDE.quick : SECONDS_PER_SIDE.full);
  const all = buildScenarios({ durationMs: perSideMs / opts.rounds, warmupMs: opts.quick ? 100 : 300 });
  const scenarios = opts.only.length ? all.filter((s) => opts.only.some((f) => s.name.includes(f))) : all;
  if (scenarios.length === 0)
    throw new Error(`--only=${opts.only} matches no scenario of: ${all.map((s) => s.name).join(', ')}`);
  const signRequest = await chooseSignRequest(opts);

  const startedAt = new Date();
  const loadAtStart = os.loadavg()[0] ?? 0;
  if (loadAtStart > os.cpus().length / 2) {
    log(
      `warning: load average ${loadAtStart.toFixed(1)} on ${os.cpus().length} CPUs: other work will make the numbers noisy`,
    );
  }
  const accessKeyId = accessKeyId20();
  const secretAccessKey = base64url40();
  // --webhooks: every event Store commits is POSTed (signed) to a receiver (a child process) that answers 200.
  const receiver = opts.webhooks ? await startWebhookReceiver() : undefined;
  const storeEnv = receiver ? { WEBHOOK_URL: receiver.url, WEBHOOK_SECRET: base64url40() } : {};
  if (receiver) log(`webhooks on: Store delivers to ${receiver.url}`);
  const { store, floor, s3rver, tempRoot } = opts.webhooksAb
    ? await startStorePair({ ...opts, accessKeyId, secretAccessKey, storeEnv })
    : await startServers({ ...opts, accessKeyId, secretAccessKey, storeEnv });
  const sign = createSigner({ signRequest, accessKeyId, secretAccessKey });
  /** @type {Target[]} */
  const targets = [await prepareTarget(store, sign), await prepareTarget(floor, sign)];
  if (s3rver) targets.push(await prepareTarget(s3rver, createSigner({ signRequest, ...S3RVER_CREDENTIALS })));
  const rows = [];
  for (const scenario of scenarios) rows.push(await runScenario(scenario, targets, opts.rounds));

  const peakRss = {
    storeKiB: peakRssKiB(store.pid),
    floorKiB: peakRssKiB(floor.pid),
    ...(s3rver ? { s3rverKiB: peakRssKiB(s3rver.pid) } : {}),
  };
  const webhooks = receiver ? await webhookSummary(receiver, path.join(tempRoot, 'store')) : undefined;
  console.log(`\n${formatTable(rows, opts.webhooksAb ? { a: 'on', b: 'off' } : undefined)}\n`);
  if (opts.webhooksAb) console.log('on = Store with webhooks, off = Store without (same build, rounds interleaved)');
  if (webhooks) {
    const { outbox } = webhooks;
    console.log(
      `webhooks: outbox delivered ${outbox.delivered}, pending ${outbox.pending}, failed ${outbox.failed} ` +
        `(${webhooks.drainedAfterMs} ms after the last scenario); receiver got ${webhooks.received} distinct deliveries in ${webhooks.requests} requests`,
    );
  }
  const s3rverRss = s3rver ? `, s3rver ${((peakRss.s3rverKiB ?? NaN) / 1024).toFixed(0)} MiB` : '';
  console.log(
    `peak RSS: Store ${(peakRss.storeKiB / 1024).toFixed(0)} MiB, floor ${(peakRss.floorKiB / 1024).toFixed(0)} MiB${s3rverRss}`,
  );
  const cpus = os.cpus();
  const file = await writeResults({
    dir: path.join(BENCH_DIR, 'results'),
    startedAt,
    record: {
      startedAt: startedAt.toISOString(),
      finishedAt: new Date().toISOString(),
      options: opts,
      floorCmd: FLOOR_CMD,
      ...(s3rver ? { s3rverCmd: S3RVER_CMD } : {}),
      signer: signRequest === stubSignRequest ? 'stub' : 'real',
      loadAverage: { start: loadAtStart, end: os.loadavg()[0] },
      machine: {
        node: process.version,
        platform: `${os.platform()} ${os.release()}`,
        cpus: cpus.length,
        cpuModel: cpus[0]?.model,
        memMiB: Math.round(os.totalmem() / 2 ** 20),
      },
      peakRss,
      rows,
      ...(webhooks ? { webhooks } : {}),
    },
  });
  console.log(`results: ${path.relative(REPO_DIR, file)} (and bench/results/latest.json)`);
}

/**
 * Runs one scenario's rounds on every target, alternating, and combines them. A failure on s3rver (a feature it
 * lacks or answers differently) marks its figures n/a instead of failing the run; on Store or the floor it fails.
 * @param {Scenario} scenario @param {Target[]} targets @param {number} rounds
 */
async function runScenario(scenario, targets, rounds) {
  /** @type {Round[][]} */ const done = targets.map(() => []);
  /** @type {string | undefined} */ let s3rverError;
  for (const side of roundOrder(rounds, targets.length)) {
    if (side === 2 && s3rverError) continue;
    globalThis.gc?.();
    const target = /** @type {Target} */ (targets[side]);
    try {
      done[side]?.push(await scenario.run(target));
    } catch (err) {
      if (side !== 2) throw err;
      s3rverError = err instanceof Error ? err.message : String(err);
      log(`${scenario.name}: s3rver n/a (${s3rverError.slice(0, 200)})`);
    }
  }
  const results = done.map((r) => combineRounds(scenario.unit, r));
  const store = /** @type {ScenarioResult} */ (results[0]);
  const floor = /** @type {ScenarioResult} */ (results[1]);
  const s3 = targets.length > 2 && !s3rverError ? results[2] : undefined;
  /** @type {import('../report.mjs').Row} */
  const row = {
    scenario: scenario.name,
    unit: scenario.unit,
    hasLatency: scenario.hasLatency,
    store,
    floor,
    ratio: ratioOf(store, floor),
    ...(targets.length > 2 ? { s3rver: s3, ratioS3rver: s3 ? ratioOf(store, s3) : NaN, s3rverError } : {}),
  };
  const each = (/** @type {number[]} */ v) => v.map((x) => x.toFixed(1)).join(', ');
  const s3text = targets.length > 2 ? `  s3rver ${s3 ? each(s3.roundValues) : 'n/a'}` : '';
  const [labelA, labelB] = [targets[0]?.label, targets[1]?.label];
  log(
    `${scenario.name.padEnd(18)} ${labelA} ${each(store.roundValues)}  ${labelB} ${each(floor.roundValues)}${s3text} ${scenario.unit} -> ratio ${row.ratio.toFixed(2)}`,
  );
  return row;
}

/**
 * After the scenarios: waits (up to 30 s) until Store's webhook outbox has nothing pending, read from its database
 * (read-only; WAL readers do not block the writer), and reports it with what the receiver got.
 * @param {Awaited<ReturnType<typeof startWebhookReceiver>>} receiver @param {string} dataDir
 */
async function webhookSummary(receiver, dataDir) {
  const { default: Database } = await import('better-sqlite3');
  const db = new Database(path.join(dataDir, 'meta.db'), { readonly: true });
  const counts = () =>
    Object.fromEntries(
      /** @type {{ status: string, n: number }[]} */ (
        db.prepare('SELECT status, COUNT(*) AS n FROM webhook_outbox GROUP BY status').all()
      ).map((r) => [r.status, r.n]),
    );
  const started = Date.now();
  let outbox = counts();
  while ((outbox.pending ?? 0) > 0 && Date.now() - started < 30_000) {
    await new Promise((r) => setTimeout(r, 200));
    outbox = counts();
  }
  db.close();
  const got = await receiver.stats();
  await receiver.close();
  return {
    outbox: { pending: outbox.pending ?? 0, delivered: outbox.delivered ?? 0, failed: outbox.failed ?? 0 },
    received: got.deliveries,
    requests: got.requests,
    drainedAfterMs: Date.now() - started,
  };
}
