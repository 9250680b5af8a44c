// @ts-check
// `--notify-ab`: the 4 KiB PUT scenarios on three Stores of one build, rounds interleaved: notifications off, one
// webhook target, and three targets of different kinds (webhook, redis, nats); then each target's queue drained.

import os from 'node:os';
import path from 'node:path';
import { startMessageServer } from '../message-servers.mjs';
import { createTarget, putBucketNotification, startNotifyStores, statusLine, waitDrained } from '../notify-admin.mjs';
import { writeResults } from '../report.mjs';
import { roundOrder, SECONDS_PER_SIDE } from '../rounds.mjs';
import { BENCH_DIR, REPO_DIR, log } from '../servers.mjs';
import { startWebhookReceiver } from '../webhook-receiver.mjs';
import { buildScenarios, combineRounds } from '../workloads.mjs';

/**
 * @typedef {import('../options.mjs').Options} Options
 * @typedef {import('../workloads.mjs').Round} Round
 * @typedef {import('../workloads.mjs').ScenarioResult} ScenarioResult
 */

const SIDES = ['off', 'webhook', '3 kinds'];
const DRAIN_TIMEOUT_MS = 120_000;

/** @param {number} ms */
const fmtMs = (ms) => (ms < 10 ? ms.toFixed(2) : ms.toFixed(1));

/**
 * Three Stores from the same build on fresh data dirs (bench/README.md, "--notify-ab"): `off` (no target), `webhook`
 * (one webhook target, the bench's receiver, for every object created in the bench bucket) and `3 kinds` (a webhook,
 * a redis-server and a nats-server target). Store, as AWS, refuses two rules of one bucket whose events and key
 * filters overlap, so on `3 kinds` every PUT goes to one of the three, by the key's last digit (0, 3, 6, 9: webhook;
 * 1, 4, 7: redis; 2, 5, 8: nats). The 4 KiB PUT scenarios (`--only`, default put-4k-c16) run in alternating rounds
 * (`--rounds`); then every queue must drain and have delivered each PUT routed to it (and the test event).
 * @param {Options} opts
 */
export async function notifyAbMode(opts) {
  // Three times the comparison's time per side: a fresh Store's first second runs at half its rate (JIT, caches),
  // so each side also gets one discarded run of each scenario before the rounds.
  const perSideMs = 1000 * (opts.quick ? SECONDS_PER_SIDE.quick : 3 * SECONDS_PER_SIDE.full);
  const puts4k = buildScenarios({ durationMs: perSideMs / opts.rounds, warmupMs: opts.quick ? 100 : 300 }).filter((s) =>
    s.name.startsWith('put-4k-'),
  );
  const only = opts.only.length ? opts.only : ['put-4k-c16'];
  const scenarios = puts4k.filter((s) => only.some((f) => s.name.includes(f)));
  if (scenarios.length === 0) throw new Error(`--only=${only} matches none of ${puts4k.map((s) => s.name).join(', ')}`);
  const startedAt = new Date();
  const loadAtStart = os.loadavg()[0] ?? 0;
  if (loadAtStart > os.cpus().length / 2) log(`warning: load average ${loadAtStart.toFixed(1)}: numbers will be noisy`);

  const receivers = [await startWebhookReceiver(), await startWebhookReceiver()];
  try {
    const [redis, nats] = [
      await startMessageServer('redis', opts.tmpDir),
      await startMessageServer('nats', opts.tmpDir),
    ];
    const stores = await startNotifyStores(opts, SIDES);
    const [, one, three] = /** @type {[unknown, (typeof stores)[0], (typeof stores)[0]]} */ (stores);
    const oneArn = await createTarget(one.admin, {
      id: 'hook',
      kind: 'webhook',
      config: { endpoint: receivers[0]?.url },
    });
    await putBucketNotification(one.target, [{ arn: oneArn }]);
    const arns = [
      await createTarget(three.admin, { id: 'hook', kind: 'webhook', config: { endpoint: receivers[1]?.url } }),
      await createTarget(three.admin, { id: 'redis', kind: 'redis', config: redis.config }),
      await createTarget(three.admin, { id: 'nats', kind: 'nats', config: nats.config }),
    ];
    await putBucketNotification(
      three.target,
      Array.from({ length: 10 }, (_, d) => ({ arn: /** @type {string} */ (arns[d % 3]), suffix: String(d) })),
    );

    const rows = [];
    for (const scenario of scenarios) {
      /** @type {Round[][]} */ const done = SIDES.map(() => []);
      for (const store of stores) await scenario.run(store.target); // warm-up, not counted
      for (const side of roundOrder(opts.rounds, SIDES.length)) {
        globalThis.gc?.();
        done[side]?.push(await scenario.run(/** @type {(typeof stores)[0]} */ (stores[side]).target));
      }
      const results = done.map((r) => combineRounds(scenario.unit, r));
      const each = results.map((r, i) => `${SIDES[i]} ${r.roundValues.map((v) => v.toFixed(0)).join(', ')}`);
      log(`${scenario.name.padEnd(12)} ${each.join('  ')} ops/s`);
      rows.push({ scenario: scenario.name, results });
    }

    // Every PUT was of a new key s/<n>: the webhook Store routes each to `hook`, the other by n's last digit.
    const keysOf = (/** @type {number} */ i) => /** @type {(typeof stores)[0]} */ (stores[i]).target.state.smallKeys;
    const byTarget = (/** @type {number} */ k) => keysOf(2).filter((n) => (n % 10) % 3 === k).length + 1;
    const drainStarted = Date.now();
    const drains = [
      await waitDrained(one.admin, { hook: keysOf(1).length + 1 }, DRAIN_TIMEOUT_MS),
      await waitDrained(three.admin, { hook: byTarget(0), redis: byTarget(1), nats: byTarget(2) }, DRAIN_TIMEOUT_MS),
    ];
    const drainMs = Date.now() - drainStarted;
    const got = [await receivers[0]?.stats(), await receivers[1]?.stats()];
    const held = { redis: await redis.count(), nats: await nats.count() };

    const header = ['scenario', ...SIDES.map((s) => `${s} ops/s`), 'webhook/off', '3 kinds/off'];
    header.push(...SIDES.map((s) => `${s} p50/p99 ms`), ...SIDES.map((s) => `CPU% ${s}`));
    const body = rows.map(({ scenario, results: [off, hook, three3] }) => {
      const r = /** @type {ScenarioResult[]} */ ([off, hook, three3]);
      return [
        scenario,
        ...r.map((x) => Math.round(x.value).toLocaleString('en-US')),
        (r[1].value / r[0].value).toFixed(2),
        (r[2].value / r[0].value).toFixed(2),
        ...r.map((x) => `${fmtMs(x.p50)} / ${fmtMs(x.p99)}`),
        ...r.map((x) => String(Math.round(x.cpuPercent))),
      ];
    });
    const widths = header.map((h, i) => Math.max(h.length, ...body.map((c) => String(c[i]).length)));
    const line = (/** @type {string[]} */ c) =>
      c.map((x, i) => (i === 0 ? x.padEnd(widths[i] ?? 0) : x.padStart(widths[i] ?? 0))).join('  ');
    console.log(`\n${[line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)].join('\n')}\n`);
    console.log('off = no target; webhook = one webhook target; 3 kinds = webhook, redis, nats (each PUT to one)');
    const check = (/** @type {boolean} */ ok) => (ok ? 'ok' : 'MISMATCH');
    const [d1, d3] = drains;
    const st = (/** @type {typeof d1} */ d, /** @type {string} */ id) => d?.items.find((t) => t.id === id)?.status;
    console.log(
      `drained ${drains.every((d) => d.drained) ? '' : 'NOT '}in ${drainMs} ms after the last round ` +
        `(webhook Store ${d1?.ms} ms, 3 kinds Store ${d3?.ms} ms)`,
    );
    console.log(`webhook Store: ${statusLine(d1?.items ?? [])}; expected ${keysOf(1).length} PUTs + 1 test event`);
    console.log(
      `  receiver got ${got[0]?.deliveries} distinct deliveries (${got[0]?.requests} requests): ${check(got[0]?.deliveries === keysOf(1).length + 1 && st(d1, 'hook')?.delivered === keysOf(1).length + 1)}`,
    );
    console.log(
      `3 kinds Store: ${statusLine(d3?.items ?? [])}; expected ${byTarget(0)}, ${byTarget(1)}, ${byTarget(2)} (with the test events) of ${keysOf(2).length} PUTs`,
    );
    const ok3 = [0, 1, 2].every(
      (k) => st(d3, /** @type {string} */ (['hook', 'redis', 'nats'][k]))?.delivered === byTarget(k),
    );
    console.log(
      `  receiver got ${got[1]?.deliveries} distinct deliveries (${got[1]?.requests} requests); redis list holds ` +
        `${held.redis}, nats stream ${held.nats}: ${check(ok3 && got[1]?.deliveries === byTarget(0) && held.redis === byTarget(1) && held.nats === byTarget(2))}`,
    );
    const file = await writeResults({
      dir: path.join(BENCH_DIR, 'results'),
      startedAt,
      record: {
        mode: 'notify-ab',
        startedAt: startedAt.toISOString(),
        finishedAt: new Date().toISOString(),
        options: opts,
        loadAverage: { start: loadAtStart, end: os.loadavg()[0] },
        machine: { node: process.version, cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model },
        sides: SIDES,
        rows: rows.map(({ scenario, results }) => ({
          scenario,
          ...Object.fromEntries(results.map((r, i) => [SIDES[i], r])),
        })),
        drain: { ms: drainMs, stores: drains.map((d) => ({ ms: d.ms, drained: d.drained, targets: d.items })) },
        received: got,
        held,
      },
    });
    console.log(`results: ${path.relative(REPO_DIR, file)} (and bench/results/latest.json)`);
  } finally {
    for (const r of receivers) await r.close();
  }
}
