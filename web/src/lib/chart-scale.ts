// Scales for the console's SVG charts: "nice" axis ticks and the path of a series with gaps (null values are the
// windows in which the server was down). Pure (unit-tested in Node).

/** About `count` round tick values covering [min, max] (1, 2, 2.5 or 5 times a power of ten apart). */
export function niceTicks(min: number, max: number, count = 4): number[] {
  if (!Number.isFinite(min) || !Number.isFinite(max)) return [0];
  if (max <= min) max = min + 1;
  const rough = (max - min) / Math.max(1, count);
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = ([1, 2, 2.5, 5, 10].find((m) => m * power >= rough) ?? 10) * power;
  const ticks: number[] = [];
  for (let v = Math.floor(min / step) * step; v <= max + step * 1e-9; v += step) ticks.push(Number(v.toPrecision(12)));
  if ((ticks[ticks.length - 1] ?? min) < max)
    ticks.push(Number(((ticks[ticks.length - 1] ?? min) + step).toPrecision(12)));
  return ticks;
}

/**
 * Like niceTicks for byte values: steps of a power of 1024 times 1, 2, 4 or 8 ... so the labels read 512 MiB, 1 GiB.
 */
export function byteTicks(max: number, count = 4): number[] {
  if (!(max > 0)) return [0, 1024];
  const rough = max / count;
  const unit = 1024 ** Math.max(0, Math.floor(Math.log(rough) / Math.log(1024)));
  const multiples = [1, 2, 4, 5, 8, 10, 16, 20, 25, 32, 50, 64, 100, 128, 200, 256, 500, 512, 1024];
  const step = (multiples.find((m) => m * unit >= rough) ?? 1024) * unit;
  const ticks: number[] = [];
  for (let v = 0; v < max + step; v += step) ticks.push(v);
  return ticks;
}

export interface Point {
  x: number;
  y: number | null;
}

/** An SVG path through the points, lifting the pen over nulls (a gap, not a drop to zero). */
export function linePath(points: Point[], sx: (x: number) => number, sy: (y: number) => number): string {
  let d = '';
  let pen = false;
  for (const p of points) {
    if (p.y === null || !Number.isFinite(p.y)) {
      pen = false;
      continue;
    }
    d += `${pen ? 'L' : 'M'}${round(sx(p.x))},${round(sy(p.y))}`;
    pen = true;
  }
  return d;
}

/** Points with no drawn neighbour (a lone sample, or one between gaps): a path draws nothing for them, so the
 * chart marks each with a dot. */
export function isolatedPoints(points: Point[]): Array<{ x: number; y: number }> {
  const has = (i: number): boolean => {
    const y = points[i]?.y;
    return y !== null && y !== undefined && Number.isFinite(y);
  };
  const out: Array<{ x: number; y: number }> = [];
  points.forEach((p, i) => {
    if (has(i) && !has(i - 1) && !has(i + 1) && p.y !== null) out.push({ x: p.x, y: p.y });
  });
  return out;
}

const round = (n: number): number => Math.round(n * 10) / 10;

/** A linear scale from the domain [d0, d1] to the range [r0, r1]. */
export function linear(
  [d0, d1]: readonly [number, number],
  [r0, r1]: readonly [number, number],
): (v: number) => number {
  const span = d1 - d0 || 1;
  return (v) => r0 + ((v - d0) / span) * (r1 - r0);
}
