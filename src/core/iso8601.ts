// Strict ISO 8601 timestamps as S3 request bodies and headers carry them (RetainUntilDate, lifecycle
// Date, x-amz-object-lock-retain-until-date), and the UTC-day arithmetic lifecycle and object lock use.

export const DAY_MS = 86_400_000;

// 2030-01-02, 2030-01-02T03:04, 2030-01-02T03:04:05, with optional fraction and zone (Z, +01:00, +0100).
// Date.parse is not used: it also takes RFC 1123 dates and other forms S3 refuses.
const ISO_8601 =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?([Zz]|[+-]\d{2}(?::?\d{2})?)?)?$/;

/**
 * Parses an ISO 8601 date or date-time. A date alone is midnight UTC; a time without a zone is UTC
 * (botocore and the AWS CLI send `2030-01-01T00:00:00` that way). Fractions beyond milliseconds are
 * truncated. Returns undefined for anything else, including impossible dates such as 2030-02-30.
 */
export function parseIso8601(text: string): Date | undefined {
  const m = ISO_8601.exec(text.trim());
  if (!m) return undefined;
  const [, y, mo, d, h = '0', mi = '0', s = '0', frac = '', zone = 'Z'] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  if (month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59) return undefined;
  const ms = Number(frac.padEnd(3, '0').slice(0, 3));
  const local = Date.UTC(year, month - 1, day, hour, minute, second, ms);
  // Date.UTC rolls 2030-02-30 over to March: refuse instead.
  if (new Date(local).getUTCDate() !== day || year < 1000) return undefined;
  const offsetMinutes = parseZone(zone);
  if (offsetMinutes === undefined) return undefined;
  return new Date(local - offsetMinutes * 60_000);
}

function parseZone(zone: string): number | undefined {
  if (zone === 'Z' || zone === 'z') return 0;
  const sign = zone.startsWith('-') ? -1 : 1;
  const digits = zone.slice(1).replace(':', '');
  const hours = Number(digits.slice(0, 2));
  const minutes = digits.length > 2 ? Number(digits.slice(2)) : 0;
  if (hours > 23 || minutes > 59) return undefined;
  return sign * (hours * 60 + minutes);
}

/** True when the instant is exactly 00:00:00.000 UTC. */
export function isMidnightUtc(date: Date): boolean {
  return date.getTime() % DAY_MS === 0;
}

/** 00:00 UTC of the day the instant falls in. */
export function startOfUtcDay(date: Date): Date {
  const t = date.getTime();
  return new Date(t - (((t % DAY_MS) + DAY_MS) % DAY_MS));
}
