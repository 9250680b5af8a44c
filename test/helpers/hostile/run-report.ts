// The end of a hostile run: the invariants checked over the whole run (the readiness probe, the free-space reserve,
// the harness's own coverage) and the summary line printed for every configuration.

import type { HarnessOptions } from './harness.js';
import type { RunShared } from './op-context.js';
import type { ProbeReport } from './readiness-probe.js';
import type { ResourceReport } from './resource-check.js';
import type { Tally } from './tally.js';
import type { Violations } from './violations.js';

const MiB = 2 ** 20;

/** Adds the run-wide violations: late or failed readiness answers, a reserve that did not hold, an op never served. */
export function checkRun(run: RunShared, opts: { probe: ProbeReport; reserveBytes: number; lowestFree: number }): void {
  checkProbe(opts.probe, run.violations);
  checkCoverage(run.tally, run.violations);
  // With a reserve the filler never goes below it (writes in flight included), so only the server can take the volume
  // further down: half the reserve is left for the metadata commits the reserve is there for.
  if (opts.reserveBytes > 0 && opts.lowestFree < opts.reserveBytes / 2) {
    run.violations.add({
      invariant: 'reserve-holds',
      op: '-',
      fault: '-',
      detail: `the volume's free space fell to ${(opts.lowestFree / MiB).toFixed(1)} MiB, under half the ${(opts.reserveBytes / MiB).toFixed(0)} MiB reserve`,
    });
  }
}

/** The harness checks itself: every operation it sent often must have succeeded at least once, or it tests nothing. */
function checkCoverage(tally: Tally, violations: Violations): void {
  for (const op of tally.byOp.labels()) {
    if (tally.byOp.get(op) >= 20 && tally.cleanSuccesses.get(op) === 0) {
      violations.add({
        invariant: 'harness-self-check',
        op,
        fault: 'none',
        detail: `none of ${tally.byOp.get(op)} requests succeeded: the harness sends it wrong`,
      });
    }
  }
}

function checkProbe(report: ProbeReport, violations: Violations): void {
  for (const failure of report.failures.slice(0, 20)) {
    violations.add({ invariant: 'ready-within-1s', op: 'GET /api/admin/ready', fault: 'none', detail: failure });
  }
  if (report.count < 10)
    violations.add({
      invariant: 'ready-within-1s',
      op: 'GET /api/admin/ready',
      fault: 'none',
      detail: `only ${report.count} probes ran`,
    });
}

/** The summary line of a configuration: what was sent, what came back, how the server held up. */
export function summaryLine(s: {
  opts: HarnessOptions;
  run: RunShared;
  sent: number;
  verified: number;
  probe: ProbeReport;
  resources: ResourceReport;
  lowestFree: number;
}): string {
  const { run, probe, resources } = s;
  const outcomes = run.ledger.tally();
  return [
    `[hostile ${s.opts.name}] HOSTILE_SEED=${s.opts.seed} requests=${s.sent} (+${s.verified} read-back) workers=${s.opts.workers}`,
    `  by operation: ${run.tally.byOp.format()}`,
    `  by fault: ${run.tally.byFault.format()}`,
    `  by status: ${run.tally.byStatus.format()}`,
    `  writes: acked=${outcomes.acked} refused=${outcomes.refused} unknown=${outcomes.unknown}`,
    `  readiness: ${probe.count} probes, p99 ${probe.p99.toFixed(1)} ms, max ${probe.max.toFixed(1)} ms`,
    `  ${resources.line}`,
    `  disk-fill windows: ${run.tally.underPressure.format()}`,
    `  time: ${run.tally.phases.join(', ')}; worker seconds by fault: ${run.tally.secondsByFault.format(1)}`,
    `  disk: lowest free ${(s.lowestFree / MiB).toFixed(1)} MiB; ${run.tally.events.join('; ') || 'no fill events'}`,
    `  violations: ${run.violations.list.length}`,
  ].join('\n');
}
