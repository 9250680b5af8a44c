// Counters for the hostile harness's summary line: requests by operation, by fault and by status, and the events
// of the run (disk fills), printed at the end of each configuration.

/** Counts by label. */
export class Counts {
  private readonly map = new Map<string, number>();

  add(label: string, n = 1): void {
    this.map.set(label, (this.map.get(label) ?? 0) + n);
  }

  labels(): string[] {
    return [...this.map.keys()];
  }

  get(label: string): number {
    return this.map.get(label) ?? 0;
  }

  get total(): number {
    let sum = 0;
    for (const n of this.map.values()) sum += n;
    return sum;
  }

  /** `label=n` pairs, largest first (`digits` after the point). */
  format(digits = 0): string {
    return [...this.map.entries()]
      .sort((a, b) => b[1] - a[1])
      .map(([k, n]) => `${k}=${n.toFixed(digits)}`)
      .join(' ');
  }
}

/** Everything the summary line reports. */
export class Tally {
  readonly byOp = new Counts();
  readonly byFault = new Counts();
  readonly byStatus = new Counts();
  /** Requests of a well-behaved client answered 2xx, by operation (a harness that never succeeds tests nothing). */
  readonly cleanSuccesses = new Counts();
  /** Answers to the items of the disk-fill windows, by phase, operation and status. */
  readonly underPressure = new Counts();
  /** Seconds of worker time spent per fault (where a run's time goes). */
  readonly secondsByFault = new Counts();
  readonly events: string[] = [];
  /** Seconds each phase took. */
  readonly phases: string[] = [];

  /** Requests sent so far (each counted once, whatever its answer). */
  get requests(): number {
    return this.byOp.total;
  }

  record(call: { op: string; fault: string; status: string; ms: number; phase: string; clean: boolean }): void {
    if (call.clean && /^2\d\d$/.test(call.status)) this.cleanSuccesses.add(call.op);
    if (call.phase !== 'normal') this.underPressure.add(`${call.phase}:${call.op.split(':')[0]}:${call.status}`);
    this.byOp.add(call.op);
    this.byFault.add(call.fault);
    this.byStatus.add(call.status);
    this.secondsByFault.add(call.fault, call.ms / 1000);
  }

  /** Notes how long a phase took since `since` (performance.now()); returns now. */
  phase(name: string, since: number): number {
    const now = performance.now();
    this.phases.push(`${name} ${((now - since) / 1000).toFixed(1)} s`);
    return now;
  }
}
