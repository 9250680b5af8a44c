// The blob tree on disk: ids, paths (blobs/ab/cd/ID, tmp/ID) and directories created lazily with their
// parent fsynced, so a committed blob's whole path survives power loss.

import { mkdir, open, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { uuidv7 } from '../../lib/ids.js';
import { randomBuffer } from '../../lib/random-pool.js';

const ID_SHAPE = /^[0-9a-f]{32}$/;

/** A new blob id: 32 lowercase hex characters from 16 random bytes. Never derived from an object key. */
export function newBlobId(): string {
  return randomBuffer(16).toString('hex');
}

/** True for the shape newBlobId() produces; anything else is never turned into a path. */
export function isBlobId(value: string): boolean {
  return ID_SHAPE.test(value);
}

const INLINE_ID_SHAPE = /^i[0-9a-f]{32}$/;

/**
 * A new id for an inline blob (sealed bytes kept in the metadata database, not in a file): 'i' + 32 hex. The shape
 * differs from a file blob id, so no code path can turn one into a path or the other into a row lookup.
 *
 * The hex is a UUID v7's (lib/ids.ts: time first, then random), so ids grow in creation order: the inline_blobs key and
 * objects_by_blob take each new id at their right edge, and a batch of small PUTs dirties a page or two of each instead
 * of a random page per PUT (docs/performance.md, "the per-request CPU of every signed request"). File blob ids stay
 * random: their first four characters name their directories. Ids made before this were random; both kinds have the
 * same shape.
 */
export function newInlineBlobId(): string {
  return `i${uuidv7().replaceAll('-', '')}`;
}

export function isInlineBlobId(value: string): boolean {
  return INLINE_ID_SHAPE.test(value);
}

export function assertBlobId(id: string): void {
  if (!isBlobId(id)) throw new TypeError('not a blob id (expected 32 lowercase hex characters)');
}

/** fsync a directory so the entries just created, renamed or removed in it are durable. */
export async function fsyncDir(path: string): Promise<void> {
  const fh = await open(path, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

export class BlobTree {
  readonly blobsDir: string;
  readonly tmpDir: string;
  /** By 'ab' and 'abcd': true = exists durably, a promise = creation in progress, false = last attempt failed. */
  private readonly ready = new Map<string, boolean | Promise<void>>();

  constructor(readonly dataDir: string) {
    this.blobsDir = join(dataDir, 'blobs');
    this.tmpDir = join(dataDir, 'tmp');
  }

  tmpPath(id: string): string {
    return join(this.tmpDir, id);
  }

  leafDir(id: string): string {
    return join(this.blobsDir, id.slice(0, 2), id.slice(2, 4));
  }

  blobPath(id: string): string {
    return join(this.leafDir(id), id);
  }

  /**
   * Makes blobs/ and tmp/ exist and be durable, and fsyncs every existing first-level directory. After this,
   * any blobs/ab/cd that exists is durably linked, so ensureLeaf() may trust EEXIST: a directory created by an
   * earlier process that died before fsyncing its parent could otherwise lose a blob committed into it later.
   */
  async init(): Promise<void> {
    for (const dir of [this.blobsDir, this.tmpDir]) {
      const created = await mkdir(dir, { recursive: true, mode: 0o700 });
      if (created !== undefined) await fsyncDir(this.dataDir);
    }
    for (const entry of await readdir(this.blobsDir, { withFileTypes: true })) {
      if (entry.isDirectory() && /^[0-9a-f]{2}$/.test(entry.name)) await fsyncDir(join(this.blobsDir, entry.name));
    }
    await fsyncDir(this.blobsDir);
  }

  /** Resolves once blobs/ab/cd for this id exists and its link in the parent is durable. */
  ensureLeaf(id: string): Promise<void> | undefined {
    const leaf = id.slice(0, 4);
    const state = this.ready.get(leaf);
    if (state === true) return undefined;
    if (state instanceof Promise) return state;
    return this.track(leaf, this.makeLeaf(id, state === false));
  }

  private async makeLeaf(id: string, isRetry: boolean): Promise<void> {
    const top = id.slice(0, 2);
    const topDir = join(this.blobsDir, top);
    const topState = this.ready.get(top);
    if (topState instanceof Promise) await topState;
    else if (topState !== true) await this.track(top, this.makeDir(topDir, this.blobsDir, topState === false));
    await this.makeDir(this.leafDir(id), topDir, isRetry);
  }

  /**
   * Creates `dir` and fsyncs `parent` so the new entry survives power loss. An existing directory needs no
   * fsync (init() made the tree durable, and this process fsyncs what it creates), except after a failed
   * attempt, which may have created the directory without the fsync.
   */
  private async makeDir(dir: string, parent: string, isRetry: boolean): Promise<void> {
    try {
      await mkdir(dir, { mode: 0o700 });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      if (!isRetry) return;
    }
    await fsyncDir(parent);
  }

  /** Shares one creation among concurrent commits, so none of them returns before the parent fsync is done. */
  private track(key: string, creation: Promise<void>): Promise<void> {
    this.ready.set(key, creation);
    creation.then(
      () => this.ready.set(key, true),
      () => this.ready.set(key, false),
    );
    return creation;
  }
}
