import { describe, expect, it } from 'vitest';
import { DownloadTickets, MAX_TICKETS, TICKET_TTL_MS } from './download-tickets.js';

describe('DownloadTickets', () => {
  it('gives a value once, before it expires', () => {
    let now = 1_000;
    const tickets = new DownloadTickets<string>({ now: () => now });
    const a = tickets.issue('a');
    const b = tickets.issue('b');
    expect(a.ticket).not.toBe(b.ticket);
    expect(a.ticket).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(a.expiresAt).toBe(1_000 + TICKET_TTL_MS);
    expect(tickets.take(a.ticket)).toBe('a');
    expect(tickets.take(a.ticket)).toBeUndefined();
    now += TICKET_TTL_MS;
    expect(tickets.take(b.ticket)).toBeUndefined();
    expect(tickets.take('unknown')).toBeUndefined();
  });

  it('keeps at most MAX_TICKETS, dropping the oldest', () => {
    const tickets = new DownloadTickets<number>({ now: () => 0 });
    const issued = Array.from({ length: MAX_TICKETS + 1 }, (_, i) => tickets.issue(i).ticket);
    expect(tickets.take(issued[0]!)).toBeUndefined();
    expect(tickets.take(issued[1]!)).toBe(1);
    expect(tickets.take(issued[MAX_TICKETS]!)).toBe(MAX_TICKETS);
  });
});
