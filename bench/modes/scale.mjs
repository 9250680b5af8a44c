// @ts-check
// `--objects=<n>`: the scale run, a 10,000-object bucket against an n-object one (bench/scale.mjs), and cold starts.

import os from 'node:os';
import path from 'node:path';
import { createSigner } from '../client.mjs';
import { cpuSeconds, peakRssKiB } from '../proc-stats.mjs';
import { writeResults } from '../report.mjs';
import { roundOrder, SECONDS_PER_SIDE } from '../rounds.mjs';
import { buildScaleScenarios, formatScaleTable, SCALE_BUCKET } from '../scale.mjs';
import { seedMetadata } from '../seed-metadata.mjs';
import {
  accessKeyId20,
  base64url40,
  BENCH_DIR,
  log,
  makeTempRoot,
  REPO_DIR,
  startServer,
  stopServer,
} from '../servers.mjs';
import { chooseSignRequest, storeSecrets } from '../stores.mjs';
import { combineRounds } from '../workloads.mjs';

/** @typedef {import('../options.mjs').Options} Options */

/**
 * @typedef {import('../workloads.mjs').Target} Target
 * @typedef {import('../workloads.mjs').Round} Round
 * @typedef {import('../workloads.mjs').ScenarioResult} ScenarioResult
 * @typedef {import('../servers.mjs').Server} Server
 */

const SCALE_SMALL = 10_000;
const COLD_STARTS = 3;

/**
 * The scale run (`--objects=N`): seeds a 10,000-object and an N-object bucket (bench/seed-metadata.mjs), runs
 * bench/scale.mjs's scenarios on both Stores alternately, then times COLD_STARTS restarts on the N-object data.
 * @param {Options} opts
 */
export async function scaleMode(opts) {
  const perSideMs = 1000 * (opts.quick ? SECONDS_PER_SIDE.quick : SECONDS_PER_SIDE.full);
  const all = buildScaleScenarios({ durationMs: perSideMs / opts.rounds, warmupMs: opts.quick ? 100 : 300 });
  const scenarios = opts.only.length ? all.filter((s) => opts.only.some((f) => s.name.includes(f))) : all;
  const signRequest = await chooseSignRequest({ ...opts, signer: opts.signer === 'auto' ? 'real' : opts.signer });
  const startedAt = new Date();
  const loadAtStart = os.loadavg()[0] ?? 0;
  const accessKeyId = accessKeyId20();
  const secretAccessKey = base64url40();
  const sign = createSigner({ signRequest, accessKeyId, secretAccessKey });
  const tempRoot = await makeTempRoot(opts.tmpDir);
  const labels = [SCALE_SMALL, opts.objects].map((n) =>
    n >= 1e6 && n % 1e6 === 0 ? `${n / 1e6}M` : n % 1000 === 0 ? `${n / 1000}k` : String(n),
  );
  /** @type {Target[]} */ const targets = [];
  /** @type {Server[]} */ const stores = [];
  /** @type {Record<string, number>} */ const seedSeconds = {};
  const env = async (/** @type {string} */ dir) => ({
    DATA_DIR: dir,
    LOG_LEVEL: 'warn',
    ...(await storeSecrets(accessKeyId, secretAccessKey)),
  });
  for (const [i, count] of [SCALE_SMALL, opts.objects].entries()) {
    const label = `Store-${labels[i]}`;
    const dataDir = path.join(tempRoot, label);
    seedSeconds[label] = await seedMetadata({
      dataDir,
      bucket: SCALE_BUCKET,
      count,
      log: (m) => log(`${label}: ${m}`),
    });
    const server = await startServer({ label, cmd: opts.storeCmd, env: await env(dataDir) });
    stores.push(server);
    targets.push({
      label,
      baseUrl: server.baseUrl,
      sign,
      cpuSeconds: () => cpuSeconds(server.pid),
      state: { smallKeys: [], largeKeys: [], seq: 0, listSeeded: true, multipartVerified: true, objectCount: count },
    });
  }
  const rows = [];
  for (const scenario of scenarios) {
    /** @type {Round[][]} */ const done = [[], []];
    for (const side of roundOrder(opts.rounds, 2)) {
      globalThis.gc?.();
      done[side]?.push(await scenario.run(/** @type {Target} */ (targets[side])));
    }
    const [small, large] = done.map((r) => combineRounds(scenario.unit, r));
    const row = {
      scenario: scenario.name,
      unit: scenario.unit,
      small: /** @type {ScenarioResult} */ (small),
      large: /** @type {ScenarioResult} */ (large),
      ratio: NaN,
    };
    row.ratio = row.large.value / row.small.value;
    log(
      `${scenario.name.padEnd(26)} ${labels[0]} ${row.small.value.toFixed(1)}  ${labels[1]} ${row.large.value.toFixed(1)} ${scenario.unit} -> ${row.ratio.toFixed(2)}`,
    );
    rows.push(row);
  }
  const large = /** @type {Server} */ (stores[1]);
  const peakRss = { smallKiB: peakRssKiB(/** @type {Server} */ (stores[0]).pid), largeKiB: peakRssKiB(large.pid) };
  await stopServer(large);
  /** @type {number[]} */ const coldStartMs = [];
  for (let i = 0; i < COLD_STARTS; i++) {
    const t0 = performance.now();
    const s = await startServer({
      label: `${large.label} restart ${i + 1}`,
      cmd: opts.storeCmd,
      env: await env(path.join(tempRoot, large.label)),
      readyPath: '/api/admin/ready',
      pollMs: 10,
    });
    coldStartMs.push(performance.now() - t0);
    await stopServer(s);
  }
  console.log(`\n${formatScaleTable(rows, labels[0] ?? '', labels[1] ?? '')}\n`);
  console.log(
    `seeding: ${Object.entries(seedSeconds)
      .map(([k, v]) => `${k} ${v.toFixed(1)} s`)
      .join(', ')}`,
  );
  console.log(
    `cold start with ${labels[1]} objects (spawn to /api/admin/ready 200): ${coldStartMs.map((v) => `${(v / 1000).toFixed(2)} s`).join(', ')}`,
  );
  console.log(
    `peak RSS: Store-${labels[0]} ${(peakRss.smallKiB / 1024).toFixed(0)} MiB, Store-${labels[1]} ${(peakRss.largeKiB / 1024).toFixed(0)} MiB`,
  );
  const file = await writeResults({
    dir: path.join(BENCH_DIR, 'results'),
    startedAt,
    record: {
      kind: 'scale',
      startedAt: startedAt.toISOString(),
      finishedAt: new Date().toISOString(),
      options: opts,
      loadAverage: { start: loadAtStart, end: os.loadavg()[0] },
      machine: { node: process.version, cpus: os.cpus().length },
      seedSeconds,
      coldStartMs,
      peakRss,
      rows,
    },
  });
  console.log(`results: ${path.relative(REPO_DIR, file)} (and bench/results/latest.json)`);
}
