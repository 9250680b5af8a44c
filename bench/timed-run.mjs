// @ts-check
// How a scenario is timed (bench/workloads.mjs): concurrent workers after a warm-up, with the server's CPU time,
// and how the rounds of one scenario combine into its result.
import { summarizeLatencies } from './client.mjs';

/**
 * @typedef {import('./workloads.mjs').Round} Round
 * @typedef {import('./workloads.mjs').ScenarioResult} ScenarioResult
 * @typedef {import('./workloads.mjs').Unit} Unit
 */

/**
 * Runs `op` from `concurrency` workers until `durationMs` after the warm-up; only operations started after the
 * warm-up are counted. Also measures the server's CPU seconds over the counted part.
 * @param {{ concurrency: number, durationMs: number, warmupMs: number, cpuSeconds: () => number,
 *   op: (worker: number) => Promise<number> }} opts  op resolves to the payload bytes it moved
 * @returns {Promise<Round>}
 */
export async function runTimed({ concurrency, durationMs, warmupMs, cpuSeconds, op }) {
  const t0 = performance.now();
  const measureFrom = t0 + warmupMs;
  const deadline = measureFrom + durationMs;
  /** @type {number[]} */ const latencies = [];
  let bytes = 0;
  let lastEnd = measureFrom;
  let cpuStart = warmupMs === 0 ? cpuSeconds() : NaN;
  const worker = async (/** @type {number} */ w) => {
    for (;;) {
      const start = performance.now();
      if (start >= deadline) return;
      const counted = start >= measureFrom;
      if (counted && Number.isNaN(cpuStart)) cpuStart = cpuSeconds();
      const moved = await op(w);
      const end = performance.now();
      if (!counted) continue;
      latencies.push(end - start);
      bytes += moved;
      if (end > lastEnd) lastEnd = end;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, (_, w) => worker(w)));
  return {
    ops: latencies.length,
    bytes,
    seconds: (lastEnd - measureFrom) / 1000,
    cpuSeconds: cpuSeconds() - cpuStart,
    latencies,
  };
}

/** @param {Unit} unit @param {{ ops: number, bytes: number, seconds: number }} r */
const valueOf = (unit, r) => (unit === 'MB/s' ? r.bytes / 1e6 : r.ops) / r.seconds;

/**
 * Combines the rounds of one scenario on one target into its result: totals over total time, latency
 * percentiles over every counted operation, and each round's own value (to judge the noise).
 * @param {Unit} unit @param {Round[]} rounds @returns {ScenarioResult}
 */
export function combineRounds(unit, rounds) {
  const sum = (/** @type {(r: Round) => number} */ f) => rounds.reduce((n, r) => n + f(r), 0);
  const total = { ops: sum((r) => r.ops), bytes: sum((r) => r.bytes), seconds: sum((r) => r.seconds) };
  return {
    value: valueOf(unit, total),
    ...total,
    cpuPercent: (100 * sum((r) => r.cpuSeconds)) / total.seconds,
    ...summarizeLatencies(rounds.flatMap((r) => r.latencies)),
    roundValues: rounds.map((r) => valueOf(unit, r)),
  };
}
