// Background WAL checkpoints: a worker thread with its own connection copies committed WAL frames into meta.db,
// so the event loop never pays for a checkpoint (SQLite's automatic checkpoint runs inside whichever commit crosses
// the threshold, blocking the loop for the copy and its fsyncs). See docs/performance.md, "WAL checkpoints".
// The thread starts when the WAL first reaches the threshold, not at boot: until then a stat on the event loop
// watches it, and a server that has written little has no thread's heap to carry (about 9 MiB of RSS).

import { stat } from 'node:fs';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { Db } from './database.js';

/** The main connection's automatic checkpoint stays on as a safety net, far above what the worker lets build up. */
const SAFETY_NET_PAGES = 64_000;

export interface CheckpointerOptions {
  /** Checkpoint when the WAL is at least this big (bytes). */
  thresholdBytes?: number;
  /** How often the worker looks at the WAL size (ms). */
  intervalMs?: number;
}

// Plain JavaScript run with `eval`, so it needs no separate file next to the compiled one (or the TypeScript one in
// tests). PASSIVE never waits for or blocks the writer: frames the main connection is appending are left for the
// next round; once everything is copied, the writer restarts the WAL from its beginning on its next commit.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { statSync } = require('node:fs');
const Database = require(workerData.driver);
const db = new Database(workerData.file);
db.pragma('busy_timeout = 5000');
db.pragma('synchronous = NORMAL');
let stopped = false;
function tick() {
  if (stopped) return;
  try {
    let size = 0;
    try { size = statSync(workerData.file + '-wal').size; } catch {}
    if (size >= workerData.thresholdBytes) {
      const [row] = db.pragma('wal_checkpoint(PASSIVE)');
      parentPort.postMessage({ checkpointed: row.checkpointed, log: row.log });
    }
  } catch (err) {
    parentPort.postMessage({ error: String(err && err.message || err) });
  }
  setTimeout(tick, workerData.intervalMs);
}
parentPort.on('message', (m) => { if (m === 'stop') { stopped = true; db.close(); parentPort.postMessage({ stopped: true }); } });
tick();
`;

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
    worker.on('message', (m: { checkpointed?: number; error?: string }) => {
      if (m.error !== undefined) this.lastError = m.error;
      else if (m.checkpointed !== undefined) this.checkpoints++;
    });
    // A dead worker only means checkpoints fall back to the main connection's safety net.
    worker.on('error', (err) => { this.lastError = err.message; });
    worker.unref();
    this.worker = worker;
  }

  /** Starts checkpointing `file` (the main connection `db` keeps only the safety-net automatic checkpoint). */
  static start(db: Db, file: string, opts: CheckpointerOptions = {}): Checkpointer {
    db.pragma(`wal_autocheckpoint = ${SAFETY_NET_PAGES}`);
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    const thresholdBytes = opts.thresholdBytes ?? 8 * 1024 * 1024;
    const intervalMs = opts.intervalMs ?? 200;
    const start = (): Worker => new Worker(WORKER_SOURCE, { eval: true, workerData: { driver, file, thresholdBytes, intervalMs } });
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
      worker.on('message', (m: { stopped?: boolean }) => { if (m.stopped) done(); });
    });
    // The worker is unref'd while it runs; waiting for it must keep the process alive, or a caller awaiting stop()
    // with nothing else pending (a refused boot) would see the process exit with code 0 in the middle.
    worker.ref();
    worker.postMessage('stop');
    await Promise.race([stopped, new Promise((r) => setTimeout(r, 2000).unref())]);
    await worker.terminate();
  }
}
