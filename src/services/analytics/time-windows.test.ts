// Window planning: the requested step when it is fine enough and fits, otherwise the smallest step that respects the
// resolution and MAX_POINTS; ranges aligned to whole steps; step parsing.

import { describe, expect, it } from 'vitest';
import { MAX_POINTS, parseStep, planWindows } from './time-windows.js';

const MIN = 60_000;
const DAY = 86_400_000;

describe('planWindows', () => {
  it('keeps a requested step that is at least the resolution and fits', () => {
    expect(planWindows({ from: 0, to: 60 * MIN, requested: 5 * MIN, resolution: MIN })).toEqual({
      from: 0,
      to: 60 * MIN,
      step: 5 * MIN,
      count: 12,
    });
    expect(planWindows({ from: 0, to: 60 * MIN, requested: 7 * MIN, resolution: MIN }).step).toBe(7 * MIN);
  });

  it('raises a step below the resolution to the resolution', () => {
    expect(planWindows({ from: 0, to: 60 * MIN, requested: 1000, resolution: 15 * MIN }).step).toBe(15 * MIN);
  });

  it('chooses a step from the range when none is asked, never more than MAX_POINTS windows', () => {
    for (const span of [MIN, 60 * MIN, DAY, 30 * DAY, 365 * DAY, 10 * 365 * DAY, 200 * 365 * DAY]) {
      const plan = planWindows({ from: 1_000_000, to: 1_000_000 + span, resolution: MIN });
      expect(plan.count).toBeLessThanOrEqual(MAX_POINTS);
      expect(plan.count).toBeGreaterThan(0);
      expect(plan.step).toBeGreaterThanOrEqual(MIN);
    }
    expect(planWindows({ from: 0, to: DAY, resolution: MIN }).step).toBe(5 * MIN);
  });

  it('aligns the range to whole steps', () => {
    const plan = planWindows({ from: 7 * MIN + 5, to: 63 * MIN, requested: 15 * MIN, resolution: MIN });
    expect(plan).toEqual({ from: 0, to: 75 * MIN, step: 15 * MIN, count: 5 });
  });

  it('an odd resolution steps in multiples of itself beyond the table', () => {
    const plan = planWindows({ from: 0, to: 2000 * 365 * DAY, resolution: 7 * MIN });
    expect(plan.count).toBeLessThanOrEqual(MAX_POINTS);
  });
});

describe('parseStep', () => {
  it('reads seconds and s/m/h/d units', () => {
    expect(parseStep('300')).toBe(300_000);
    expect(parseStep('30s')).toBe(30_000);
    expect(parseStep('5m')).toBe(5 * MIN);
    expect(parseStep('1h')).toBe(60 * MIN);
    expect(parseStep('2d')).toBe(2 * DAY);
  });

  it('refuses anything else', () => {
    for (const bad of ['', '0', '-5', '1.5', '5w', 'm', '1e3', '367d', '9999999999'])
      expect(parseStep(bad)).toBeUndefined();
  });
});
