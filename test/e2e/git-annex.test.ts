// git-annex (Debian package) against Store through its S3 special remote, with its default signature (SigV2) and
// with `signature=v4`, which signs with the host name as the region (accepted because STORE_REGION_STRICT=false).
// `git annex testremote` is git-annex's own conformance run: store, retrieve, check presence, remove, chunked and
// unchunked, plus its checks that a missing or corrupt object is detected.

import { HeadBucketCommand, HeadObjectCommand } from '@aws-sdk/client-s3';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { useStore, useTempDir } from '../helpers/store.js';
import { isolatedEnv, run, runOk, type RunResult } from './support.js';

const store = useStore({ env: { STORE_REGION_STRICT: 'false' } });
const work = useTempDir('store-e2e-annex-');
let env: Record<string, string>;
const repo = (): string => join(work, 'repo');

const git = (args: string[]): Promise<RunResult> =>
  runOk('/usr/bin/git', args, { env, cwd: repo(), timeoutMs: 600_000 });
const annex = (args: string[]): Promise<RunResult> => git(['annex', ...args]);

/** `initremote` options for a remote at this Store, path-style over plain HTTP. */
function remoteOptions(bucket: string, extra: string[] = []): string[] {
  return [
    'type=S3',
    'encryption=none',
    `bucket=${bucket}`,
    'host=127.0.0.1',
    `port=${store.server.port}`,
    'protocol=http',
    'requeststyle=path',
    ...extra,
  ];
}

/** How many tests `git annex testremote` says all passed (0 when any failed). */
function testsPassed(res: RunResult): number {
  return Number(/All (\d+) tests passed/.exec(res.stdout + res.stderr)?.[1] ?? 0);
}

beforeAll(async () => {
  const home = join(work, 'home');
  mkdirSync(home);
  env = isolatedEnv(home, {
    AWS_ACCESS_KEY_ID: store.server.credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: store.server.credentials.secretAccessKey,
    GIT_AUTHOR_NAME: 'e2e',
    GIT_AUTHOR_EMAIL: 'e2e@example.com',
    GIT_COMMITTER_NAME: 'e2e',
    GIT_COMMITTER_EMAIL: 'e2e@example.com',
  });
  mkdirSync(repo());
  await git(['init', '-q']);
  // git-annex refuses loopback addresses for special remotes unless allowed (a guard against SSRF through remotes).
  await git(['config', 'annex.security.allowed-ip-addresses', '127.0.0.1']);
  await annex(['init', 'e2e']);
});

describe('git-annex S3 special remote', () => {
  it('initremote with the default SigV2 signature creates the bucket, then copy, drop and get round-trip a file', async () => {
    await annex(['initremote', 'store-v2', ...remoteOptions('annex-v2')]);
    const content = `annexed ${Date.now()}\n`.repeat(1000);
    writeFileSync(join(repo(), 'file.txt'), content);
    await annex(['add', 'file.txt']);
    await git(['commit', '-q', '-m', 'add']);
    await annex(['copy', '--to', 'store-v2', 'file.txt']);
    const key = (await annex(['lookupkey', 'file.txt'])).stdout.trim();
    const head = await store.s3.send(new HeadObjectCommand({ Bucket: 'annex-v2', Key: key }));
    expect(head.ContentLength).toBe(Buffer.byteLength(content));
    await annex(['drop', 'file.txt']);
    expect((await run('/usr/bin/cat', [join(repo(), 'file.txt')], { env })).code).not.toBe(0);
    await annex(['get', 'file.txt', '--from', 'store-v2']);
    const sha = (s: string | Buffer): string => createHash('sha256').update(s).digest('hex');
    expect(sha(readFileSync(join(repo(), 'file.txt')))).toBe(sha(content));
  });

  it('testremote passes over SigV2', async () => {
    const res = await annex(['testremote', 'store-v2', '--fast', '--test-readonly=file.txt']);
    expect(testsPassed(res)).toBeGreaterThanOrEqual(20);
  });

  it('testremote passes over SigV4, signed with the host name as the region', async () => {
    await annex(['initremote', 'store-v4', ...remoteOptions('annex-v4', ['signature=v4', 'chunk=1MiB'])]);
    const res = await annex(['testremote', 'store-v4', '--fast', '--size=3MiB']);
    expect(testsPassed(res)).toBeGreaterThanOrEqual(20);
  });

  it('a wrong secret is refused with SignatureDoesNotMatch and no bucket is made', async () => {
    const bad = { ...env, AWS_SECRET_ACCESS_KEY: `${store.server.credentials.secretAccessKey}x` };
    const res = await run(
      '/usr/bin/git',
      ['annex', 'initremote', 'store-bad', ...remoteOptions('annex-bad', ['signature=v4'])],
      {
        env: bad,
        cwd: repo(),
      },
    );
    expect(res.code).not.toBe(0);
    expect(res.stdout + res.stderr).toMatch(/SignatureDoesNotMatch/);
    await expect(store.s3.send(new HeadBucketCommand({ Bucket: 'annex-bad' }))).rejects.toMatchObject({
      name: 'NotFound',
    });
  });
});
