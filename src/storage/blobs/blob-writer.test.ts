// The segment writer's write-behind: a large blob is flushed to disk in the background while it is written, one flush
// at a time, and a failed flush fails the blob. Run against a recording file handle, so the order of writes and
// flushes can be observed.

import { randomBytes } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { HEADER_SIZE, TAG_SIZE } from './blob-format.js';
import { SegmentWriter } from './blob-writer.js';

const SEG = 1024;
const BATCH = 8 * 1024;

/** A file handle that keeps what is written and logs each writev and datasync; datasync can be made to fail. */
function recordingHandle(opts: { failFlush?: boolean } = {}) {
  const log: string[] = [];
  let written = 0;
  let flushesInFlight = 0;
  let mostInFlight = 0;
  const handle = {
    async writev(buffers: Buffer[]) {
      const bytes = buffers.reduce((n, b) => n + b.length, 0);
      written += bytes;
      log.push(`write ${bytes}`);
      await new Promise((r) => setImmediate(r));
      return { bytesWritten: bytes, buffers };
    },
    async datasync() {
      flushesInFlight += 1;
      mostInFlight = Math.max(mostInFlight, flushesInFlight);
      log.push(`flush at ${written}`);
      // A flush takes longer than a write, as on a disk: three turns of the event loop to a write's one. Counted in
      // turns, not milliseconds, so the interleaving is the same on an idle machine and a loaded one.
      for (let turn = 0; turn < 3; turn++) await new Promise((r) => setImmediate(r));
      flushesInFlight -= 1;
      if (opts.failFlush) throw Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' });
    },
  };
  return { fh: handle as unknown as FileHandle, log, mostInFlight: () => mostInFlight };
}

function writer(fh: FileHandle, writeBehindBytes?: number): SegmentWriter {
  return new SegmentWriter({
    fh,
    dataKey: randomBytes(32),
    header: Buffer.alloc(HEADER_SIZE),
    segmentSize: SEG,
    batchBytes: BATCH,
    writeBehindBytes,
  });
}

async function feed(w: SegmentWriter, bytes: number): Promise<void> {
  const chunk = randomBytes(3000);
  for (let sent = 0; sent < bytes; sent += chunk.length)
    await w.push(chunk.subarray(0, Math.min(chunk.length, bytes - sent)));
}

describe('SegmentWriter write-behind', () => {
  it('flushes in the background while a large blob is written, one flush at a time, and writes every byte', async () => {
    const { fh, log, mostInFlight } = recordingHandle();
    const w = writer(fh, 4 * BATCH);
    const size = 40 * BATCH;
    await feed(w, size);
    await w.finish();
    const flushes = log.filter((l) => l.startsWith('flush'));
    expect(flushes.length).toBeGreaterThanOrEqual(2);
    // Flushes happen while writes go on, not only at the end.
    expect(log.indexOf(flushes[0] as string)).toBeLessThan(log.length / 2);
    expect(mostInFlight()).toBe(1);
    const segments = Math.ceil(size / SEG);
    const written = log.filter((l) => l.startsWith('write')).reduce((n, l) => n + Number(l.split(' ')[1]), 0);
    expect(written).toBe(HEADER_SIZE + size + segments * TAG_SIZE);
  });

  it('does not flush a blob smaller than the write-behind size, nor any blob without one', async () => {
    for (const [bytes, writeBehind] of [
      [3 * BATCH, 4 * BATCH],
      [40 * BATCH, undefined],
    ] as const) {
      const { fh, log } = recordingHandle();
      const w = writer(fh, writeBehind);
      await feed(w, bytes);
      await w.finish();
      expect(log.filter((l) => l.startsWith('flush'))).toEqual([]);
    }
  });

  it('fails the blob when a background flush fails (the kernel reports a writeback error to one fsync only)', async () => {
    const { fh } = recordingHandle({ failFlush: true });
    const w = writer(fh, 2 * BATCH);
    await feed(w, 20 * BATCH);
    await expect(w.finish()).rejects.toMatchObject({ code: 'EIO' });
  });

  it('settle waits for a flush in flight and does not throw its failure', async () => {
    const { fh, log } = recordingHandle({ failFlush: true });
    const w = writer(fh, 2 * BATCH);
    await feed(w, 6 * BATCH);
    expect(log.some((l) => l.startsWith('flush'))).toBe(true);
    await expect(w.settle()).resolves.toBeUndefined();
  });
});
