// Background WAL checkpoints: a worker thread with its own connection copies committed WAL frames into meta.db,
// so the event loop never pays for a checkpoint (SQLite's automatic checkpoint runs inside whichever commit crosses
// the threshold, blocking the loop for the copy and its fsyncs). See docs/performance.md, "WAL checkpoints".
// The thread starts when the WAL first reaches the threshold, not at boot: until then a stat on the event loop
// watches it, and a server that has written little has no thread's heap to carry (about 9 MiB of RSS).

import { stat } from 'node:fs';
import type { Worker } from 'node:worker_threads';
import { startThread } from '../../lib/start-thread.js';
import type { CheckpointThreadData, CheckpointThreadMessage } from './checkpoint-thread.js';
import type { Db } from './database.js';

/** The main connection's automatic checkpoint stays on as a safety net, far above what the worker lets build up. */
const SAFETY_NET_PAGES = 64_000;

export interface CheckpointerOptions {
  /** Checkpoint when the WAL is at least this big (bytes). */
  thresholdBytes?: number;
  /** How often the worker looks at the WAL size (ms). */
  intervalMs?: number;
}

export class Checkpointer {
  private worker: Worker | undefined;
  private watch: NodeJS.Timeout | undefined;
  private checkpoints = 0;
  private lastError: string | undefined;

  private constructor(
    private readonly start: () => Worker,
    private readonly opts: { file: string; thresholdBytes: number; intervalMs: number },
  ) {
    this.watchWal();
  }

  /** Until the WAL reaches the threshold: a stat per interval; then the worker, which takes over the watching. */
  private watchWal(): void {
    this.watch = setTimeout(() => {
      stat(`${this.opts.file}-wal`, (err, st) => {
        if (this.watch === undefined) return; // stopped meanwhile
        if (!err && st.size >= this.opts.thresholdBytes) this.startWorker();
        else this.watchWal();
      });
    }, this.opts.intervalMs);
    this.watch.unref();
  }

  private startWorker(): void {
    this.watch = undefined;
    const worker = this.start();
    worker.on('message', (m: CheckpointThreadMessage) => {
      if ('error' in m) this.lastError = m.error;
      else if ('checkpointed' in m) this.checkpoints++;
    });
    // A dead worker only means checkpoints fall back to the main connection's safety net.
    worker.on('error', (err) => {
      this.lastError = err.message;
    });
    worker.unref();
    this.worker = worker;
  }

  /** Starts checkpointing `file` (the main connection `db` keeps only the safety-net automatic checkpoint). */
  static start(db: Db, file: string, opts: CheckpointerOptions = {}): Checkpointer {
    db.pragma(`wal_autocheckpoint = ${SAFETY_NET_PAGES}`);
    const thresholdBytes = opts.thresholdBytes ?? 8 * 1024 * 1024;
    const intervalMs = opts.intervalMs ?? 200;
    const workerData: CheckpointThreadData = { file, thresholdBytes, intervalMs };
    const start = (): Worker => startThread(new URL('./checkpoint-thread.js', import.meta.url), { workerData });
    return new Checkpointer(start, { file, thresholdBytes, intervalMs });
  }

  /** Checkpoints completed by the worker so far. */
  get count(): number {
    return this.checkpoints;
  }

  /** Whether the worker thread runs (it starts when the WAL first reaches the threshold). */
  get isThreadStarted(): boolean {
    return this.worker !== undefined;
  }

  /** The last error the worker reported, if any (for diagnostics; checkpoints then fall back to the safety net). */
  get error(): string | undefined {
    return this.lastError;
  }

  /** Stops the watch or the worker, and closes the worker's connection. */
  async stop(): Promise<void> {
    clearTimeout(this.watch);
    this.watch = undefined;
    const worker = this.worker;
    if (!worker) return;
    const stopped = new Promise<void>((resolve) => {
      const done = (): void => resolve();
      worker.once('exit', done);
      worker.on('message', (m: CheckpointThreadMessage) => {
        if ('stopped' in m) done();
      });
    });
    // The worker is unref'd while it runs; waiting for it must keep the process alive, or a caller awaiting stop()
    // with nothing else pending (a refused boot) would see the process exit with code 0 in the middle.
    worker.ref();
    worker.postMessage('stop');
    await Promise.race([stopped, new Promise((r) => setTimeout(r, 2000).unref())]);
    await worker.terminate();
  }
}
