// Requests and errors per minute, surface and route class, counted in memory as each response ends (no database
// write per request); the analytics flush moves them to the request_minutes table once a minute.

import type { RequestCount } from '../../storage/db/analytics-repo.js';

/** The labels the request observer already computes for the metrics (observability/metric-labels.ts). */
export interface CountedRequest {
  surface: string;
  route_class: string;
  status_class: string;
}

export const MINUTE_MS = 60_000;
/** Rows held at most (while the database refuses writes): beyond it the oldest minutes are dropped. */
const MAX_PENDING = 20_000;

export class RequestCounters {
  private pending = new Map<string, RequestCount>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Counts one finished request in its minute: 4xx as a client error, 5xx as a server error. */
  count(request: CountedRequest): void {
    const minute = Math.floor(this.now() / MINUTE_MS) * MINUTE_MS;
    const key = `${minute}\n${request.surface}\n${request.route_class}`;
    let row = this.pending.get(key);
    if (row === undefined) {
      row = {
        minute,
        surface: request.surface,
        routeClass: request.route_class,
        requests: 0,
        clientErrors: 0,
        serverErrors: 0,
      };
      this.pending.set(key, row);
    }
    row.requests += 1;
    if (request.status_class === '4xx') row.clientErrors += 1;
    else if (request.status_class === '5xx') row.serverErrors += 1;
  }

  /** Everything counted since the last take(), which starts over. */
  take(): RequestCount[] {
    const rows = [...this.pending.values()];
    this.pending = new Map();
    return rows;
  }

  /** Puts rows back after a failed write, so the next flush retries them (oldest dropped beyond a bound). */
  restore(rows: readonly RequestCount[]): void {
    for (const row of rows) {
      const key = `${row.minute}\n${row.surface}\n${row.routeClass}`;
      const have = this.pending.get(key);
      if (have) {
        have.requests += row.requests;
        have.clientErrors += row.clientErrors;
        have.serverErrors += row.serverErrors;
      } else {
        this.pending.set(key, { ...row });
      }
    }
    if (this.pending.size > MAX_PENDING) {
      const oldestFirst = [...this.pending.entries()].sort((a, b) => a[1].minute - b[1].minute);
      for (const [key] of oldestFirst.slice(0, this.pending.size - MAX_PENDING)) this.pending.delete(key);
    }
  }

  /** What is counted but not yet written (for answers about the current minute). */
  peek(): RequestCount[] {
    return [...this.pending.values()].map((row) => ({ ...row }));
  }
}
