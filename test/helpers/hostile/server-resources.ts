// What the server process holds, read from outside: open descriptors (/proc/<pid>/fd), resident memory (VmRSS),
// staging files left in DATA_DIR/tmp, and from /metrics the blobs pinned by reads in progress and the count of
// internal errors. Compared before and after a hostile run: nothing may leak.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { requestFds } from '../../../bench/soak.mjs';
import { parseSamples, scrape } from '../metrics-scrape.js';
import type { RunningServer } from '../server.js';

export interface Resources {
  fds: number;
  /**
   * Of those, the sockets and files other than the metadata database's (bench/soak.mjs requestFds): what a request
   * can leak. The rest belong to threads started on first use (the WAL checkpointer, the MD5 pool), which open their
   * loops' eventfds and epolls, and the checkpointer its database connection, once, whenever the load first needs them.
   */
  requestFds: number;
  rssMiB: number;
  stagingFiles: number;
  readPins: number;
  internalErrors: number;
}

export function openFds(pid: number): number {
  return readdirSync(`/proc/${pid}/fd`).length;
}

/** Sockets plus files other than the metadata database's (see Resources.requestFds). */
export function leakableFds(pid: number): number {
  const { sockets, files } = requestFds(pid);
  return sockets + files;
}

export function rssMiB(pid: number): number {
  const kib = Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? Number.NaN);
  return kib / 1024;
}

export function stagingFiles(server: RunningServer): string[] {
  return readdirSync(join(server.dataDir, 'tmp'), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));
}

/** store_blob_read_pins and the sum of store_internal_errors_total over its surfaces. */
export async function pinsAndErrors(server: RunningServer): Promise<{ readPins: number; internalErrors: number }> {
  const samples = parseSamples((await scrape(server)).text);
  const sum = (name: string): number => samples.filter((s) => s.name === name).reduce((a, s) => a + s.value, 0);
  if (!samples.some((s) => s.name === 'store_blob_read_pins'))
    throw new Error('/metrics has no store_blob_read_pins (METRICS_MODE=public?)');
  return { readPins: sum('store_blob_read_pins'), internalErrors: sum('store_internal_errors_total') };
}

export async function readResources(server: RunningServer): Promise<Resources> {
  const pid = server.process.pid as number;
  return {
    fds: openFds(pid),
    requestFds: leakableFds(pid),
    rssMiB: rssMiB(pid),
    stagingFiles: stagingFiles(server).length,
    ...(await pinsAndErrors(server)),
  };
}

/**
 * Polls `read` until `ok` holds or `ms` passed; returns the last value. The server lets go of a connection, a
 * lingering socket (up to 5 s) or a staged file a moment after the client is done, and frees memory when V8 decides.
 */
export async function pollUntil<T>(
  read: () => T | Promise<T>,
  ok: (value: T) => boolean,
  opts: { ms: number; everyMs?: number },
): Promise<T> {
  const deadline = Date.now() + opts.ms;
  for (;;) {
    const value = await read();
    if (ok(value) || Date.now() >= deadline) return value;
    await new Promise((r) => setTimeout(r, opts.everyMs ?? 200));
  }
}

/** The descriptor count once it has stopped changing (the same over `stableMs`), or after `ms`. */
export async function settledFds(pid: number, opts: { ms: number; stableMs?: number }): Promise<number> {
  const deadline = Date.now() + opts.ms;
  let last = openFds(pid);
  let since = Date.now();
  while (Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    const now = openFds(pid);
    if (now !== last) {
      last = now;
      since = Date.now();
    } else if (Date.now() - since >= (opts.stableMs ?? 1000)) {
      break;
    }
  }
  return last;
}
