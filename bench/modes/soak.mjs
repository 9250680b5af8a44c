// @ts-check
// `--soak=SECONDS` (`npm run soak`): Store alone under bench/soak.mjs's mixed load, memory and fds sampled.

import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { writeResults } from '../report.mjs';
import { BENCH_DIR, log, REPO_DIR } from '../servers.mjs';
import { byMinute, runSoak, samplesCsv } from '../soak.mjs';
import { startSoloStore } from '../stores.mjs';
import { BUCKET } from '../workloads.mjs';

/** @typedef {import('../options.mjs').Options} Options */

/**
 * The soak run (`--soak=SECONDS`, `npm run soak` for 20 minutes): Store alone under bench/soak.mjs's mixed workload,
 * RSS and open fds sampled throughout; the curve goes to bench/results/<timestamp>.csv beside the JSON.
 * @param {Options} opts
 */
export async function soakMode(opts) {
  const startedAt = new Date();
  const { store, sign } = await startSoloStore(opts);
  log(`soak: ${opts.soak} s of mixed operations at concurrency 16 against Store pid ${store.pid}`);
  const result = await runSoak({
    baseUrl: store.baseUrl,
    sign,
    pid: store.pid,
    bucket: BUCKET,
    seconds: opts.soak,
    log,
  });
  const minutes = byMinute(result.samples);
  console.log(`\nsoak ${opts.soak} s: ${result.ops} ops (${result.opsPerSecond.toFixed(0)}/s)`);
  console.log(
    `RSS: first third after warm-up ${result.early.rssMiB.toFixed(1)} MiB, last third ${result.late.rssMiB.toFixed(1)} MiB ` +
      `(growth ${result.growthMiB.toFixed(1)} MiB), peak ${result.peakMiB.toFixed(0)} MiB`,
  );
  console.log(
    `fds: idle before ${result.idleBefore.fds}, first third ${result.early.fds.toFixed(1)}, last third ${result.late.fds.toFixed(1)}, ` +
      `peak ${result.peakFds}, idle after ${result.idleAfter.fds}`,
  );
  console.log(
    `\n| minute | RSS MiB | fds (mean) | fds (peak) | ops/s |\n|---|---|---|---|---|\n${minutes
      .map((m) => `| ${m.minute} | ${m.rssMiB.toFixed(0)} | ${m.fds.toFixed(0)} | ${m.peakFds} | ${m.opsPerSecond} |`)
      .join('\n')}\n`,
  );
  const file = await writeResults({
    dir: path.join(BENCH_DIR, 'results'),
    startedAt,
    record: {
      kind: 'soak',
      startedAt: startedAt.toISOString(),
      finishedAt: new Date().toISOString(),
      options: opts,
      machine: { node: process.version, cpus: os.cpus().length, loadAverage: os.loadavg() },
      ...result,
      minutes,
    },
  });
  const csv = file.replace(/\.json$/, '.csv');
  await writeFile(csv, samplesCsv(result.samples));
  console.log(
    `results: ${path.relative(REPO_DIR, file)} and ${path.relative(REPO_DIR, csv)} (the curve; and bench/results/latest.json)`,
  );
}
