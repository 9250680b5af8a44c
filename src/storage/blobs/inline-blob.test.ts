// Inline blobs: sealed in memory in the file format, read back from the sealed bytes with the same checks (ranges,
// multi-segment, tampering, truncation, extension, a wrong master key), as a stream or at once (readSealed), and
// never written as files.

import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HEADER_SIZE, TAG_SIZE } from './blob-format.js';
import { BlobCorruptError, BlobStore, isBlobId, isInlineBlobId } from './blob-store.js';

const SEG = 1024;
let dataDir: string;
let store: BlobStore;
let masterKey: Buffer;

beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'inline-blob-'));
  masterKey = randomBytes(32);
  store = new BlobStore({ dataDir, masterKey, segmentSize: SEG });
  await store.init();
});

afterEach(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function reasonOf(stream: () => Readable): Promise<string | undefined> {
  try {
    await readAll(stream());
  } catch (err) {
    if (err instanceof BlobCorruptError) return err.reason;
    throw err;
  }
  return undefined;
}

describe('sealInline', () => {
  it.each([0, 1, SEG - 1, SEG, SEG + 1, 3 * SEG + 5])(
    'round-trips %i bytes without touching the disk',
    async (size) => {
      const data = randomBytes(size);
      const staged = store.sealInline(data);
      expect(isInlineBlobId(staged.id)).toBe(true);
      expect(isBlobId(staged.id)).toBe(false);
      expect(staged.size).toBe(size);
      const count = Math.max(1, Math.ceil(size / SEG));
      expect(staged.sealed?.length).toBe(HEADER_SIZE + size + count * TAG_SIZE);
      await staged.commit();
      expect(await readdir(join(dataDir, 'blobs'))).toEqual([]);
      expect(await readdir(join(dataDir, 'tmp'))).toEqual([]);
      const back = await readAll(store.createReadStream(staged.id, { size, sealed: staged.sealed }));
      expect(back.equals(data)).toBe(true);
    },
  );

  it('gives ids that sort in the order they were made (new rows append to the right of the id indexes)', () => {
    const ids = Array.from({ length: 2000 }, () => store.sealInline(Buffer.from('x')).id);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
    for (const id of ids) expect(isInlineBlobId(id)).toBe(true);
  });

  it('is encrypted: the plaintext does not appear in the sealed bytes', () => {
    const data = Buffer.from('a distinctive plaintext that must never be stored as is '.repeat(4));
    const sealed = store.sealInline(data).sealed as Buffer;
    expect(sealed.includes(Buffer.from('distinctive plaintext'))).toBe(false);
  });

  it('reads any range across segments', async () => {
    const data = randomBytes(3 * SEG + 100);
    const { id, sealed } = store.sealInline(data);
    for (const [start, end] of [
      [0, 0],
      [SEG - 1, SEG],
      [5, 3 * SEG + 99],
      [3 * SEG, 3 * SEG + 99],
    ] as const) {
      const part = await readAll(store.createReadStream(id, { size: data.length, start, end, sealed }));
      expect(part.equals(data.subarray(start, end + 1))).toBe(true);
    }
  });

  it('reports tampering, truncation, extension and a wrong master key', async () => {
    const data = randomBytes(2 * SEG + 10);
    const { id, sealed } = store.sealInline(data);
    const s = sealed as Buffer;
    const flipped = Buffer.from(s);
    flipped[HEADER_SIZE + SEG + 3] = (flipped[HEADER_SIZE + SEG + 3] as number) ^ 1;
    const size = data.length;
    expect(await reasonOf(() => store.createReadStream(id, { size, sealed: flipped }))).toBe('tampered');
    expect(await reasonOf(() => store.createReadStream(id, { size, sealed: s.subarray(0, s.length - 1) }))).toBe(
      'truncated',
    );
    expect(
      await reasonOf(() => store.createReadStream(id, { size, sealed: Buffer.concat([s, Buffer.alloc(1)]) })),
    ).toBe('tampered');
    expect(await reasonOf(() => store.createReadStream(id, { size, sealed: s.subarray(0, 10) }))).toBe('truncated');
    const other = new BlobStore({ dataDir, masterKey: randomBytes(32), segmentSize: SEG });
    expect(await reasonOf(() => other.createReadStream(id, { size, sealed: s }))).toBe('header');
    // The control: the untouched bytes verify.
    await expect(store.verify(id, size, s)).resolves.toBeUndefined();
  });

  it('readSealed returns what the stream returns, for every size and range', async () => {
    for (const size of [0, 1, SEG - 1, SEG, SEG + 1, 3 * SEG + 5]) {
      const data = randomBytes(size);
      const { id, sealed } = store.sealInline(data);
      const s = sealed as Buffer;
      const ranges: Array<[number, number] | undefined> =
        size === 0 ? [undefined] : [undefined, [0, 0], [0, size - 1], [size - 1, size - 1]];
      if (size > SEG) ranges.push([SEG - 1, SEG], [5, size - 2], [SEG, size - 1]);
      for (const range of ranges) {
        const opts = { size, start: range?.[0], end: range?.[1], sealed: s };
        const bytes = store.readSealed(id, opts);
        const expected = range ? data.subarray(range[0], range[1] + 1) : data;
        expect(bytes.equals(expected), `${size} bytes, range ${String(range)}`).toBe(true);
        expect(bytes.equals(await readAll(store.createReadStream(id, opts)))).toBe(true);
      }
    }
  });

  it('readSealed reports the same damage as the stream, before returning any byte', async () => {
    const data = randomBytes(2 * SEG + 10);
    const { id, sealed } = store.sealInline(data);
    const s = sealed as Buffer;
    const size = data.length;
    const flipped = Buffer.from(s);
    const inSecond = HEADER_SIZE + SEG + TAG_SIZE + 3;
    flipped[inSecond] = (flipped[inSecond] as number) ^ 1;
    const lastFlipped = Buffer.from(s);
    lastFlipped[s.length - 1] = (lastFlipped[s.length - 1] as number) ^ 1;
    const syncReason = (read: () => Buffer): string | undefined => {
      try {
        read();
      } catch (err) {
        if (err instanceof BlobCorruptError) return err.reason;
        throw err;
      }
      return undefined;
    };
    const cases: Array<[string, BlobStore, Buffer, string]> = [
      ['a flipped bit in the second segment', store, flipped, 'tampered'],
      ['a flipped bit in the last tag', store, lastFlipped, 'tampered'],
      ['one byte short', store, s.subarray(0, s.length - 1), 'truncated'],
      ['one byte long', store, Buffer.concat([s, Buffer.alloc(1)]), 'tampered'],
      ['shorter than the header', store, s.subarray(0, 10), 'truncated'],
      ['another master key', new BlobStore({ dataDir, masterKey: randomBytes(32), segmentSize: SEG }), s, 'header'],
    ];
    for (const [what, reader, bytes, reason] of cases) {
      expect(
        syncReason(() => reader.readSealed(id, { size, sealed: bytes })),
        what,
      ).toBe(reason);
      expect(await reasonOf(() => reader.createReadStream(id, { size, sealed: bytes })), what).toBe(reason);
    }
    // A range that ends before the damaged segment reads; one that reaches it does not (each segment is checked).
    expect(store.readSealed(id, { size, start: 0, end: SEG - 1, sealed: flipped }).equals(data.subarray(0, SEG))).toBe(
      true,
    );
    expect(syncReason(() => store.readSealed(id, { size, start: SEG - 1, end: SEG, sealed: flipped }))).toBe(
      'tampered',
    );
    // An empty blob's one empty segment is authenticated too.
    const empty = store.sealInline(Buffer.alloc(0));
    const emptyFlipped = Buffer.from(empty.sealed as Buffer);
    emptyFlipped[HEADER_SIZE] = (emptyFlipped[HEADER_SIZE] as number) ^ 1;
    expect(store.readSealed(empty.id, { size: 0, sealed: empty.sealed as Buffer }).length).toBe(0);
    expect(syncReason(() => store.readSealed(empty.id, { size: 0, sealed: emptyFlipped }))).toBe('tampered');
  });

  it('readSealed refuses a file blob id and a range outside the blob', () => {
    const { id, sealed } = store.sealInline(Buffer.from('abc'));
    const s = sealed as Buffer;
    expect(() => store.readSealed('0'.repeat(32), { size: 3, sealed: s })).toThrow(TypeError);
    expect(() => store.readSealed(id, { size: 3, start: 2, end: 3, sealed: s })).toThrow(RangeError);
    expect(() => store.readSealed(id, { size: 3, start: 2, end: 1, sealed: s })).toThrow(RangeError);
    expect(() => store.readSealed(id, { size: -1, sealed: s })).toThrow(RangeError);
    expect(store.readSealed(id, { size: 3, start: 1, end: 2, sealed: s }).toString()).toBe('bc');
  });

  it('refuses sealed bytes for a file blob id, and a file read for an inline id', () => {
    const { id, sealed } = store.sealInline(Buffer.from('x'));
    expect(() => store.createReadStream('0'.repeat(32), { size: 1, sealed })).toThrow(TypeError);
    expect(() => store.createReadStream(id, { size: 1 })).toThrow(TypeError);
  });
});
