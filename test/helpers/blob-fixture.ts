// A BlobStore in a fresh temp data directory for each test of the enclosing file or describe block, for the blob
// store's unit tests: where a blob's file lies, and a put that stages and commits.

import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { BlobStore } from '../../src/storage/blobs/blob-store.js';

/** The current test's data directory, master key and store (a test may replace `store`, e.g. with another key). */
export interface BlobFixture {
  dataDir: string;
  masterKey: Buffer;
  store: BlobStore;
  /** Where the file of blob `id` lies. */
  blobPath(id: string): string;
  /** Stages `data` in `into` (the fixture's store unless told) and commits it; returns the blob id. */
  put(data: Buffer, into?: BlobStore): Promise<string>;
}

/** Opens a store with `segmentSize` in a temp directory named after `prefix` before each test; removes it after. */
export function useBlobStore({ prefix, segmentSize }: { prefix: string; segmentSize: number }): BlobFixture {
  const fx = {
    blobPath: (id: string) => join(fx.dataDir, 'blobs', id.slice(0, 2), id.slice(2, 4), id),
    async put(data: Buffer, into?: BlobStore): Promise<string> {
      const staged = await (into ?? fx.store).stageBuffer(data);
      await staged.commit();
      return staged.id;
    },
  } as BlobFixture;
  beforeEach(async () => {
    fx.dataDir = await mkdtemp(join(tmpdir(), prefix));
    fx.masterKey = randomBytes(32);
    fx.store = new BlobStore({ dataDir: fx.dataDir, masterKey: fx.masterKey, segmentSize });
    await fx.store.init();
  });
  afterEach(async () => {
    await rm(fx.dataDir, { recursive: true, force: true });
  });
  return fx;
}
