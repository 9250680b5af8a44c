// `store backup` and `store restore` against running servers: a backup file (0600) that restores into a fresh
// instance, one bucket either way, the password from stdin, and clear failures with their exit codes.

import { spawn } from 'node:child_process';
import { readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { CreateBucketCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { viewInstance } from '../helpers/backup-fixture.js';
import { uniqueBucket } from '../helpers/clients.js';
import { REPO_ROOT, tempDir, type RunningServer } from '../helpers/server.js';
import { useStore } from '../helpers/store.js';

const BIN = join(REPO_ROOT, 'bin/store.js');
const work = tempDir('store-cli-backup-');
afterAll(() => rmSync(work, { recursive: true, force: true }));
const source = useStore({ env: { STORE_TRUSTED_PROXIES: '127.0.0.1' } });
const target = useStore({ env: { STORE_TRUSTED_PROXIES: '127.0.0.1' } });
const bucket = uniqueBucket('cli');

function store(
  args: string[],
  opts: { env?: Record<string, string>; stdin?: string } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: work,
    env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', ...opts.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => {
    stdout += d.toString();
  });
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  child.stdin.end(opts.stdin ?? '');
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

const as = (server: RunningServer): Record<string, string> => ({
  STORE_URL: server.url,
  STORE_ADMIN_PASSWORD: server.credentials.adminPassword,
});

beforeAll(async () => {
  await source.s3.send(new CreateBucketCommand({ Bucket: bucket }));
  await source.s3.send(
    new PutObjectCommand({ Bucket: bucket, Key: 'one.txt', Body: 'one', ContentType: 'text/plain' }),
  );
  await source.s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'two.bin', Body: Buffer.alloc(300_000, 2) }));
});

describe('store backup / store restore', () => {
  it('backs up to a private file and restores it into another server', async () => {
    const backup = await store(['backup', '-o', 'all.zip'], { env: as(source.server) });
    expect(backup.code, backup.stderr).toBe(0);
    expect(backup.stderr).toMatch(/^saved all\.zip \(\d+ bytes\)/m);
    expect(statSync(join(work, 'all.zip')).mode & 0o777).toBe(0o600);
    const restore = await store(['restore', 'all.zip', '--url', target.server.url], {
      env: { STORE_ADMIN_PASSWORD: target.server.credentials.adminPassword },
    });
    expect(restore.code, restore.stderr).toBe(0);
    expect(JSON.parse(restore.stdout)).toEqual({ bucketsRestored: 1, objectsRestored: 2 });
    expect(await viewInstance(target.s3)).toEqual(await viewInstance(source.s3));
  });

  it('one bucket, with the password on stdin and the archive on stdout', async () => {
    const backup = await store(['backup', '--bucket', bucket, '-o', '-', '--url', source.server.url], {
      stdin: `${source.server.credentials.adminPassword}\n`,
    });
    expect(backup.code, backup.stderr).toBe(0);
    expect(backup.stdout.slice(0, 2)).toBe('PK');
    const named = await store(['backup', '--bucket', bucket, '-o', 'one.zip'], { env: as(source.server) });
    expect(named.code).toBe(0);
    const restore = await store(['restore', 'one.zip', '--bucket', 'renamed-copy'], { env: as(target.server) });
    expect(restore.code, restore.stderr).toBe(0);
    expect(JSON.parse(restore.stdout)).toEqual({ objectsRestored: 2 });
    expect(readFileSync(join(work, 'one.zip')).subarray(0, 2).toString()).toBe('PK');
  });

  it('fails clearly: a missing bucket (1), a wrong password (1), a bad archive (1), bad usage (64)', async () => {
    const missing = await store(['backup', '--bucket', 'no-such-bucket-x', '-o', 'x.zip'], { env: as(source.server) });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/404 NoSuchBucket/);
    expect(() => statSync(join(work, 'x.zip'))).toThrow();
    const wrong = await store(['backup', '-o', 'y.zip'], {
      env: { STORE_URL: source.server.url, STORE_ADMIN_PASSWORD: 'not-the-password' },
    });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/401/);
    const junk = join(work, 'junk.zip');
    await import('node:fs').then((fs) => fs.writeFileSync(junk, 'not a zip'));
    const bad = await store(['restore', junk], { env: as(target.server) });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/400 InvalidArchive/);
    expect((await store(['restore'], { env: as(target.server) })).code).toBe(64);
    expect((await store(['backup', '--frobnicate'], { env: as(target.server) })).code).toBe(64);
  });
});
