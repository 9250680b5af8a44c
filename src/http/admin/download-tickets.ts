// One-time download links for the admin API (docs/admin-api.md, "Zip downloads"): an authenticated request asks for
// a download and gets a link a browser can open itself, so the file streams to disk through the browser's own
// download manager instead of being gathered in page memory first (a bearer token cannot ride on a plain link). A
// ticket is 256 random bits, lives TICKET_TTL_MS, and is spent by its first use, so one that later shows up in an
// access log or the browser's history opens nothing.

import { randomBytes } from 'node:crypto';

export const TICKET_TTL_MS = 60_000;
/** Outstanding tickets at most; the oldest is dropped beyond it (a client asking for links it never opens). */
export const MAX_TICKETS = 256;

export class DownloadTickets<T> {
  private readonly tickets = new Map<string, { value: T; expiresAt: number }>();
  private readonly now: () => number;

  constructor(options: { now?: () => number } = {}) {
    this.now = options.now ?? Date.now;
  }

  /** A new ticket for `value`, and when it expires (epoch ms). */
  issue(value: T): { ticket: string; expiresAt: number } {
    this.prune();
    while (this.tickets.size >= MAX_TICKETS) this.tickets.delete(this.tickets.keys().next().value as string);
    const ticket = randomBytes(32).toString('base64url');
    const expiresAt = this.now() + TICKET_TTL_MS;
    this.tickets.set(ticket, { value, expiresAt });
    return { ticket, expiresAt };
  }

  /** The ticket's value, once: undefined if it is unknown, spent or expired. */
  take(ticket: string): T | undefined {
    const entry = this.tickets.get(ticket);
    if (entry === undefined) return undefined;
    this.tickets.delete(ticket);
    return entry.expiresAt > this.now() ? entry.value : undefined;
  }

  private prune(): void {
    const now = this.now();
    for (const [ticket, entry] of this.tickets) if (entry.expiresAt <= now) this.tickets.delete(ticket);
  }
}
