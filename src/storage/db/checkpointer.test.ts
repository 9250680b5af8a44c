// Background checkpoints: the worker copies committed WAL frames into meta.db while the main connection keeps
// writing, nothing is lost across close and reopen, and stop() ends the worker.

import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MetadataStore } from './metadata-store.js';

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'checkpointer-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const until = async (cond: () => boolean, ms = 5000): Promise<void> => {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
};

describe('Checkpointer', () => {
  it('checkpoints in the background while writes go on, and loses nothing', async () => {
    const file = join(dir, 'meta.db');
    const meta = MetadataStore.open(file);
    meta.db.pragma('wal_checkpoint(TRUNCATE)'); // the migrations' frames out of the WAL: it starts empty
    const sizeBefore = statSync(file).size;
    const checkpointer = meta.startBackgroundCheckpoints({ thresholdBytes: 64 * 1024, intervalMs: 10 });
    expect(meta.startBackgroundCheckpoints()).toBe(checkpointer);
    await new Promise((r) => setTimeout(r, 50));
    expect(checkpointer.isThreadStarted).toBe(false); // no thread until the WAL reaches the threshold
    const insert = meta.db.prepare('INSERT INTO inline_blobs (blob_id, sealed) VALUES (?, ?)');
    for (let i = 0; i < 400; i++) {
      meta.transaction(() => insert.run(`i${String(i).padStart(32, '0')}`, Buffer.alloc(4096, i % 256)));
      if (i % 50 === 0) await new Promise((r) => setTimeout(r, 5));
    }
    await meta.durable();
    await until(() => checkpointer.count > 0);
    expect(checkpointer.isThreadStarted).toBe(true);
    expect(checkpointer.error).toBeUndefined();
    // The frames reached the database file itself, not only the WAL.
    await until(() => statSync(file).size > sizeBefore + 100 * 4096);
    await meta.close();

    const reopened = MetadataStore.open(file);
    expect(reopened.db.prepare('SELECT COUNT(*) FROM inline_blobs').pluck().get()).toBe(400);
    await reopened.close();
  });

  it('stops with the store, so a closed store leaves no worker behind, started or not', async () => {
    for (const thresholdBytes of [0, 64 * 1024 * 1024]) {
      const meta = MetadataStore.open(join(dir, `meta-${thresholdBytes}.db`));
      const checkpointer = meta.startBackgroundCheckpoints({ intervalMs: 10, thresholdBytes });
      if (thresholdBytes === 0) await until(() => checkpointer.isThreadStarted);
      const started = Date.now();
      await meta.close();
      expect(Date.now() - started).toBeLessThan(2000);
    }
  });
});
