// How the console writes numbers, sizes, dates and durations. Pure functions (unit-tested in Node).

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB'];

/** Bytes in binary units with at most three significant digits: 0 B, 999 B, 1.5 KiB, 12.3 MiB, 512 GiB. */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes)) return '–';
  const sign = bytes < 0 ? '-' : '';
  let value = Math.abs(bytes);
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  if (unit === 0) return `${sign}${value} B`;
  const digits = value >= 100 ? 0 : value >= 10 ? 1 : 2;
  return `${sign}${trimZeros(value.toFixed(digits))} ${UNITS[unit]}`;
}

function trimZeros(text: string): string {
  return text.includes('.') ? text.replace(/\.?0+$/, '') : text;
}

const counter = new Intl.NumberFormat('en-US');

/** An integer with thousands separators: 1,234,567. */
export function formatCount(n: number): string {
  return Number.isFinite(n) ? counter.format(n) : '–';
}

/** A rate with up to two decimals: 0, 0.05, 12.5, 1,234. */
export function formatRate(n: number): string {
  if (!Number.isFinite(n)) return '–';
  if (n === 0) return '0';
  return new Intl.NumberFormat('en-US', { maximumFractionDigits: n < 10 ? 2 : n < 100 ? 1 : 0 }).format(n);
}

/** A ratio as a percentage: 0.1234 -> 12.3%. */
export function formatPercent(ratio: number): string {
  if (!Number.isFinite(ratio)) return '–';
  const p = ratio * 100;
  return `${trimZeros(p.toFixed(p !== 0 && Math.abs(p) < 10 ? 2 : 1))}%`;
}

/** An ISO 8601 time as "2030-06-01 10:00:05" in UTC (unambiguous across admins in different zones). */
export function formatTime(iso: string | number | null | undefined): string {
  if (iso === null || iso === undefined || iso === '') return '–';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return String(iso);
  return `${d.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/** A duration in seconds, two units at most: 45 s, 3 min 5 s, 2 h 10 min, 4 d 3 h. */
export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '–';
  const s = Math.floor(seconds);
  if (s < 60) return `${s} s`;
  const parts: Array<[number, string]> = [
    [Math.floor(s / 86_400), 'd'],
    [Math.floor(s / 3600) % 24, 'h'],
    [Math.floor(s / 60) % 60, 'min'],
    [s % 60, 's'],
  ];
  const first = parts.findIndex(([n]) => n > 0);
  return parts
    .slice(first, first + 2)
    .filter(([n], i) => i === 0 || n > 0)
    .map(([n, u]) => `${n} ${u}`)
    .join(' ');
}

/** "5 min ago", "in 2 h", "just now" relative to `now` (ms). */
export function formatRelative(iso: string | null | undefined, now: number): string {
  if (!iso) return '–';
  const t = new Date(iso).getTime();
  if (Number.isNaN(t)) return String(iso);
  const diff = (now - t) / 1000;
  if (Math.abs(diff) < 5) return 'just now';
  return diff > 0 ? `${formatDuration(diff)} ago` : `in ${formatDuration(-diff)}`;
}

/** Parses "12 MiB", "1.5G", "300" (bytes) into a byte count; undefined if it is not a size. */
export function parseSize(text: string): number | undefined {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([kmgtp]?)(i?b?)\s*$/i.exec(text);
  if (!m) return undefined;
  const power = ' kmgtp'.indexOf((m[2] ?? '').toLowerCase() || ' ');
  return Math.round(Number(m[1]) * 1024 ** power);
}

/** The units a size field offers, with their byte multipliers. */
export const SIZE_UNITS = [
  { unit: 'B', bytes: 1 },
  { unit: 'KiB', bytes: 1024 },
  { unit: 'MiB', bytes: 1024 ** 2 },
  { unit: 'GiB', bytes: 1024 ** 3 },
  { unit: 'TiB', bytes: 1024 ** 4 },
] as const;

/** A byte count as an amount and a unit for a size field: the largest unit that writes it with at most 2 decimals. */
export function splitSize(bytes: number): { amount: string; unit: string } {
  for (const u of [...SIZE_UNITS].reverse()) {
    const v = bytes / u.bytes;
    if (v >= 1 && Math.abs(Math.round(v * 100) - v * 100) < 1e-6)
      return { amount: trimZeros(v.toFixed(2)), unit: u.unit };
  }
  return { amount: String(bytes), unit: 'B' };
}

/** An amount in a unit as whole bytes; undefined when the amount is not a number 0 or more. */
export function joinSize(amount: string, unit: string): number | undefined {
  if (!/^\s*\d+(\.\d+)?\s*$/.test(amount)) return undefined;
  const mult = SIZE_UNITS.find((u) => u.unit === unit)?.bytes ?? 1;
  return Math.round(Number(amount) * mult);
}
