// Charts as inline SVG (no chart library; no inline style, so the CSP holds): a time series with gaps and a
// horizontal bar list. Each has a text alternative for screen readers.

import { useId } from 'react';
import { byteTicks, isolatedPoints, linear, linePath, niceTicks } from '../lib/chart-scale';

export interface Series {
  name: string;
  className: string;
  points: Array<{ t: number; v: number | null }>;
}

interface LineChartProps {
  title: string;
  series: Series[];
  format: (v: number) => string;
  bytes?: boolean;
  height?: number;
}

const W = 640;

export function LineChart({ title, series, format, bytes, height = 200 }: LineChartProps) {
  const id = useId();
  const pad = { l: 64, r: 12, t: 10, b: 24 };
  const all = series.flatMap((s) => s.points);
  const values = all.map((p) => p.v).filter((v): v is number => v !== null);
  if (all.length === 0 || values.length === 0)
    return <p className="chart-empty">No data yet for {title.toLowerCase()}.</p>;
  const t0 = Math.min(...all.map((p) => p.t));
  const t1 = Math.max(...all.map((p) => p.t));
  const max = Math.max(...values, 0);
  const ticks = bytes ? byteTicks(max, 4) : niceTicks(0, max || 1, 4);
  const top = ticks[ticks.length - 1] ?? 1;
  const sx = linear([t0, t1 === t0 ? t0 + 1 : t1], [pad.l, W - pad.r]);
  const sy = linear([0, top], [height - pad.b, pad.t]);
  const last = (s: Series): string => {
    const v = [...s.points].reverse().find((p) => p.v !== null)?.v;
    return v === undefined || v === null ? 'no data' : format(v);
  };
  const timeLabel = (t: number): string => new Date(t).toISOString().slice(5, 16).replace('T', ' ');
  return (
    <figure className="chart">
      <svg viewBox={`0 0 ${W} ${height}`} role="img" aria-labelledby={`${id}-t`} preserveAspectRatio="none">
        <title id={`${id}-t`}>{`${title}: ${series.map((s) => `${s.name} now ${last(s)}`).join('; ')}`}</title>
        {ticks.map((v) => (
          <g key={v}>
            <line x1={pad.l} x2={W - pad.r} y1={sy(v)} y2={sy(v)} className="chart-grid" />
            <text x={pad.l - 6} y={sy(v) + 4} className="chart-label" textAnchor="end">
              {format(v)}
            </text>
          </g>
        ))}
        <text x={pad.l} y={height - 6} className="chart-label">
          {timeLabel(t0)}
        </text>
        <text x={W - pad.r} y={height - 6} className="chart-label" textAnchor="end">
          {timeLabel(t1)}
        </text>
        {series.map((s) => (
          <path
            key={s.name}
            d={linePath(
              s.points.map((p) => ({ x: p.t, y: p.v })),
              sx,
              sy,
            )}
            className={`chart-line ${s.className}`}
          />
        ))}
        {series.flatMap((s) =>
          isolatedPoints(s.points.map((p) => ({ x: p.t, y: p.v }))).map((p) => (
            <circle
              key={`${s.name}-${p.x}`}
              cx={sx(p.x)}
              cy={sy(p.y)}
              r={4}
              className={`chart-dot ${s.className}`}
              data-testid="chart-dot"
            />
          )),
        )}
      </svg>
      {values.length < 2 ? (
        <p className="muted chart-collecting">Collecting data: one sample so far; the line starts with the next.</p>
      ) : null}
      <figcaption className="legend">
        {series.map((s) => (
          <span key={s.name} className="legend-item">
            <span className={`swatch ${s.className}`} aria-hidden="true" />
            {s.name}: {last(s)}
          </span>
        ))}
      </figcaption>
    </figure>
  );
}

/** Horizontal bars: one per row, longest first, with the value written out. */
export function BarList({
  title,
  rows,
  format,
}: {
  title: string;
  rows: Array<{ label: string; value: number }>;
  format: (v: number) => string;
}) {
  const max = Math.max(1, ...rows.map((r) => r.value));
  if (rows.length === 0) return <p className="chart-empty">No buckets yet.</p>;
  return (
    <ul className="bars" aria-label={title}>
      {rows.map((r) => (
        <li key={r.label} className="bar-row">
          <span className="bar-label">{r.label}</span>
          <svg className="bar" viewBox="0 0 100 8" preserveAspectRatio="none" aria-hidden="true">
            <rect x="0" y="0" width="100" height="8" className="bar-track" />
            <rect x="0" y="0" width={Math.max(0.5, (r.value / max) * 100)} height="8" className="bar-fill" />
          </svg>
          <span className="bar-value">{format(r.value)}</span>
        </li>
      ))}
    </ul>
  );
}
