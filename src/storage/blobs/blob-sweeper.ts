// Garbage collection of orphaned blobs (a crash between commit and the metadata transaction leaves one):
// a streaming walk of blobs/ab/cd/ that yields to the event loop, since it may visit millions of files.

import { lstat, opendir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { isBlobId } from './blob-tree.js';

const HEX2 = /^[0-9a-f]{2}$/;
/** Entries visited between two yields: keeps each event-loop turn to a few milliseconds. */
const YIELD_EVERY = 256;

export async function sweepOrphans(
  blobsDir: string,
  isReferenced: (id: string) => boolean,
  opts: { olderThanMs: number; signal?: AbortSignal },
): Promise<number> {
  const { olderThanMs, signal } = opts;
  signal?.throwIfAborted();
  let removed = 0;
  let visited = 0;
  for (const top of await subdirs(blobsDir)) {
    for (const leaf of await subdirs(join(blobsDir, top))) {
      const dir = join(blobsDir, top, leaf);
      for await (const entry of await opendir(dir)) {
        visited += 1;
        if (visited % YIELD_EVERY === 0) {
          await yieldToLoop();
          signal?.throwIfAborted();
        }
        const id = entry.name;
        // Only files named like our ids, in the directory their id names, are ours to judge.
        if (!entry.isFile() || !isBlobId(id) || id.slice(0, 4) !== top + leaf || isReferenced(id)) continue;
        // Stat only the unreferenced: the common case (referenced) costs no syscall.
        const stats = await lstat(join(dir, id)).catch(ignoreMissing);
        if (stats === undefined || stats.mtimeMs >= olderThanMs) continue;
        // Re-check after the await: the blob may have been referenced meanwhile.
        if (isReferenced(id)) continue;
        if (await unlink(join(dir, id)).then(() => true, ignoreMissing)) removed += 1;
      }
    }
    signal?.throwIfAborted();
  }
  return removed;
}

/** Two-hex-character subdirectories, sorted (a missing directory has none). */
async function subdirs(dir: string): Promise<string[]> {
  const names: string[] = [];
  try {
    for await (const entry of await opendir(dir)) {
      if (entry.isDirectory() && HEX2.test(entry.name)) names.push(entry.name);
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return names;
    throw err;
  }
  return names.sort();
}

function ignoreMissing(err: NodeJS.ErrnoException): undefined {
  if (err.code === 'ENOENT') return undefined;
  throw err;
}
