import { describe, expect, it } from 'vitest';
import { byteTicks, linear, linePath, niceTicks, isolatedPoints } from './chart-scale';

describe('chart scales', () => {
  it('picks round ticks covering the range', () => {
    expect(niceTicks(0, 100, 4)).toEqual([0, 25, 50, 75, 100]);
    expect(niceTicks(0, 7, 4)).toEqual([0, 2, 4, 6, 8]);
    const t = niceTicks(0, 0.03, 3);
    expect(t[0]).toBe(0);
    expect(t[t.length - 1]).toBeGreaterThanOrEqual(0.03);
  });

  it('picks byte ticks at binary multiples', () => {
    const ticks = byteTicks(3 * 1024 ** 3, 4);
    expect(ticks[0]).toBe(0);
    expect(ticks[ticks.length - 1]).toBeGreaterThanOrEqual(3 * 1024 ** 3);
    expect(ticks[1]).toBe(1024 ** 3);
  });

  it('draws a path that lifts the pen over gaps', () => {
    const sx = linear([0, 10], [0, 100]);
    const sy = linear([0, 1], [100, 0]);
    expect(
      linePath(
        [
          { x: 0, y: 0 },
          { x: 5, y: 1 },
          { x: 6, y: null },
          { x: 10, y: 0.5 },
        ],
        sx,
        sy,
      ),
    ).toBe('M0,100L50,0M100,50');
    expect(linePath([], sx, sy)).toBe('');
  });
});

describe('isolatedPoints', () => {
  it('finds the samples a line cannot draw', () => {
    expect(isolatedPoints([{ x: 1, y: 5 }])).toEqual([{ x: 1, y: 5 }]);
    expect(
      isolatedPoints([
        { x: 1, y: 1 },
        { x: 2, y: 2 },
        { x: 3, y: null },
        { x: 4, y: 7 },
        { x: 5, y: null },
      ]),
    ).toEqual([{ x: 4, y: 7 }]);
  });
});
