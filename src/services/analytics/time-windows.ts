// The windows of an analytics series: a step no finer than the data's resolution and coarse enough that a response
// never has more than MAX_POINTS points whatever the range, and a range aligned to whole steps (so the same question
// asked twice gets the same windows).

/** The most points one series answer carries. */
export const MAX_POINTS = 500;

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** Steps chosen automatically: the smallest one that fits. */
const STEPS = [
  MINUTE,
  5 * MINUTE,
  15 * MINUTE,
  30 * MINUTE,
  HOUR,
  3 * HOUR,
  6 * HOUR,
  12 * HOUR,
  DAY,
  7 * DAY,
  30 * DAY,
  90 * DAY,
  365 * DAY,
];
/** The longest step accepted. */
export const MAX_STEP_MS = 366 * DAY;

export interface WindowPlan {
  /** Start of the first window (a multiple of step). */
  from: number;
  /** End of the last window (exclusive; a multiple of step). */
  to: number;
  step: number;
  count: number;
}

/**
 * Windows covering [from, to). The step is `requested` when it is at least `resolution` and yields at most MAX_POINTS
 * windows; otherwise the smallest automatic step (or multiple of the resolution) that satisfies both.
 */
export function planWindows(opts: {
  from: number;
  to: number;
  requested?: number | undefined;
  resolution: number;
}): WindowPlan {
  const { from, to, resolution } = opts;
  const fits = (step: number): boolean => alignedCount(from, to, step) <= MAX_POINTS;
  let step =
    opts.requested !== undefined && opts.requested >= resolution && fits(opts.requested) ? opts.requested : undefined;
  if (step === undefined) {
    const floor = Math.max(resolution, opts.requested ?? 0);
    step = STEPS.find((candidate) => candidate >= floor && fits(candidate));
  }
  if (step === undefined) {
    // Longer than the table goes (or an odd resolution): whole multiples of the resolution.
    const unit = Math.max(resolution, SECOND);
    step = Math.ceil((to - from) / MAX_POINTS / unit) * unit;
    while (!fits(step)) step += unit;
  }
  const alignedFrom = Math.floor(from / step) * step;
  const alignedTo = Math.ceil(to / step) * step;
  return { from: alignedFrom, to: alignedTo, step, count: (alignedTo - alignedFrom) / step };
}

function alignedCount(from: number, to: number, step: number): number {
  return Math.ceil(to / step) - Math.floor(from / step);
}

/**
 * A step as given in a query: whole seconds (`300`) or a number with a unit (`30s`, `5m`, `1h`, `1d`). Returns ms, or
 * undefined when it is not one of those or not in (0, MAX_STEP_MS].
 */
export function parseStep(text: string): number | undefined {
  const match = /^(\d{1,9})([smhd]?)$/.exec(text.trim());
  if (!match) return undefined;
  const unit = { '': SECOND, s: SECOND, m: MINUTE, h: HOUR, d: DAY }[match[2] as '' | 's' | 'm' | 'h' | 'd'];
  const ms = Number(match[1]) * unit;
  return ms > 0 && ms <= MAX_STEP_MS ? ms : undefined;
}
