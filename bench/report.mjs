// @ts-check
// The benchmark's output: the Store-vs-floor table on stdout and the JSON record under bench/results/.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * @typedef {import('./workloads.mjs').ScenarioResult} ScenarioResult
 * @typedef {{ scenario: string, unit: string, hasLatency: boolean, store: ScenarioResult, floor: ScenarioResult,
 *   ratio: number, s3rver?: ScenarioResult | undefined, ratioS3rver?: number, s3rverError?: string | undefined }} Row
 *   s3rver and ratioS3rver are present when s3rver took part (s3rver undefined: it could not run the scenario)
 */

/** @param {number} v @param {string} unit */
function formatValue(v, unit) {
  if (!Number.isFinite(v)) return '-';
  if (unit === 'ops/s' || v >= 1000) return Math.round(v).toLocaleString('en-US');
  return v.toFixed(1);
}

/** @param {number | undefined} ms */
const formatMs = (ms) => (ms === undefined || !Number.isFinite(ms) ? '-' : ms < 10 ? ms.toFixed(2) : ms.toFixed(1));

/**
 * Store/floor ratio of a throughput (higher is better, 1.00 = as fast as the floor).
 * @param {ScenarioResult} store @param {ScenarioResult} floor
 */
export const ratioOf = (store, floor) => store.value / floor.value;

/**
 * Renders the result table: throughput of each side, the ratio, p50/p99 latency and server CPU use. `labels` names
 * the two sides (default Store and floor; `--webhooks-ab` compares Store with and without webhooks).
 * @param {Row[]} rows @param {{ a: string, b: string }} [labels] @returns {string}
 */
export function formatTable(rows, labels = { a: 'Store', b: 'floor' }) {
  const withS3rver = rows.some((r) => 'ratioS3rver' in r);
  const { a, b } = labels;
  const header = ['scenario', 'unit', a, b, `${a}/${b}`, `${a} p50/p99 ms`, `${b} p50/p99 ms`, `CPU% ${a}/${b}`];
  if (withS3rver) header.push('s3rver', 'Store/s3rver', 's3rver p50/p99 ms', 'CPU% s3rver');
  const body = rows.map((r) => [
    r.scenario,
    r.unit,
    formatValue(r.store.value, r.unit),
    formatValue(r.floor.value, r.unit),
    Number.isFinite(r.ratio) ? r.ratio.toFixed(2) : '-',
    r.hasLatency ? `${formatMs(r.store.p50)} / ${formatMs(r.store.p99)}` : '',
    r.hasLatency ? `${formatMs(r.floor.p50)} / ${formatMs(r.floor.p99)}` : '',
    `${Math.round(r.store.cpuPercent)} / ${Math.round(r.floor.cpuPercent)}`,
    ...(withS3rver ? s3rverCells(r) : []),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((cells) => String(cells[i]).length)));
  // Text columns align left, numbers right, so magnitudes line up.
  const line = (/** @type {string[]} */ cells) =>
    cells
      .map((c, i) =>
        i < 2 ? c.padEnd(/** @type {number} */ (widths[i])) : c.padStart(/** @type {number} */ (widths[i])),
      )
      .join('  ');
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  return [line(header), rule, ...body.map(line)].join('\n');
}

/** The s3rver columns of a row: n/a where s3rver could not run the scenario. @param {Row} r */
function s3rverCells(r) {
  const s = r.s3rver;
  if (!s) return ['n/a', 'n/a', '', ''];
  return [
    formatValue(s.value, r.unit),
    Number.isFinite(r.ratioS3rver) ? /** @type {number} */ (r.ratioS3rver).toFixed(2) : '-',
    r.hasLatency ? `${formatMs(s.p50)} / ${formatMs(s.p99)}` : '',
    String(Math.round(s.cpuPercent)),
  ];
}

/**
 * Writes the run's record as `<dir>/<timestamp>.json` and `<dir>/latest.json`; returns the timestamped path.
 * @param {{ dir: string, record: object, startedAt: Date }} opts
 */
export async function writeResults({ dir, record, startedAt }) {
  await mkdir(dir, { recursive: true });
  const json = `${JSON.stringify(record, null, 2)}\n`;
  const file = path.join(dir, `${startedAt.toISOString().replace(/[:.]/g, '-')}.json`);
  await writeFile(file, json);
  await writeFile(path.join(dir, 'latest.json'), json);
  return file;
}
