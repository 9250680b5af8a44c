// Runs one configuration of the hostile harness against a started server: prepares the buckets and keys, runs the
// seeded plan on concurrent workers (a warm-up, then the run with its disk fills), reads everything back, and checks
// that nothing leaked. Returns the violations and the summary line; throws at once if the server process exits.

import type { RunningServer } from '../server.js';
import type { Tmpfs } from '../tmpfs.js';
import { DiskFiller, fillSchedule, type FillEvent } from './disk-filler.js';
import { finalSweep } from './final-check.js';
import { Ledger } from './model.js';
import { OpContext, type RunShared } from './op-context.js';
import { OPERATION_RUNNERS } from './operations.js';
import { planItem, type Phase } from './plan.js';
import { RawClient } from './raw-client.js';
import { ReadinessProbe, type ProbeReport } from './readiness-probe.js';
import { checkResources, measureBaseline } from './resource-check.js';
import { Rng } from './rng.js';
import { checkRun, summaryLine } from './run-report.js';
import { prepareRun } from './setup.js';
import { Tally } from './tally.js';
import { Violations } from './violations.js';
import { WriteGate } from './write-gate.js';

export interface HarnessOptions {
  /** This configuration's label in the summary. */
  name: string;
  /** The run's seed (HOSTILE_SEED): this configuration draws from its own child stream. */
  seed: number;
  server: RunningServer;
  volume: Tmpfs;
  /** STORE_MIN_FREE_BYTES the server runs with. */
  reserveBytes: number;
  /** Requests to send (the read-back at the end comes on top). */
  requests: number;
  workers: number;
  /** Fault kinds and early refusals left out (HOSTILE_SKIP), to look past one finding at the next. */
  skip: ReadonlySet<string>;
}

export interface HarnessReport {
  violations: Violations;
  summary: string;
}

/** Average requests per plan item (multipart flows send 3-5): to place the disk fills over the run. */
const REQUESTS_PER_ITEM = 1.15;
/** Items at the start of each fill window that are large uploads of unknown size, then of known size. */
const BURST_ITEMS = 16;
const MiB = 2 ** 20;

/** Rejects when the server process exits; `dead` says so to the workers. */
function watchExit(
  server: RunningServer,
  seed: number,
): { promise: Promise<never>; dead: () => boolean; stop: () => void } {
  let dead = false;
  let onExit: (code: number | null, signal: NodeJS.Signals | null) => void = () => undefined;
  const promise = new Promise<never>((_, reject) => {
    onExit = (code, signal) => {
      dead = true;
      reject(
        new Error(
          `HOSTILE_SEED=${seed}: the server process exited during the run (code ${code}, signal ${signal}). ` +
            `Its last output but the access log:\n${lastOutput(server.output())}`,
        ),
      );
    };
    server.process.once('exit', onExit);
  });
  promise.catch(() => undefined);
  return { promise, dead: () => dead, stop: () => server.process.off('exit', onExit) };
}

/** The end of the server's output without its access-log and audit lines (the crash's stack trace is what matters). */
function lastOutput(output: string): string {
  return output
    .split('\n')
    .filter((l) => !l.includes('"msg":"request completed"') && !l.includes('"audit":true'))
    .join('\n')
    .slice(-6000);
}

/**
 * Where plan item `index` falls: a burst then a surge (at the start of a fill window, and once in the warm-up), under
 * pressure (the rest of a fill window), or normal.
 */
function phaseOf(index: number, opts: { schedule: FillEvent[]; warmBurst: number }): Phase {
  const window = opts.schedule.find((e) => e.from <= index && index < e.until);
  const from = window?.from ?? opts.warmBurst;
  if (index >= from && index < from + BURST_ITEMS) return 'burst';
  if (index >= from && index < from + 2 * BURST_ITEMS) return 'surge';
  return window === undefined ? 'normal' : 'pressure';
}

export async function runHostileHarness(opts: HarnessOptions): Promise<HarnessReport> {
  const { server } = opts;
  const rng = new Rng(opts.seed).child(opts.name);
  const exit = watchExit(server, opts.seed);
  const alive = <T>(p: Promise<T>): Promise<T> => Promise.race([p, exit.promise]);
  const ledger = new Ledger();
  const gate = new WriteGate();
  const prepared = await alive(prepareRun(server, { seed: opts.seed, ledger }));
  const run: RunShared = {
    server,
    seed: opts.seed,
    ...prepared,
    ledger,
    gate,
    tally: new Tally(),
    violations: new Violations(),
    reserveHolds: opts.reserveBytes > 0,
  };
  const filler = new DiskFiller({ volume: opts.volume, reserveBytes: opts.reserveBytes, gate });
  const sampler = setInterval(() => filler.sample(), 50);
  const probe = new ReadinessProbe({ port: server.port });
  const clients = Array.from({ length: opts.workers }, () => new RawClient(server.port));
  const items = Math.ceil(opts.requests / REQUESTS_PER_ITEM);
  // The warm-up has a burst of large uploads too, so that the memory measured after it is the server's working set
  // under this load (V8 and malloc keep what they grew to), not the smaller one of a quiet start.
  const warmUp = Math.floor(items * 0.15);
  const schedule = fillSchedule(rng.child('fills'), {
    first: warmUp,
    last: Math.floor(items * 0.85),
    windows: Math.max(2, Math.round(items / 2500)),
    reserve: opts.reserveBytes > 0,
  });
  let next = 0;
  /** Runs plan items on every worker until item `end` or the request budget is reached. */
  const runPlan = (end: number): Promise<unknown> =>
    Promise.all(
      clients.map(async (client) => {
        const ctx = new OpContext(run, client);
        while (!exit.dead() && next < end && run.tally.requests < opts.requests) {
          const index = next++;
          await diskEvents(index, { schedule, filler, log: run.tally.events });
          const item = planItem(rng, index, {
            phase: phaseOf(index, { schedule, warmBurst: Math.floor(warmUp / 2) }),
            skip: opts.skip,
          });
          await OPERATION_RUNNERS[item.op](item, ctx);
        }
      }),
    );
  const closeClients = (): void => clients.forEach((c) => c.close());
  let probeReport: ProbeReport | undefined;
  let t = performance.now();
  try {
    await alive(runPlan(warmUp));
    t = run.tally.phase('warm-up', t);
    closeClients();
    const baseline = await alive(measureBaseline(server));
    t = run.tally.phase(
      `baseline (fds ${baseline.fds}, staging files ${baseline.stagingFiles}, RSS ${baseline.rssMiB.toFixed(1)} MiB)`,
      t,
    );
    await alive(runPlan(Number.POSITIVE_INFINITY));
    t = run.tally.phase('run', t);
    await filler.free();
    closeClients();
    const sent = run.tally.requests;
    const verified = await alive(finalSweep(run, { concurrency: opts.workers }));
    t = run.tally.phase('read-back', t);
    probeReport = await probe.stop();
    const resources = await alive(checkResources(server, { baseline, violations: run.violations }));
    run.tally.phase('leak checks', t);
    checkRun(run, { probe: probeReport, reserveBytes: opts.reserveBytes, lowestFree: filler.lowestFree });
    return {
      violations: run.violations,
      summary: summaryLine({ opts, run, sent, verified, probe: probeReport, resources, lowestFree: filler.lowestFree }),
    };
  } catch (err) {
    // The process exited: say how far the run had come, and what the volume looked like, with the server's output.
    if (!exit.dead()) throw err;
    const progress =
      `${run.tally.requests} requests sent (by status: ${run.tally.byStatus.format()}); ${run.tally.phases.join(', ') || 'during the warm-up'}; disk: lowest free ` +
      `${(filler.lowestFree / MiB).toFixed(1)} MiB with STORE_MIN_FREE_BYTES=${opts.reserveBytes}; ${run.tally.events.join('; ') || 'no fill yet'}`;
    throw new Error(`${(err as Error).message}\n[hostile ${opts.name}] before the exit: ${progress}`);
  } finally {
    clearInterval(sampler);
    exit.stop();
    if (!probeReport) await probe.stop().catch(() => undefined);
    closeClients();
    await filler.free().catch(() => undefined);
  }
}

/** Fills or frees the volume when item `index` is the start or end of a fill window. */
async function diskEvents(
  index: number,
  opts: { schedule: FillEvent[]; filler: DiskFiller; log: string[] },
): Promise<void> {
  const { filler, log } = opts;
  for (const event of opts.schedule) {
    if (event.from === index) log.push(`#${index} ${await filler.fill(event)}`);
    if (event.until === index) {
      await filler.free();
      log.push(`#${index} freed`);
    }
  }
}
