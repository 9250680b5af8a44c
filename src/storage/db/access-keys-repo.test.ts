import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MetadataStore } from './metadata-store.js';

let dir: string;
let meta: MetadataStore;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'access-keys-repo-'));
  meta = MetadataStore.open(join(dir, 'meta.db'));
});

afterEach(async () => {
  await meta.close();
  rmSync(dir, { recursive: true, force: true });
});

const row = (id: string, createdAt: number) => ({
  accessKeyId: id,
  name: `key ${id}`,
  description: '',
  enabled: true,
  secretSealed: Buffer.from([1, 2, 3]),
  permissions: undefined,
  createdAt,
  updatedAt: createdAt,
  createdBy: 'admin',
});

describe('AccessKeysRepo', () => {
  it('inserts, finds and lists keys oldest first', () => {
    meta.accessKeys.insert(row('BBBB', 2));
    meta.accessKeys.insert(row('AAAA', 1));
    expect(meta.accessKeys.list().map((k) => k.accessKeyId)).toEqual(['AAAA', 'BBBB']);
    expect(meta.accessKeys.find('AAAA')).toEqual({ ...row('AAAA', 1), lastUsedAt: undefined });
    expect(meta.accessKeys.find('CCCC')).toBeUndefined();
    expect(meta.accessKeys.count()).toBe(2);
  });

  it('updates only the given fields, and clears permissions with null', () => {
    meta.accessKeys.insert({ ...row('AAAA', 1), permissions: '{"scope":{"bucket":"b"}}' });
    expect(meta.accessKeys.update('AAAA', { enabled: false, updatedAt: 5 })).toBe(true);
    expect(meta.accessKeys.find('AAAA')).toMatchObject({
      enabled: false,
      name: 'key AAAA',
      permissions: '{"scope":{"bucket":"b"}}',
      updatedAt: 5,
    });
    meta.accessKeys.update('AAAA', { permissions: null, secretSealed: Buffer.from([9]), name: 'n', updatedAt: 6 });
    expect(meta.accessKeys.find('AAAA')).toMatchObject({
      permissions: undefined,
      name: 'n',
      secretSealed: Buffer.from([9]),
    });
    expect(meta.accessKeys.update('NOPE', { name: 'x', updatedAt: 7 })).toBe(false);
  });

  it('deletes, touches and reports a missing key', () => {
    meta.accessKeys.insert(row('AAAA', 1));
    meta.accessKeys.touch('AAAA', 42);
    expect(meta.accessKeys.find('AAAA')?.lastUsedAt).toBe(42);
    expect(meta.accessKeys.delete('AAAA')).toBe(true);
    expect(meta.accessKeys.delete('AAAA')).toBe(false);
  });

  it('stores and replaces the key-encryption check value', () => {
    expect(meta.accessKeys.findEncryptionCheck()).toBeUndefined();
    meta.accessKeys.setEncryptionCheck('one');
    meta.accessKeys.setEncryptionCheck('two');
    expect(meta.accessKeys.findEncryptionCheck()).toBe('two');
  });
});
