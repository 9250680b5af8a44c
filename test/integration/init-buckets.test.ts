// STORE_INIT_BUCKETS: the listed buckets exist when the server is ready, with real versioning and object lock; a
// restart leaves them (and their objects and changed settings) as they are; a name S3 would refuse refuses boot.

import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import {
  GetBucketVersioningCommand,
  GetObjectLockConfigurationCommand,
  ListBucketsCommand,
  PutBucketVersioningCommand,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { afterAll, describe, expect, it } from 'vitest';
import { baseEnv, runServeExpectingExit, tempDir } from '../helpers/server.js';
import { startStore } from '../helpers/store.js';

const roots: string[] = [];
afterAll(() => {
  for (const dir of roots) rmSync(dir, { recursive: true, force: true });
});

async function state(s3: S3Client, bucket: string): Promise<{ versioning: string; lock: string }> {
  const versioning = (await s3.send(new GetBucketVersioningCommand({ Bucket: bucket }))).Status ?? 'Unversioned';
  const lock = await s3.send(new GetObjectLockConfigurationCommand({ Bucket: bucket })).then(
    (r) => r.ObjectLockConfiguration?.ObjectLockEnabled ?? 'none',
    (err: { name?: string }) => err.name ?? 'error',
  );
  return { versioning, lock };
}

describe('STORE_INIT_BUCKETS', () => {
  it('creates the missing buckets at start with their settings, and leaves existing ones as they are', async () => {
    const store = await startStore({ env: { STORE_INIT_BUCKETS: 'plain, history:versioned ,vault:locked' } });
    expect(((await store.s3.send(new ListBucketsCommand({}))).Buckets ?? []).map((b) => b.Name)).toEqual([
      'history',
      'plain',
      'vault',
    ]);
    expect(await state(store.s3, 'plain')).toEqual({
      versioning: 'Unversioned',
      lock: 'ObjectLockConfigurationNotFoundError',
    });
    expect(await state(store.s3, 'history')).toEqual({
      versioning: 'Enabled',
      lock: 'ObjectLockConfigurationNotFoundError',
    });
    expect(await state(store.s3, 'vault')).toEqual({ versioning: 'Enabled', lock: 'Enabled' });
    await store.s3.send(new PutObjectCommand({ Bucket: 'plain', Key: 'kept.txt', Body: 'still here' }));
    await store.s3.send(
      new PutBucketVersioningCommand({ Bucket: 'history', VersioningConfiguration: { Status: 'Suspended' } }),
    );
    const second = await store.restart({ STORE_INIT_BUCKETS: 'plain,history:versioned,vault:locked,later' });
    expect(((await store.s3.send(new ListBucketsCommand({}))).Buckets ?? []).map((b) => b.Name)).toEqual([
      'history',
      'later',
      'plain',
      'vault',
    ]);
    expect(await state(store.s3, 'history')).toEqual({
      versioning: 'Suspended',
      lock: 'ObjectLockConfigurationNotFoundError',
    });
    expect(second.output()).toMatch(/"bucket":"history".*exists with other settings; left as it is/);
    expect((await fetch(`${second.url}/plain/kept.txt`)).status).toBe(403); // still there (anonymous: denied, not 404)
  });

  it('refuses a name S3 would refuse, naming it, before anything is written', async () => {
    const root = tempDir('store-initb-');
    roots.push(root);
    for (const [list, why] of [
      ['Photos', 'lower-case'],
      ['admin', 'reserved'],
      ['ok-name,xn--bad', 'xn--'],
    ] as const) {
      const { env } = await baseEnv(join(root, 'data'));
      const refused = await runServeExpectingExit({ ...env, STORE_INIT_BUCKETS: list });
      expect(refused.code, list).toBe(78);
      expect(refused.output).toContain('STORE_INIT_BUCKETS:');
      expect(refused.output).toContain(why);
      expect(existsSync(join(root, 'data'))).toBe(false);
    }
  });
});
