// The blob tree on disk: ids, paths (blobs/ab/cd/ID, tmp/ID) and directories created lazily with their
// parent fsynced, so a committed blob's whole path survives power loss.

import { mkdir, open, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { uuidv7 } from '../../lib/ids.js';
import { randomBuffer } from '../../lib/random-pool.js';

const ID_SHAPE = /^[0-9a-f]{32}$/;
const TWO_HEX = /^[0-9a-f]{2}$/;

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

const LEAF_COUNT = 65_536;
/**
 * While few leaf directories exist, at least this share of new blobs still goes to a directory of its own drawing
 * (made if need be): about one leaf is made per 64 blobs on a young data directory.
 */
const MIN_NEW_LEAF_SHARE = 1 / 64;

export class BlobTree {
  readonly blobsDir: string;
  readonly tmpDir: string;
  /** By 'ab' and 'abcd': true = exists durably, a promise = creation in progress, false = last attempt failed. */
  private readonly ready = new Map<string, boolean | Promise<void>>();
  /** The leaves ('abcd') known to exist durably, to place new blobs in (place()). */
  private readonly leaves: string[] = [];

  /** `random` draws placements (place()); tests pass a seeded one. */
  constructor(
    readonly dataDir: string,
    private readonly random: () => number = Math.random,
  ) {
    this.blobsDir = join(dataDir, 'blobs');
    this.tmpDir = join(dataDir, 'tmp');
  }

  /**
   * The id a new file blob gets, from a fresh random one: kept when its leaf directory exists, else (mostly) moved
   * into a leaf that does by taking that leaf's four hex characters. A blob whose leaf is new pays a mkdir and an
   * fsync of the parent on its way to durable; on a young data directory that was nearly every blob (a third of
   * Store's 256 KiB PUT rate at c32; docs/performance.md, "Medium objects"). A new leaf is made with probability
   * max(share of leaves existing, 1/64), so leaves fill to about 64 blobs while the tree is young and every leaf
   * exists by a few hundred thousand blobs. The other 112 bits stay random, so ids stay unique and unguessable.
   */
  place(id: string): string {
    if (this.leaves.length === 0 || this.ready.get(id.slice(0, 4)) === true) return id;
    if (this.random() < Math.max(this.leaves.length / LEAF_COUNT, MIN_NEW_LEAF_SHARE)) return id;
    const leaf = this.leaves[Math.floor(this.random() * this.leaves.length)] ?? id.slice(0, 4);
    return leaf + id.slice(4);
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
      if (!entry.isDirectory() || !TWO_HEX.test(entry.name)) continue;
      const top = join(this.blobsDir, entry.name);
      await fsyncDir(top);
      this.ready.set(entry.name, true);
      for (const leaf of await readdir(top, { withFileTypes: true })) {
        if (leaf.isDirectory() && TWO_HEX.test(leaf.name)) this.markLeaf(entry.name + leaf.name);
      }
    }
    await fsyncDir(this.blobsDir);
  }

  private markLeaf(leaf: string): void {
    if (this.ready.get(leaf) === true) return;
    this.ready.set(leaf, true);
    this.leaves.push(leaf);
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
      () => (key.length === 4 ? this.markLeaf(key) : this.ready.set(key, true)),
      () => this.ready.set(key, false),
    );
    return creation;
  }
}
