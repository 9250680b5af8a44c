import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MetadataStore } from './metadata-store.js';

let dir: string;
let meta: MetadataStore;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'wal-sync-'));
  meta = MetadataStore.open(join(dir, 'meta.db'));
});

afterEach(async () => {
  await meta.close();
  rmSync(dir, { recursive: true, force: true });
});

const bucket = (name: string) => ({
  name,
  createdAt: 1,
  region: 'us-east-1',
  versioning: 'Unversioned' as const,
  objectLock: false,
  config: {},
});

describe('durability barrier (group commit)', () => {
  it('marks a committed transaction undurable until the barrier has fsynced the WAL', async () => {
    expect(meta.hasUndurableCommits).toBe(false);
    meta.transaction(() => meta.buckets.insert(bucket('a')));
    expect(meta.hasUndurableCommits).toBe(true);
    await meta.durable();
    expect(meta.hasUndurableCommits).toBe(false);
    expect(meta.walFsyncs).toBe(1);
  });

  it('also sees writes made outside a transaction, so no caller can forget to report one', async () => {
    meta.buckets.insert(bucket('autocommit'));
    expect(meta.hasUndurableCommits).toBe(true);
    await meta.durable();
    expect(meta.hasUndurableCommits).toBe(false);
  });

  it('does not fsync when nothing was committed since the last barrier', async () => {
    meta.transaction(() => meta.buckets.insert(bucket('a')));
    await meta.durable();
    await meta.durable();
    await Promise.all([meta.durable(), meta.durable()]);
    expect(meta.walFsyncs).toBe(1);
  });

  it('shares fsyncs among concurrent committers: 50 commits with their barriers take at most 2 fsyncs', async () => {
    const barriers: Promise<void>[] = [];
    for (let i = 0; i < 50; i++) {
      meta.transaction(() => meta.buckets.insert(bucket(`b${i}`)));
      barriers.push(meta.durable());
    }
    await Promise.all(barriers);
    expect(meta.hasUndurableCommits).toBe(false);
    expect(meta.walFsyncs).toBeLessThanOrEqual(2);
  });

  it('covers a commit made while an fsync is running with the next fsync, not the running one', async () => {
    meta.transaction(() => meta.buckets.insert(bucket('first')));
    const first = meta.durable();
    meta.transaction(() => meta.buckets.insert(bucket('second')));
    const second = meta.durable();
    await first;
    await second;
    expect(meta.hasUndurableCommits).toBe(false);
    expect(meta.walFsyncs).toBe(2);
  });
});

describe('a failed fsync of the WAL', () => {
  it('fails its barrier, and every later one, even when the next fsync would succeed; the failure is reported once', async () => {
    const walDir = mkdtempSync(join(tmpdir(), 'wal-fail-'));
    const failures: unknown[] = [];
    let attempts = 0;
    // The real file handle, with one fsync that reports a writeback error (as Linux does, once) and then succeeds.
    const store = MetadataStore.open(join(walDir, 'meta.db'), {
      wal: {
        onFailure: (err) => failures.push(err),
        datasync: async (handle) => {
          attempts++;
          if (attempts === 1) throw Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' });
          await handle.datasync();
        },
      },
    });
    try {
      store.transaction(() => store.buckets.insert(bucket('first')));
      await expect(store.durable()).rejects.toMatchObject({ code: 'EIO' });
      store.transaction(() => store.buckets.insert(bucket('second')));
      await expect(store.durable()).rejects.toMatchObject({ code: 'EIO' });
      await expect(store.durable()).rejects.toMatchObject({ code: 'EIO' });
      expect(attempts).toBe(1);
      expect(failures).toHaveLength(1);
    } finally {
      await store.close();
      rmSync(walDir, { recursive: true, force: true });
    }
  });
});
