// Delivery of bucket notifications (docs/notifications.md "Delivery"): each target has its own slots (at most
// `concurrency` sends in flight) and its own claims, so a slow or dead target only ever holds its own rows. Per target,
// a key's rows go out one at a time in commit order (the repo hands out only the oldest pending row of each key).
// Outcomes: delivered; retried with full-jitter backoff; dead-lettered after `maxAttempts`. Only rows known durable
// (NotificationService.durableUpTo) are sent, so an event never describes a change a power loss could undo.
// A failed attempt also pauses its target (docs/notifications.md "A target that is down"): while a target is down one
// row at a time probes it, and a probe that could not reach it costs the row no attempt, so an outage of any length
// dead-letters nothing and writes nothing per queued row. Each target claims its due rows in batches into a local
// queue, and a slot that frees takes the next row at once; outcomes are written in batches, one transaction per
// OUTCOME_WRITE_MS.

import { fullJitterDelay, type BackoffPolicy } from '../../lib/backoff.js';
import type { Logger } from '../../observability/logger.js';
import type { NotificationOutcome, NotificationRepo, NotificationRow } from '../../storage/db/notification-repo.js';
import type { NotificationTargets, Target } from './notification-targets.js';
import { createTransport } from './transports/index.js';
import type { NotificationTransport } from './transports/transport.js';
import { TransportError } from './transports/transport-error.js';

export interface NotificationDispatcherOptions {
  repo: Pick<NotificationRepo, 'due' | 'nextDueAt' | 'recordOutcomes' | 'prune'>;
  targets: Pick<NotificationTargets, 'all' | 'find' | 'onChange'>;
  /** Rows with ids up to this are durable. */
  durableUpTo: () => number;
  /** Runs `fn` in one SQLite transaction (outcomes are written by the connection that owns writes). */
  transaction: <T>(fn: () => T) => T;
  logger: Logger;
  backoff: BackoffPolicy;
  maxAttempts: number;
  concurrency?: number;
  /** Longest sleep with nothing due (default 15 s). */
  pollMs?: number;
  now?: () => number;
  random?: () => number;
  /** Transports by kind (tests); default the registry's lazy modules. */
  createTransport?: (target: Target) => Promise<NotificationTransport>;
  /** Told of each attempt's outcome (store_notification_deliveries_total). */
  onOutcome?: (kind: string, outcome: 'delivered' | 'retried' | 'failed') => void;
}

interface TargetState {
  inFlight: number;
  /** Rows queued here or in flight, until their outcome is written: the repo still lists them as due. */
  claimed: Set<number>;
  /** Claimed rows not sent yet, in due order. */
  queue: NotificationRow[];
  transport: Promise<NotificationTransport> | undefined;
  /** Failed attempts since the target last accepted one: above 0, one probe at a time. */
  failures: number;
  /** No row of the target is claimed before this instant. */
  pausedUntil: number;
}

/** The longest a target that is down waits between probes (the rows' own backoff may be longer). */
export const TARGET_PAUSE_CAP_MS = 60_000;
/**
 * Outcomes wait at most this long to be written together (or until CLAIM_BATCH of them are waiting): one small
 * transaction per delivery was a tenth of the event loop under a steady stream of events (docs/performance.md,
 * "Bucket notifications"). Their rows stay claimed meanwhile, so nothing is sent twice.
 */
const OUTCOME_WRITE_MS = 10;
/** The shortest pause after a failed attempt. */
const TARGET_PAUSE_MIN_MS = 100;
/** Due rows claimed per target at a time; the queue is refilled when half of it has gone out. */
const CLAIM_BATCH = 64;

/** The target could not be reached at all (nothing was delivered): a sign it is down, not of a bad message. */
function isUnreachable(err: unknown): boolean {
  return err instanceof TransportError && err.failureClass === 'unreachable';
}

/** Error classes are bounded text: the first line, at most 200 characters, never a URL. */
function errorClass(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  const line = (message.split('\n')[0] ?? '').replace(/[a-z][a-z0-9+.-]*:\/\/\S+/gi, '<url>');
  return line.slice(0, 200) || 'error';
}

export class NotificationDispatcher {
  private readonly states = new Map<string, TargetState>();
  private timer: NodeJS.Timeout | undefined;
  /** When the scheduled pass runs (meaningful while `timer` is set). */
  private timerAt = Infinity;
  private stopped = false;
  /** Set once stop() returns: the database may be closed, nothing more is written. */
  private closed = false;
  private readonly now: () => number;
  private readonly active = new Set<Promise<void>>();
  private lastPrune = -Infinity;
  /** Outcomes not yet written, with the claims they release once written. */
  private unwritten: { outcome: NotificationOutcome; release: () => void }[] = [];

  constructor(private readonly opts: NotificationDispatcherOptions) {
    this.now = opts.now ?? Date.now;
    opts.targets.onChange((id) => {
      void this.dropTransport(id);
      const s = this.states.get(id);
      // Rows queued under the old settings (or for a target now gone) are claimed again from the repo.
      for (const row of s?.queue.splice(0) ?? []) s?.claimed.delete(row.id);
      this.resume(id);
    });
  }

  /** Probes a target at once, paused or not: its settings changed, or an operator retried its dead letters. */
  resume(targetId: string): void {
    const s = this.states.get(targetId);
    if (s !== undefined) s.pausedUntil = 0;
    this.wake();
  }

  /** Starts delivering (an immediate pass: rows left by a crash or a stop go out at boot). */
  start(): void {
    this.wake();
  }

  /**
   * Schedules a pass within 5 ms, unless one is due sooner. It never postpones one: every commit and every finished
   * send wakes the dispatcher, and under a steady write load a wake that restarted the 5 ms kept the pass from running
   * until the writes paused, so no row was claimed meanwhile.
   */
  wake(): void {
    if (this.stopped) return;
    if (this.timer !== undefined && this.timerAt <= this.now() + 5) return;
    this.schedule(5);
  }

  private schedule(delay: number): void {
    clearTimeout(this.timer);
    this.timerAt = this.now() + delay;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.pass();
    }, delay);
    this.timer.unref();
  }

  private state(id: string): TargetState {
    let s = this.states.get(id);
    if (s === undefined) {
      s = { inFlight: 0, claimed: new Set(), queue: [], transport: undefined, failures: 0, pausedUntil: 0 };
      this.states.set(id, s);
    }
    return s;
  }

  private async dropTransport(id: string): Promise<void> {
    const s = this.states.get(id);
    if (s?.transport === undefined) return;
    const transport = s.transport;
    s.transport = undefined;
    try {
      await (await transport).close();
    } catch {
      // A transport that failed to open or close has nothing left to release.
    }
  }

  /** Claims due rows of every target and fills its free slots, then sleeps until the next due time. */
  private pass(): void {
    if (this.stopped) return;
    let nextDue = Infinity;
    const now = this.now();
    for (const target of this.opts.targets.all()) {
      const s = this.state(target.id);
      if (now < s.pausedUntil) {
        nextDue = Math.min(nextDue, s.pausedUntil);
        continue;
      }
      this.claim(target.id, s, now);
      this.pump(target, s);
      const due = this.opts.repo.nextDueAt(target.id);
      if (due !== undefined) nextDue = Math.min(nextDue, due);
    }
    this.pruneHourly();
    const pollMs = this.opts.pollMs ?? 15_000;
    this.schedule(Math.min(pollMs, Math.max(10, nextDue - now)));
  }

  /** Delivered rows are kept 7 days (dead letters until retried or their target is deleted). */
  private pruneHourly(): void {
    const now = this.now();
    if (now - this.lastPrune < 3_600_000) return;
    this.lastPrune = now;
    try {
      const pruned = this.opts.transaction(() => this.opts.repo.prune(now - 7 * 86_400_000));
      if (pruned > 0) this.opts.logger.info({ pruned }, 'pruned delivered bucket notifications');
    } catch (err) {
      this.opts.logger.error({ err }, 'pruning delivered bucket notifications failed');
    }
  }

  /** Tops up a target's queue with due rows (only the oldest pending row of each key is ever due). */
  private claim(targetId: string, s: TargetState, now: number): void {
    if (s.queue.length >= CLAIM_BATCH / 2) return;
    const rows = this.opts.repo
      .due(targetId, { now, maxId: this.opts.durableUpTo(), limit: CLAIM_BATCH + s.claimed.size })
      .filter((r) => !s.claimed.has(r.id))
      .slice(0, CLAIM_BATCH - s.queue.length);
    for (const row of rows) {
      s.claimed.add(row.id);
      s.queue.push(row);
    }
  }

  /** Sends queued rows into the target's free slots: all of them, or one probe while it is failing. */
  private pump(target: Target, s: TargetState): void {
    const slots = s.failures > 0 ? 1 : (this.opts.concurrency ?? 4);
    while (!this.stopped && s.inFlight < slots && this.now() >= s.pausedUntil) {
      const row = s.queue.shift();
      if (row === undefined) break;
      this.send(target, s, row);
    }
    if (s.queue.length < CLAIM_BATCH / 2) this.wake();
  }

  private send(target: Target, s: TargetState, row: NotificationRow): void {
    s.inFlight++;
    const release = (): void => {
      s.claimed.delete(row.id);
    };
    const done = this.attempt(target, s, row)
      .then((outcome) => {
        if (outcome === undefined) release();
        else this.record(outcome, release);
      })
      .catch((err: unknown) => {
        release();
        this.opts.logger.error({ err, target: target.id }, 'notification attempt failed');
      })
      .finally(() => {
        s.inFlight--;
        this.active.delete(done);
        // The target as it is now: its settings may have changed (or it may be gone) while this row was out.
        const current = this.opts.targets.find(target.id);
        if (current !== undefined) this.pump(current, s);
      });
    this.active.add(done);
  }

  private transportOf(target: Target, s: TargetState): Promise<NotificationTransport> {
    if (s.transport === undefined) {
      const config = { ...target.settings, ...target.secrets };
      const created = this.opts.createTransport?.(target) ?? createTransport(target.kind, config);
      // A transport that failed to open is made again on the next attempt.
      created.catch(() => {
        if (s.transport === created) s.transport = undefined;
      });
      s.transport = created;
    }
    return s.transport;
  }

  /** Queues an outcome to be written with the others of the next OUTCOME_WRITE_MS; its row stays claimed until then. */
  private record(outcome: NotificationOutcome, release: () => void): void {
    this.unwritten.push({ outcome, release });
    if (this.unwritten.length >= CLAIM_BATCH) this.writeOutcomes();
    else if (this.unwritten.length === 1) setTimeout(() => this.writeOutcomes(), OUTCOME_WRITE_MS).unref();
  }

  private writeOutcomes(): void {
    const batch = this.unwritten;
    this.unwritten = [];
    if (batch.length === 0) return;
    try {
      if (this.closed) return; // stopped: the rows stay pending and are sent again after a restart
      // The target may have been deleted meanwhile: its rows are gone and the update changes nothing.
      const now = this.now();
      this.opts.transaction(() =>
        this.opts.repo.recordOutcomes(
          batch.map((b) => b.outcome),
          now,
        ),
      );
    } catch (err) {
      // Not written: the rows stay pending with their old attempt counts and are sent again (at least once).
      this.opts.logger.error({ err, outcomes: batch.length }, 'writing notification outcomes failed');
    } finally {
      for (const b of batch) b.release();
      this.wake();
    }
  }

  /** One attempt; the outcome to write, or undefined once stopped (the row stays pending). */
  private async attempt(
    target: Target,
    s: TargetState,
    row: NotificationRow,
  ): Promise<NotificationOutcome | undefined> {
    let failure: string | undefined;
    let unreachable = false;
    try {
      const transport = await this.transportOf(target, s);
      await transport.send({ body: row.body, key: row.key, eventName: row.eventName, bucket: row.bucket });
    } catch (err) {
      failure = errorClass(err);
      unreachable = isUnreachable(err);
    }
    if (this.closed) return undefined;
    const attempts = row.attempts + 1;
    let outcome: NotificationOutcome;
    const random = this.opts.random ?? Math.random;
    if (failure === undefined) {
      s.failures = 0;
      s.pausedUntil = 0;
      outcome = { id: row.id, targetId: target.id, attempts, status: 'delivered' };
      this.opts.onOutcome?.(target.kind, 'delivered');
      return outcome;
    }
    s.failures++;
    const pauseCap = Math.min(this.opts.backoff.capMs, TARGET_PAUSE_CAP_MS);
    const jitter = fullJitterDelay(s.failures, { baseMs: this.opts.backoff.baseMs, capMs: pauseCap }, random);
    const pause = Math.max(TARGET_PAUSE_MIN_MS, jitter); // even with a zero retry base, no tight loop of probes
    s.pausedUntil = Math.max(s.pausedUntil, this.now() + pause);
    if (unreachable) {
      // Nothing reached the target: the row keeps its attempts and waits, due, for the target to come back.
      outcome = {
        id: row.id,
        targetId: target.id,
        attempts: row.attempts,
        status: 'retry',
        nextAttemptAt: this.now(),
        error: failure,
      };
      this.opts.onOutcome?.(target.kind, 'retried');
    } else if (attempts >= this.opts.maxAttempts) {
      outcome = { id: row.id, targetId: target.id, attempts, status: 'failed', error: failure };
      this.opts.onOutcome?.(target.kind, 'failed');
      this.opts.logger.warn({ target: target.id, attempts, reason: failure }, 'notification dead-lettered');
    } else {
      const wait = fullJitterDelay(attempts, this.opts.backoff, random);
      const nextAttemptAt = this.now() + wait;
      outcome = { id: row.id, targetId: target.id, attempts, status: 'retry', nextAttemptAt, error: failure };
      this.opts.onOutcome?.(target.kind, 'retried');
    }
    return outcome;
  }

  /**
   * Stops claiming; sends in flight get 2 s to finish and their outcomes are written before this returns (the database
   * closes next); those still out are abandoned, their rows pending, sent again after a restart.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await Promise.race([Promise.allSettled([...this.active]), new Promise((r) => setTimeout(r, 2000).unref())]);
    this.writeOutcomes();
    this.closed = true;
    await Promise.allSettled([...this.states.keys()].map((id) => this.dropTransport(id)));
  }
}
