// BlobStore against damaged files: every kind of damage is reported as a BlobCorruptError with the right
// reason, and no byte of a segment that fails authentication is ever emitted.

import { randomBytes } from 'node:crypto';
import { open, readFile, truncate, unlink, writeFile } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { HEADER_SIZE, TAG_SIZE } from './blob-format.js';
import { BlobCorruptError, BlobStore, type BlobCorruptReason } from './blob-store.js';
import { useBlobStore } from '../../../test/helpers/blob-fixture.js';

const SEG = 1024;
const STRIDE = SEG + TAG_SIZE;
const fx = useBlobStore({ prefix: 'blob-corrupt-', segmentSize: SEG });
const { blobPath, put } = fx;

/** Reads until the stream ends or fails; returns what was emitted and the error, if any. */
async function drain(stream: Readable): Promise<{ emitted: Buffer; error: unknown }> {
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    return { emitted: Buffer.concat(chunks), error: undefined };
  } catch (error) {
    return { emitted: Buffer.concat(chunks), error };
  }
}

async function expectCorrupt(id: string, size: number, reason: BlobCorruptReason): Promise<void> {
  const { error } = await drain(fx.store.createReadStream(id, { size }));
  expect(error).toBeInstanceOf(BlobCorruptError);
  expect(error).toMatchObject({ code: 'EBLOBCORRUPT', reason, blobId: id });
  await expect(fx.store.verify(id, size)).rejects.toMatchObject({ code: 'EBLOBCORRUPT', reason });
  expect(String((error as Error).message)).not.toContain(fx.masterKey.toString('hex'));
}

async function patch(path: string, position: number, bytes: Buffer): Promise<void> {
  const fh = await open(path, 'r+');
  try {
    await fh.write(bytes, 0, bytes.length, position);
  } finally {
    await fh.close();
  }
}

async function flipByte(path: string, position: number): Promise<void> {
  const file = await readFile(path);
  await patch(path, position, Buffer.from([(file[position] as number) ^ 0x01]));
}

describe('damage detection', () => {
  const size = 3 * SEG + 100;

  it('accepts an intact blob (the control for every case below)', async () => {
    const data = randomBytes(size);
    const id = await put(data);
    await fx.store.verify(id, size);
    expect((await drain(fx.store.createReadStream(id, { size }))).emitted.equals(data)).toBe(true);
  });

  it('reports a flipped ciphertext byte as tampered', async () => {
    const id = await put(randomBytes(size));
    await flipByte(blobPath(id), HEADER_SIZE + STRIDE + 10);
    await expectCorrupt(id, size, 'tampered');
  });

  it('reports a flipped tag byte as tampered', async () => {
    const id = await put(randomBytes(size));
    await flipByte(blobPath(id), HEADER_SIZE + STRIDE + SEG + 3);
    await expectCorrupt(id, size, 'tampered');
  });

  it('still serves ranges that avoid a tampered segment, and fails ranges that touch it', async () => {
    const data = randomBytes(size);
    const id = await put(data);
    await flipByte(blobPath(id), HEADER_SIZE + 2 * STRIDE + 5);
    const before = await drain(fx.store.createReadStream(id, { size, start: 0, end: 2 * SEG - 1 }));
    expect(before.error).toBeUndefined();
    expect(before.emitted.equals(data.subarray(0, 2 * SEG))).toBe(true);
    const touching = await drain(fx.store.createReadStream(id, { size, start: 2 * SEG + 500, end: 2 * SEG + 500 }));
    expect(touching.error).toMatchObject({ reason: 'tampered' });
    expect(touching.emitted.length).toBe(0);
  });

  it('emits the segments before a tampered one and not one byte of it', async () => {
    // With 1 MiB segments each read holds one segment, so the good ones are emitted before the bad one is read.
    const big = new BlobStore({ dataDir: fx.dataDir, masterKey: fx.masterKey, segmentSize: 1024 * 1024 });
    const bigSize = 3 * 1024 * 1024 + 7;
    const data = randomBytes(bigSize);
    const id = await put(data, big);
    await flipByte(blobPath(id), HEADER_SIZE + 2 * (1024 * 1024 + TAG_SIZE) + 100);
    const { emitted, error } = await drain(big.createReadStream(id, { size: bigSize }));
    expect(error).toMatchObject({ reason: 'tampered' });
    expect(emitted.length).toBe(2 * 1024 * 1024);
    expect(emitted.equals(data.subarray(0, emitted.length))).toBe(true);
  });

  it('reports a file cut short by one segment as truncated', async () => {
    const id = await put(randomBytes(size));
    await truncate(blobPath(id), HEADER_SIZE + 3 * STRIDE);
    await expectCorrupt(id, size, 'truncated');
  });

  it('detects a cut at a segment boundary even when the recorded size matches the cut (final flag)', async () => {
    const id = await put(randomBytes(3 * SEG));
    await truncate(blobPath(id), HEADER_SIZE + 2 * STRIDE);
    await expectCorrupt(id, 2 * SEG, 'tampered');
  });

  it('detects an extension: a recorded size shorter than what was written', async () => {
    const id = await put(randomBytes(3 * SEG));
    await expectCorrupt(id, 2 * SEG, 'tampered'); // file longer than 2 segments
    await writeFile(blobPath(id), Buffer.concat([await readFile(blobPath(id)), randomBytes(STRIDE)]));
    await expectCorrupt(id, 3 * SEG, 'tampered'); // bytes appended after the final segment
  });

  it('detects two swapped segments', async () => {
    const id = await put(randomBytes(size));
    const file = await readFile(blobPath(id));
    const first = file.subarray(HEADER_SIZE, HEADER_SIZE + STRIDE);
    const second = file.subarray(HEADER_SIZE + STRIDE, HEADER_SIZE + 2 * STRIDE);
    await patch(blobPath(id), HEADER_SIZE, Buffer.concat([Buffer.from(second), Buffer.from(first)]));
    await expectCorrupt(id, size, 'tampered');
  });

  it('reports a different master key as a header problem', async () => {
    const id = await put(randomBytes(size));
    fx.store = new BlobStore({ dataDir: fx.dataDir, masterKey: randomBytes(32), segmentSize: SEG });
    await expectCorrupt(id, size, 'header');
  });

  it('reports an edited magic, version or segment size as a header problem', async () => {
    for (const [at, value] of [
      [0, 0x00],
      [4, 0x02],
      [10, 0x08],
    ] as const) {
      const id = await put(randomBytes(size));
      await patch(blobPath(id), at, Buffer.from([value]));
      await expectCorrupt(id, size, 'header');
    }
  });

  it('reports a missing file as missing', async () => {
    const id = await put(randomBytes(10));
    await unlink(blobPath(id));
    await expectCorrupt(id, 10, 'missing');
  });

  it('reports a file shorter than its header as truncated', async () => {
    const id = await put(randomBytes(10));
    await truncate(blobPath(id), 20);
    await expectCorrupt(id, 10, 'truncated');
  });
});

describe('the empty blob', () => {
  it('is a header plus one empty final segment, and emits nothing', async () => {
    const id = await put(Buffer.alloc(0));
    expect((await readFile(blobPath(id))).length).toBe(HEADER_SIZE + TAG_SIZE);
    const { emitted, error } = await drain(fx.store.createReadStream(id, { size: 0 }));
    expect(error).toBeUndefined();
    expect(emitted.length).toBe(0);
  });

  it('detects a cut down to the header alone', async () => {
    const id = await put(Buffer.alloc(0));
    await truncate(blobPath(id), HEADER_SIZE);
    await expectCorrupt(id, 0, 'truncated');
  });

  it('detects a tampered tag of its empty segment', async () => {
    const id = await put(Buffer.alloc(0));
    await flipByte(blobPath(id), HEADER_SIZE + 4);
    await expectCorrupt(id, 0, 'tampered');
  });

  it('is not accepted in place of a one-segment blob whose segment was removed', async () => {
    const id = await put(randomBytes(SEG));
    await truncate(blobPath(id), HEADER_SIZE + TAG_SIZE);
    await expectCorrupt(id, 0, 'tampered');
  });
});
