// BlobStore: round trips, ranges, encryption on disk, the two-phase writer's lifecycle, init and orphan sweeping.

import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { inspect } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BlobStore, isBlobId, newBlobId } from './blob-store.js';

const SEG = 64 * 1024;
let dataDir: string;
let masterKey: Buffer;
let store: BlobStore;

beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'blob-store-'));
  masterKey = randomBytes(32);
  store = new BlobStore({ dataDir, masterKey });
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

/** Yields `data` in chunks of varying sizes (including empty and Uint8Array ones) to exercise the writer. */
async function* chunked(data: Buffer, sizes = [1, 7000, 0, 65536, 70000, 3, 200000]): AsyncGenerator<Uint8Array> {
  let offset = 0;
  for (let i = 0; offset < data.length; i += 1) {
    const n = sizes[i % sizes.length] as number;
    const piece = data.subarray(offset, offset + n);
    yield i % 2 === 0 ? piece : new Uint8Array(piece.buffer, piece.byteOffset, piece.byteLength);
    offset += n;
  }
}

async function put(data: Buffer): Promise<string> {
  const staged = await store.stage(chunked(data));
  expect(staged.size).toBe(data.length);
  await staged.commit();
  return staged.id;
}

/** Buffer equality without vitest's element-by-element deep diff, which is slow on large buffers. */
function expectBytes(actual: Buffer, expected: Buffer): void {
  expect(actual.length).toBe(expected.length);
  expect(actual.equals(expected)).toBe(true);
}

const blobPath = (id: string) => join(dataDir, 'blobs', id.slice(0, 2), id.slice(2, 4), id);

describe('round trip', () => {
  for (const size of [0, 1, SEG - 1, SEG, SEG + 1, 3 * SEG + 123]) {
    it(`returns the same ${size} bytes through stage and through stageBuffer`, async () => {
      const data = randomBytes(size);
      const viaStream = await put(data);
      expectBytes(await readAll(store.createReadStream(viaStream, { size })), data);
      const staged = await store.stageBuffer(data);
      await staged.commit();
      expectBytes(await readAll(store.createReadStream(staged.id, { size })), data);
      await store.verify(staged.id, size);
    });
  }

  it('returns a 20 MiB random blob intact', async () => {
    const data = randomBytes(20 * 1024 * 1024);
    const id = await put(data);
    expectBytes(await readAll(store.createReadStream(id, { size: data.length })), data);
  });

  it('reads blobs written with another segment size (the header carries it)', async () => {
    const data = randomBytes(5000);
    const small = new BlobStore({ dataDir, masterKey, segmentSize: 512 });
    const staged = await small.stage(chunked(data, [333]));
    await staged.commit();
    const back = await readAll(store.createReadStream(staged.id, { size: 5000, start: 1000, end: 2047 }));
    expectBytes(back, data.subarray(1000, 2048));
  });
});

describe('ranges', () => {
  const size = 3 * SEG + 123;
  const cases: Array<[string, number, number]> = [
    ['first byte', 0, 0],
    ['last byte', size - 1, size - 1],
    ['whole blob', 0, size - 1],
    ['across the first boundary', SEG - 1, SEG],
    ['first byte of a segment', SEG, SEG],
    ['last byte of a segment', 2 * SEG - 1, 2 * SEG - 1],
    ['a single byte in the middle of a segment', SEG + SEG / 2, SEG + SEG / 2],
    ['one whole inner segment', SEG, 2 * SEG - 1],
    ['across three segments', 100, 2 * SEG + 5],
    ['the short final segment', 3 * SEG, size - 1],
    ['from a middle byte to the end', 2 * SEG + 17, size - 1],
  ];
  let data: Buffer;
  let id: string;
  beforeEach(async () => {
    data = randomBytes(size);
    id = await put(data);
  });
  for (const [name, start, end] of cases) {
    it(`returns exactly bytes [start, end] for ${name}`, async () => {
      const back = await readAll(store.createReadStream(id, { size, start, end }));
      expectBytes(back, data.subarray(start, end + 1));
    });
  }

  it('rejects a range outside the blob synchronously', () => {
    expect(() => store.createReadStream(id, { size, start: 0, end: size })).toThrow(RangeError);
    expect(() => store.createReadStream(id, { size, start: 5, end: 4 })).toThrow(RangeError);
    expect(() => store.createReadStream(id, { size, start: -1, end: 4 })).toThrow(RangeError);
  });

  it('keeps a paused reader bounded instead of decrypting the whole blob ahead', async () => {
    const big = randomBytes(20 * 1024 * 1024);
    const bigId = await put(big);
    const stream = store.createReadStream(bigId, { size: big.length });
    await new Promise((resolve) => stream.once('readable', resolve));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(stream.readableLength).toBeLessThanOrEqual(2 * 1024 * 1024);
    stream.destroy();
  });
});

describe('encryption at rest', () => {
  it('stores no plaintext on disk and a fresh key per blob', async () => {
    const pattern = Buffer.from('Store-distinctive-32-byte-marker');
    expect(pattern.length).toBe(32);
    const data = Buffer.concat(Array.from({ length: 4096 }, () => pattern)); // 128 KiB of the pattern
    const a = await put(data);
    const b = await put(data);
    const onDiskA = await readFile(blobPath(a));
    const onDiskB = await readFile(blobPath(b));
    expect(onDiskA.indexOf(pattern)).toBe(-1);
    expect(onDiskA.indexOf(pattern.subarray(0, 16))).toBe(-1);
    expect(onDiskA.subarray(72).equals(onDiskB.subarray(72))).toBe(false);
    expectBytes(await readAll(store.createReadStream(a, { size: data.length })), data);
  });

  it('never shows the master key when the store is inspected or misconfigured', () => {
    expect(inspect(store, { depth: 5, showHidden: true })).not.toContain(masterKey.toString('hex'));
    const short = randomBytes(31);
    expect(() => new BlobStore({ dataDir, masterKey: short })).toThrow(TypeError);
    try {
      new BlobStore({ dataDir, masterKey: short });
    } catch (err) {
      expect(String(err)).not.toContain(short.toString('hex'));
    }
  });
});

describe('two-phase writer', () => {
  const tmpEntries = () => readdir(join(dataDir, 'tmp'));
  const leafDir = (id: string) => join(dataDir, 'blobs', id.slice(0, 2), id.slice(2, 4));
  /** Waits (bounded) until `dir` exists: the directory a blob is staged for is made in the background. */
  async function waitForDir(dir: string): Promise<void> {
    for (let i = 0; i < 500; i++) {
      if (
        await stat(dir).then(
          (s) => s.isDirectory(),
          () => false,
        )
      )
        return;
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error(`${dir} was not made within 5 s`);
  }

  it('makes ids of 32 random hex characters', () => {
    const id = newBlobId();
    expect(id).toMatch(/^[0-9a-f]{32}$/);
    expect(isBlobId(id)).toBe(true);
    expect(isBlobId('../../etc/passwd')).toBe(false);
    expect(newBlobId()).not.toBe(id);
  });

  it('stages into tmp/ and commit moves the blob to blobs/ab/cd/id with private modes', async () => {
    const staged = await store.stageBuffer(randomBytes(10));
    expect(await tmpEntries()).toEqual([staged.id]);
    await staged.commit();
    expect(await tmpEntries()).toEqual([]);
    expect((await stat(blobPath(staged.id))).mode & 0o777).toBe(0o600);
    expect((await stat(join(dataDir, 'blobs', staged.id.slice(0, 2)))).mode & 0o777).toBe(0o700);
    await staged.commit(); // idempotent
    await staged.discard(); // a no-op after a successful commit
    await store.verify(staged.id, 10);
  });

  it('makes the blob directory while the body is still being written, not in the commit', async () => {
    let id: string | undefined;
    async function* body(): AsyncGenerator<Buffer> {
      yield randomBytes(100_000);
      // The tmp file is open by now; its name is the blob id. The rest of the body waits for the directory.
      id = (await tmpEntries())[0];
      await waitForDir(leafDir(id ?? 'missing'));
      yield randomBytes(100_000);
    }
    const staged = await store.stage(body());
    expect(staged.id).toBe(id);
    await staged.commit();
    await store.verify(staged.id, 200_000);
  });

  describe('placement in the directory tree (BlobTree.place)', () => {
    /** A seeded generator (mulberry32): placements are random, and this test's are the same every run. */
    const seeded = (seed: number) => () => {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
    const leafCount = async () =>
      (await readdir(join(dataDir, 'blobs'), { recursive: true })).filter((p) => /^[0-9a-f]{2}\/[0-9a-f]{2}$/.test(p))
        .length;

    it('fills existing directories on a young data dir instead of making one per blob', async () => {
      const young = new BlobStore({ dataDir, masterKey, placementRandom: seeded(29) });
      await young.init();
      const ids: string[] = [];
      for (let i = 0; i < 320; i++) {
        const staged = await young.stageBuffer(Buffer.from(`blob ${i}`));
        await staged.commit();
        ids.push(staged.id);
      }
      // About one new directory per 64 blobs (5 expected), not 320.
      expect(await leafCount()).toBeLessThanOrEqual(16);
      expect(new Set(ids).size).toBe(320);
      for (const id of ids) expect(isBlobId(id)).toBe(true);
      await Promise.all(ids.map((id, i) => young.verify(id, `blob ${i}`.length)));
    });

    it('knows the directories already there after a restart', async () => {
      for (let i = 0; i < 3; i++) await put(Buffer.from(`before ${i}`));
      const before = await leafCount();
      // A draw of 0.99 always moves a blob into an existing directory.
      const restarted = new BlobStore({ dataDir, masterKey, placementRandom: () => 0.99 });
      await restarted.init();
      for (let i = 0; i < 20; i++) await (await restarted.stageBuffer(Buffer.from(`after ${i}`))).commit();
      expect(await leafCount()).toBe(before);
    });
  });

  it('discard after stage leaves no file behind, and may be repeated', async () => {
    const staged = await store.stage(chunked(randomBytes(300_000)));
    await staged.discard();
    await staged.discard();
    expect(await tmpEntries()).toEqual([]);
    // Its directory may have been made (durably, for the blobs that will land there); never a file.
    const files = await readdir(join(dataDir, 'blobs'), { recursive: true, withFileTypes: true });
    expect(files.filter((e) => !e.isDirectory())).toEqual([]);
  });

  it('removes the tmp file and rethrows the same error when the source throws midway', async () => {
    const boom = new Error('bad chunk signature');
    async function* failing(): AsyncGenerator<Buffer> {
      yield randomBytes(3 * 1024 * 1024); // enough for some batches to reach the file
      throw boom;
    }
    await expect(store.stage(failing())).rejects.toBe(boom);
    expect(await tmpEntries()).toEqual([]);
  });

  it('removes the tmp file and rejects with the reason when the signal aborts', async () => {
    const controller = new AbortController();
    const reason = new Error('client went away');
    async function* slow(): AsyncGenerator<Buffer> {
      yield randomBytes(2 * 1024 * 1024);
      controller.abort(reason);
      yield randomBytes(10);
    }
    await expect(store.stage(slow(), { signal: controller.signal })).rejects.toBe(reason);
    expect(await tmpEntries()).toEqual([]);
  });

  it('discard cleans up after a failed commit', async () => {
    const staged = await store.stageBuffer(randomBytes(10));
    // A file where the blob's directory should be makes the commit's rename fail.
    await waitForDir(leafDir(staged.id));
    await rm(leafDir(staged.id), { recursive: true });
    await writeFile(leafDir(staged.id), 'x');
    await expect(staged.commit()).rejects.toMatchObject({ code: 'ENOTDIR' });
    await staged.discard();
    expect(await tmpEntries()).toEqual([]);
  });

  it('commits many blobs concurrently into fresh directories', async () => {
    const staged = await Promise.all(Array.from({ length: 40 }, (_, i) => store.stageBuffer(Buffer.from(`blob ${i}`))));
    await Promise.all(staged.map((s) => s.commit()));
    await Promise.all(staged.map((s) => store.verify(s.id, s.size)));
  });

  it('init creates private blobs/ and tmp/ and empties tmp/', async () => {
    await writeFile(join(dataDir, 'tmp', 'leftover'), 'half a blob');
    await mkdir(join(dataDir, 'tmp', 'dir'));
    await store.init();
    expect(await tmpEntries()).toEqual([]);
    const fresh = await mkdtemp(join(tmpdir(), 'blob-store-'));
    try {
      await new BlobStore({ dataDir: fresh, masterKey }).init();
      expect((await stat(join(fresh, 'blobs'))).mode & 0o777).toBe(0o700);
      expect((await stat(join(fresh, 'tmp'))).mode & 0o777).toBe(0o700);
    } finally {
      await rm(fresh, { recursive: true, force: true });
    }
  });

  it('remove deletes a blob and ignores a missing one', async () => {
    const id = await put(randomBytes(5));
    await store.remove(id);
    await store.remove(id);
    await expect(stat(blobPath(id))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe('sweepOrphans', () => {
  it('removes only blobs that are unreferenced and older than the cutoff', async () => {
    const [kept, orphan, young] = [await put(randomBytes(3)), await put(randomBytes(3)), await put(randomBytes(3))];
    const old = new Date(Date.now() - 3_600_000);
    for (const id of [kept, orphan]) await utimes(blobPath(id), old, old);
    const stray = join(dataDir, 'blobs', 'not-a-blob');
    await writeFile(stray, 'x');
    await utimes(stray, old, old);
    const removed = await store.sweepOrphans((id) => id === kept, { olderThanMs: Date.now() - 60_000 });
    expect(removed).toBe(1);
    await expect(stat(blobPath(orphan))).rejects.toMatchObject({ code: 'ENOENT' });
    await store.verify(kept, 3);
    await store.verify(young, 3);
    await stat(stray);
  });

  it('walks many blobs and stops when aborted', async () => {
    const staged = await Promise.all(Array.from({ length: 300 }, () => store.stageBuffer(Buffer.alloc(0))));
    await Promise.all(staged.map((s) => s.commit()));
    expect(await store.sweepOrphans(() => false, { olderThanMs: Date.now() + 60_000 })).toBe(300);
    const controller = new AbortController();
    controller.abort();
    await expect(
      store.sweepOrphans(() => false, { olderThanMs: Date.now(), signal: controller.signal }),
    ).rejects.toMatchObject({ name: 'AbortError' });
  });
});
