// The blob store marks its bulk transfers (lib/bulk-heap.ts): file blobs read or written and medium inline bodies hold
// the roomy heap setting while their bytes are in memory, so their buffers do not set off a full GC every few
// requests; small bodies do not, so small-object work keeps the tight setting.

import { randomBytes } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import { useBlobStore } from '../../../test/helpers/blob-fixture.js';
import { bulkHeapHolders, bulkHeapSettling } from '../../lib/bulk-heap.js';

const SEG = 64 * 1024;
const fx = useBlobStore({ prefix: 'blob-bulk-heap-', segmentSize: SEG });

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Buffer equality without vitest's element-by-element deep diff, which is slow on large buffers. */
function expectBytes(actual: Buffer, expected: Buffer): void {
  expect(actual.length).toBe(expected.length);
  expect(actual.equals(expected)).toBe(true);
}

describe('large reads hold the heap setting (lib/bulk-heap.ts)', () => {
  const BIG = 3 * 1024 * 1024;

  it('holds it while a large blob is read, and lets go at the end or when the reader is destroyed', async () => {
    const data = randomBytes(BIG);
    const id = await fx.put(data);
    const whole = fx.store.createReadStream(id, { size: BIG });
    const chunks: Buffer[] = [];
    const during: number[] = [];
    for await (const chunk of whole) {
      chunks.push(chunk as Buffer);
      during.push(bulkHeapHolders());
    }
    expectBytes(Buffer.concat(chunks), data);
    expect(Math.max(...during)).toBe(1);
    expect(bulkHeapHolders()).toBe(0);

    const cut = fx.store.createReadStream(id, { size: BIG });
    for await (const chunk of cut) {
      void chunk;
      break; // destroys the stream
    }
    await new Promise((resolve) => setImmediate(resolve));
    expect(bulkHeapHolders()).toBe(0);
  });

  /** Waits (bounded) until no earlier test's bulk setting is still settling, so the next `settling` is this test's. */
  const quiet = () => vi.waitUntil(() => !bulkHeapSettling(), { timeout: 5000, interval: 20 });

  it('takes it for a medium blob read at once, and for a medium inline body sealed or opened; not for a small one', async () => {
    const id = await fx.put(randomBytes(200_000));
    await quiet();
    expect((await fx.store.readAtOnce(id, { size: 200_000 }))?.length).toBe(200_000);
    expect(bulkHeapHolders()).toBe(0);
    expect(bulkHeapSettling()).toBe(true); // held while it ran, released at its end

    await quiet();
    const small = fx.store.sealInline(randomBytes(4096));
    expect(fx.store.readSealed(small.id, { size: 4096, sealed: small.sealed as Buffer })).toHaveLength(4096);
    expect(bulkHeapSettling()).toBe(false);
    const medium = fx.store.sealInline(randomBytes(64 * 1024));
    expect(bulkHeapSettling()).toBe(true);
    await quiet();
    expect(fx.store.readSealed(medium.id, { size: 64 * 1024, sealed: medium.sealed as Buffer })).toHaveLength(65536);
    expect(bulkHeapSettling()).toBe(true);
    expect(bulkHeapHolders()).toBe(0);
  });

  it('does not take it for a blob streamed in one read', async () => {
    const data = randomBytes(100_000);
    const id = await fx.put(data);
    const stream = fx.store.createReadStream(id, { size: data.length });
    const during: number[] = [];
    for await (const chunk of stream) {
      void chunk;
      during.push(bulkHeapHolders());
    }
    expect(during.length).toBeGreaterThan(0);
    expect(during.every((holders) => holders === 0)).toBe(true);
  });
});

describe('large writes hold the heap setting (lib/bulk-heap.ts)', () => {
  const BIG = 3 * 1024 * 1024;

  /** Yields `data` in 64 KiB chunks, noting the number of holders before each. */
  async function* noting(data: Buffer, seen: number[]): AsyncGenerator<Buffer> {
    for (let offset = 0; offset < data.length; offset += SEG) {
      seen.push(bulkHeapHolders());
      yield data.subarray(offset, offset + SEG);
    }
  }

  it('holds it from the first segment of a file blob until the blob is written', async () => {
    const data = randomBytes(BIG);
    const seen: number[] = [];
    const staged = await fx.store.stage(noting(data, seen));
    // Before the first chunk nothing holds it; from the first sealed segment on, the blob does.
    expect(seen[0]).toBe(0);
    expect(seen.slice(1)).toEqual(new Array(seen.length - 1).fill(1));
    expect(bulkHeapHolders()).toBe(0);
    await staged.commit();
    expectBytes(await readAll(fx.store.createReadStream(staged.id, { size: BIG })), data);
  });

  it('lets go when the body fails after the first batch', async () => {
    async function* failing(): AsyncGenerator<Buffer> {
      yield randomBytes(2 * 1024 * 1024);
      expect(bulkHeapHolders()).toBe(1);
      throw new Error('the client went away');
    }
    await expect(fx.store.stage(failing())).rejects.toThrow('the client went away');
    expect(bulkHeapHolders()).toBe(0);
    expect(await readdir(join(fx.dataDir, 'tmp'))).toEqual([]);
  });

  it('takes it for a body of one batch too (a medium object), and lets go once it is written', async () => {
    const seen: number[] = [];
    await fx.store.stage(noting(randomBytes(256 * 1024), seen));
    expect(seen.slice(1)).toEqual([1, 1, 1]);
    await fx.store.stageBuffer(randomBytes(256 * 1024));
    expect(bulkHeapHolders()).toBe(0);
  });
});
