// BlobStore.readAtOnce: a file blob that fits one read comes back whole and authenticated, byte for byte what the
// stream gives for every size and range around the segment boundaries, and every kind of damage fails it before a
// byte is returned, with the stream's reasons; a file it cannot judge in one read (longer than its size) is declined.

import { randomBytes } from 'node:crypto';
import { appendFile, open, truncate, unlink } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { HEADER_SIZE, TAG_SIZE } from './blob-format.js';
import { BlobStore } from './blob-store.js';
import { useBlobStore } from '../../../test/helpers/blob-fixture.js';

const SEG = 1024;
const fx = useBlobStore({ prefix: 'blob-at-once-', segmentSize: SEG });
const { blobPath, put } = fx;

async function streamed(id: string, opts: { size: number; start?: number; end?: number }): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of fx.store.createReadStream(id, opts)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

describe('BlobStore.readAtOnce', () => {
  it('reads what the stream reads, for sizes and ranges around the segment boundaries', async () => {
    for (const size of [1, SEG - 1, SEG, SEG + 1, 3 * SEG, 3 * SEG + 7]) {
      const data = randomBytes(size);
      const id = await put(data);
      const ranges = [
        { start: 0, end: size - 1 },
        { start: 0, end: 0 },
        { start: size - 1, end: size - 1 },
        { start: Math.min(SEG - 1, size - 1), end: Math.min(SEG, size - 1) },
        { start: Math.floor(size / 3), end: Math.floor((2 * size) / 3) },
      ];
      expect((await fx.store.readAtOnce(id, { size }))?.equals(data), `size ${size}`).toBe(true);
      for (const r of ranges) {
        const got = await fx.store.readAtOnce(id, { size, ...r });
        const want = await streamed(id, { size, ...r });
        expect(got?.equals(want) && want.equals(data.subarray(r.start, r.end + 1)), `${size} ${r.start}-${r.end}`).toBe(
          true,
        );
      }
    }
  });

  it('says which sizes fit one read (1 MiB of file)', () => {
    const big = new BlobStore({ dataDir: fx.dataDir, masterKey: fx.masterKey });
    expect(big.fitsOneRead(1024 * 1024 - 1024)).toBe(true);
    expect(big.fitsOneRead(1024 * 1024)).toBe(false);
  });

  it('reports a missing file as missing', async () => {
    const id = await put(randomBytes(100));
    await unlink(blobPath(id));
    await expect(fx.store.readAtOnce(id, { size: 100 })).rejects.toMatchObject({
      code: 'EBLOBCORRUPT',
      reason: 'missing',
    });
  });

  it('reports a cut file as truncated, and a cut header too', async () => {
    const size = 2 * SEG + 10;
    const id = await put(randomBytes(size));
    await truncate(blobPath(id), HEADER_SIZE + SEG + TAG_SIZE + 5);
    await expect(fx.store.readAtOnce(id, { size })).rejects.toMatchObject({ reason: 'truncated' });
    await truncate(blobPath(id), HEADER_SIZE - 1);
    await expect(fx.store.readAtOnce(id, { size })).rejects.toMatchObject({ reason: 'truncated' });
  });

  it('reports a flipped bit as tampered and returns no byte, even for a range before it', async () => {
    const size = 3 * SEG;
    const id = await put(randomBytes(size));
    const fh = await open(blobPath(id), 'r+');
    const at = HEADER_SIZE + 2 * (SEG + TAG_SIZE) + 3; // in the third segment
    const byte = Buffer.alloc(1);
    await fh.read(byte, 0, 1, at);
    byte[0] = (byte[0] as number) ^ 1;
    await fh.write(byte, 0, 1, at);
    await fh.close();
    await expect(fx.store.readAtOnce(id, { size })).rejects.toMatchObject({ reason: 'tampered' });
    // A range inside the first segment never reads the damaged one: as the stream, it is served.
    expect((await fx.store.readAtOnce(id, { size, start: 0, end: 9 }))?.length).toBe(10);
  });

  it('reports another master key as a bad header', async () => {
    const id = await put(randomBytes(100));
    const other = new BlobStore({ dataDir: fx.dataDir, masterKey: randomBytes(32), segmentSize: SEG });
    await expect(other.readAtOnce(id, { size: 100 })).rejects.toMatchObject({ reason: 'header' });
  });

  it('declines a file longer than its size, which the stream then reports as tampered', async () => {
    const id = await put(randomBytes(100));
    await appendFile(blobPath(id), Buffer.from('extra'));
    expect(await fx.store.readAtOnce(id, { size: 100 })).toBeUndefined();
    await expect(streamed(id, { size: 100 })).rejects.toMatchObject({ reason: 'tampered' });
  });

  it('reads a blob written with a smaller segment size than the store now uses, and declines a larger one', async () => {
    const data = randomBytes(5000);
    const small = new BlobStore({ dataDir: fx.dataDir, masterKey: fx.masterKey, segmentSize: 512 });
    const id = await put(data, small);
    // 512-byte segments have more tags than 1,024-byte ones: the file is longer than one read expects.
    expect(await fx.store.readAtOnce(id, { size: data.length })).toBeUndefined();
    const large = new BlobStore({ dataDir: fx.dataDir, masterKey: fx.masterKey, segmentSize: 4096 });
    const id2 = await put(data, large);
    expect((await fx.store.readAtOnce(id2, { size: data.length }))?.equals(data)).toBe(true);
  });

  it('refuses a malformed id and a range outside the blob', async () => {
    await expect(async () => fx.store.readAtOnce('../x', { size: 1 })).rejects.toThrow(TypeError);
    const id = await put(randomBytes(10));
    await expect(async () => fx.store.readAtOnce(id, { size: 10, start: 5, end: 10 })).rejects.toThrow(RangeError);
  });
});
