// An access key's or share link's expiry in words (the key list, the share links) and the choices the create dialog
// offers, turned into the date-time the admin API takes.

const DAY = 86_400_000;
const HOUR = 3_600_000;
const MINUTE = 60_000;

const plural = (n: number, unit: string): string => `${n} ${unit}${n === 1 ? '' : 's'}`;

/** "never", "expired", "expires in 3 days", "expires in 5 hours", "expires in 2 minutes". */
export function describeExpiry(expiresAt: string | null | undefined, now: number): string {
  if (expiresAt === null || expiresAt === undefined || expiresAt === '') return 'never';
  const at = Date.parse(expiresAt);
  if (Number.isNaN(at)) return expiresAt;
  const left = at - now;
  if (left <= 0) return 'expired';
  // Rounded, so a key made to last 7 days reads "7 days" rather than "6 days" a second later.
  if (left >= 2 * DAY) return `expires in ${plural(Math.round(left / DAY), 'day')}`;
  if (left >= 2 * HOUR) return `expires in ${plural(Math.round(left / HOUR), 'hour')}`;
  return `expires in ${plural(Math.ceil(left / MINUTE), 'minute')}`;
}

/** Whether it has expired at `now`. */
export function isExpired(expiresAt: string | null | undefined, now: number): boolean {
  return expiresAt !== null && expiresAt !== undefined && expiresAt !== '' && Date.parse(expiresAt) <= now;
}

export const EXPIRY_CHOICES = [
  { value: 'never', label: 'Never' },
  { value: '1', label: '1 day' },
  { value: '7', label: '7 days' },
  { value: '30', label: '30 days' },
  { value: '90', label: '90 days' },
  { value: 'date', label: 'On a date…' },
] as const;
export type ExpiryChoice = (typeof EXPIRY_CHOICES)[number]['value'];

/**
 * The expiry to send: null for never, a day count from `now`, or the end of the chosen date (UTC, from an
 * <input type="date"> value). Throws an Error with a message for the form when the date is missing or not after now.
 */
export function expiryFromChoice(choice: ExpiryChoice, date: string, now: number): string | null {
  if (choice === 'never') return null;
  if (choice !== 'date') return new Date(now + Number(choice) * DAY).toISOString();
  const at = Date.parse(`${date}T23:59:59Z`);
  if (date === '' || Number.isNaN(at)) throw new Error('Expiry: choose a date.');
  if (at <= now) throw new Error('Expiry: choose a date in the future.');
  return new Date(at).toISOString();
}
