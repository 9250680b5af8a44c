// Graceful shutdown: tracks in-flight requests; on drain, readiness turns 503, keep-alive connections close as
// their requests end, idle ones close at once, and `drained` resolves when nothing is in flight (or at the deadline).

import type { Server, IncomingMessage, ServerResponse } from 'node:http';

export class Drain {
  private active = 0;
  private draining = false;
  private idleWaiters: (() => void)[] = [];

  get isDraining(): boolean {
    return this.draining;
  }

  get inFlight(): number {
    return this.active;
  }

  /** Counts a request until its response finishes or its connection closes. */
  track(req: IncomingMessage, res: ServerResponse): void {
    this.active++;
    if (this.draining) res.setHeader('Connection', 'close');
    let done = false;
    const finish = (): void => {
      if (done) return;
      done = true;
      this.active--;
      if (this.active === 0) for (const wake of this.idleWaiters.splice(0)) wake();
    };
    res.once('finish', finish);
    res.once('close', finish);
    req.once('error', finish);
  }

  /**
   * Starts draining and resolves when every in-flight request has finished or `deadlineMs` has passed.
   * Returns true when it drained cleanly.
   */
  async start(server: Server, deadlineMs: number): Promise<boolean> {
    this.draining = true;
    server.closeIdleConnections();
    if (this.active === 0) return true;
    let timer: NodeJS.Timeout | undefined;
    const drained = new Promise<boolean>((resolve) => this.idleWaiters.push(() => resolve(true)));
    const deadline = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), deadlineMs);
    });
    const clean = await Promise.race([drained, deadline]);
    clearTimeout(timer);
    return clean;
  }
}
