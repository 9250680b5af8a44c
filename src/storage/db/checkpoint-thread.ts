// The WAL checkpointer's thread (checkpointer.ts starts it): a connection of its own to meta.db that copies committed
// WAL frames into the database file whenever the WAL has reached the threshold. PASSIVE never waits for or blocks
// the writer: frames the main connection is appending are left for the next round; once everything is copied, the
// writer restarts the WAL from its beginning on its next commit.
//   main -> thread  'stop'
//   thread -> main  { checkpointed, log } after a checkpoint | { error } | { stopped: true }

import Database from 'better-sqlite3';
import { statSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';

/** What checkpointer.ts passes in `workerData`. */
export interface CheckpointThreadData {
  /** meta.db */
  file: string;
  thresholdBytes: number;
  intervalMs: number;
}

export type CheckpointThreadMessage = { checkpointed: number; log: number } | { error: string } | { stopped: true };

const port = parentPort;
if (port === null) throw new Error('checkpoint-thread.js runs as a worker thread only');
const data = workerData as CheckpointThreadData;
const send = (message: CheckpointThreadMessage): void => port.postMessage(message);

const db = new Database(data.file);
db.pragma('busy_timeout = 5000');
db.pragma('synchronous = NORMAL');
let stopped = false;

function walSize(): number {
  try {
    return statSync(`${data.file}-wal`).size;
  } catch {
    return 0; // no WAL file yet (or just reset): nothing to copy
  }
}

function tick(): void {
  if (stopped) return;
  try {
    if (walSize() >= data.thresholdBytes) {
      const [row] = db.pragma('wal_checkpoint(PASSIVE)') as { checkpointed: number; log: number }[];
      if (row !== undefined) send({ checkpointed: row.checkpointed, log: row.log });
    }
  } catch (err) {
    send({ error: err instanceof Error ? err.message : String(err) });
  }
  setTimeout(tick, data.intervalMs);
}

port.on('message', (m: unknown) => {
  if (m !== 'stop' || stopped) return;
  stopped = true;
  db.close();
  send({ stopped: true });
});
tick();
