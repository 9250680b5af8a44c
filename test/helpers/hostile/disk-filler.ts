// Fills the data volume and frees it again at seeded moments of the plan, and watches how low its free space goes.
// With a free-space reserve the filler stops a few MiB above it, leaving room for the writes already on their way
// and holding new ones back until the server has read the new free space; without one it goes to the last byte.

import { open, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Tmpfs } from '../tmpfs.js';
import type { Rng } from './rng.js';
import type { WriteGate } from './write-gate.js';

const MiB = 1024 * 1024;
/** The reserve's reading of the free space is at most 250 ms old (src/services/write-reserve.ts): wait longer. */
const RESERVE_READING_MS = 300;

/** One fill: from plan item `from` to item `until`, leaving `extra` bytes (plus the reserve and writes in flight). */
export interface FillEvent {
  from: number;
  until: number;
  /** 'last-byte': to ENOSPC; else bytes left free above the reserve and the writes in flight. */
  leave: 'last-byte' | number;
}

/** Fill windows between items `first` and `last`, none overlapping. */
export function fillSchedule(
  rng: Rng,
  opts: { first: number; last: number; windows: number; reserve: boolean },
): FillEvent[] {
  const span = Math.max(1, Math.floor((opts.last - opts.first) / opts.windows));
  return Array.from({ length: opts.windows }, (_, i) => {
    const from = opts.first + i * span + rng.int(0, Math.floor(span / 3));
    const until = from + rng.int(Math.floor(span / 4), Math.floor(span / 2));
    const leave = opts.reserve ? rng.int(1 * MiB, 6 * MiB) : rng.chance(0.5) ? 'last-byte' : rng.int(0, 8 * MiB);
    return { from, until, leave };
  });
}

export class DiskFiller {
  private readonly path: string;
  private lowest = Number.POSITIVE_INFINITY;
  /** Fills and frees run one at a time, in the order the plan reaches them. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly opts: { volume: Tmpfs; reserveBytes: number; gate: WriteGate }) {
    this.path = join(opts.volume.dir, 'filler');
  }

  /** The lowest free space seen by sample(). */
  get lowestFree(): number {
    return this.lowest;
  }

  sample(): number {
    const free = this.opts.volume.free();
    this.lowest = Math.min(this.lowest, free);
    return free;
  }

  /** Takes the free space down as `event` says; returns what it did, for the summary. */
  fill(event: FillEvent): Promise<string> {
    return this.serially(() => this.fillNow(event));
  }

  /** Frees what fill() took. */
  free(): Promise<void> {
    return this.serially(() => rm(this.path, { force: true }));
  }

  private serially<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(task);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async fillNow(event: FillEvent): Promise<string> {
    const { gate, reserveBytes } = this.opts;
    if (event.leave === 'last-byte') {
      await this.write(0);
      return `filled to the last byte (${(this.sample() / MiB).toFixed(1)} MiB free)`;
    }
    // With a reserve: new writes wait while the filler measures what is in flight, fills, and the server's reading
    // of the free space goes stale; what is in flight may then still land, and must fit above the reserve.
    if (reserveBytes > 0) gate.close();
    try {
      const leave = reserveBytes > 0 ? reserveBytes + gate.bytesInFlight + event.leave : event.leave;
      await this.write(leave);
      const note = `filled to ${(this.sample() / MiB).toFixed(1)} MiB free (reserve ${(reserveBytes / MiB).toFixed(0)} MiB + ${(event.leave / MiB).toFixed(1)} MiB)`;
      if (reserveBytes > 0) await new Promise((r) => setTimeout(r, RESERVE_READING_MS));
      return note;
    } finally {
      gate.open();
    }
  }

  /** Appends zeros until at most `leaveFree` bytes are free (0: until ENOSPC), asynchronously. */
  private async write(leaveFree: number): Promise<number> {
    const chunk = Buffer.alloc(8 * MiB);
    const file = await open(this.path, 'a');
    let written = 0;
    try {
      for (;;) {
        const room = this.opts.volume.free() - leaveFree;
        if (room <= 0) return written;
        try {
          written += (await file.write(chunk, 0, Math.min(chunk.length, room))).bytesWritten;
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code === 'ENOSPC') return written;
          throw err;
        }
      }
    } finally {
      await file.close();
    }
  }
}
