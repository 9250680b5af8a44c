import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MetadataStore } from './metadata-store.js';

let dir: string;
let meta: MetadataStore;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'buckets-repo-'));
  meta = MetadataStore.open(join(dir, 'meta.db'));
  meta.buckets.insert({
    name: 'b',
    createdAt: 1,
    region: 'us-east-1',
    versioning: 'Unversioned',
    objectLock: false,
    config: {},
  });
});

afterEach(async () => {
  await meta.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('BucketsRepo row cache', () => {
  it('serves repeated reads from memory and sees every committed change', () => {
    expect(meta.buckets.find('b')).toBe(meta.buckets.find('b'));
    meta.buckets.setConfig('b', { cors: { rules: [] } });
    expect(meta.buckets.find('b')?.config).toEqual({ cors: { rules: [] } });
    meta.buckets.setVersioning('b', 'Enabled', false);
    expect(meta.buckets.find('b')?.versioning).toBe('Enabled');
    meta.buckets.delete('b');
    expect(meta.buckets.find('b')).toBeUndefined();
  });

  it('never caches a row read inside a transaction that rolls back', () => {
    expect(() =>
      meta.transaction(() => {
        meta.buckets.setConfig('b', { policy: '{"uncommitted":true}' });
        expect(meta.buckets.find('b')?.config.policy).toBe('{"uncommitted":true}');
        throw new Error('roll back');
      }),
    ).toThrow('roll back');
    expect(meta.buckets.find('b')?.config).toEqual({});
  });

  it('does not answer for a bucket created after a miss, or deleted after a hit, from stale memory', () => {
    expect(meta.buckets.find('later')).toBeUndefined();
    meta.buckets.insert({
      name: 'later',
      createdAt: 2,
      region: 'us-east-1',
      versioning: 'Unversioned',
      objectLock: false,
      config: {},
    });
    expect(meta.buckets.find('later')?.name).toBe('later');
  });
});
