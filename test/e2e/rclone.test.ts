// rclone (Debian package, S3 backend, provider Other, path-style) against Store: copy a tree with odd names and
// a 60 MiB file (multipart: 10M cutoff, 5M chunks) up, check it, list, copy down, detect a tampered object,
// sync, copy server-side, delete and purge.

import { HeadBucketCommand, HeadObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { useStore, useTempDir } from '../helpers/store.js';
import {
  ODD_FILES,
  isolatedEnv,
  makeOddTree,
  run,
  runOk,
  treeDigest,
  writeRandomFile,
  type RunResult,
} from './support.js';

const MiB = 1024 * 1024;
const BUCKET = 'rclone-e2e';
const store = useStore();
const work = useTempDir('store-e2e-rclone-');
let tree: string;
let env: Record<string, string>;

const args = (rest: string[]): string[] => [
  '--config',
  join(work, 'rclone.conf'),
  '--s3-upload-cutoff',
  '10M',
  '--s3-chunk-size',
  '5M',
  '--retries',
  '1',
  '--low-level-retries',
  '1',
  ...rest,
];
const rclone = (rest: string[]): Promise<RunResult> => run('/usr/bin/rclone', args(rest), { env, cwd: work });
const rcloneOk = (rest: string[]): Promise<RunResult> => runOk('/usr/bin/rclone', args(rest), { env, cwd: work });

/** `rclone ls` lines (`<size> <path>`) as path -> size. */
function parseLs(stdout: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of stdout.split('\n')) {
    const m = /^\s*(\d+) (.+)$/.exec(line);
    if (m) out.set(m[2] as string, Number(m[1]));
  }
  return out;
}

beforeAll(async () => {
  mkdirSync(join(work, 'home'));
  env = isolatedEnv(join(work, 'home'));
  writeFileSync(
    join(work, 'rclone.conf'),
    [
      '[store]',
      'type = s3',
      'provider = Other',
      `access_key_id = ${store.server.credentials.accessKeyId}`,
      `secret_access_key = ${store.server.credentials.secretAccessKey}`,
      `endpoint = ${store.server.url}`,
      'force_path_style = true',
      'region = us-east-1',
      '',
    ].join('\n'),
  );
  tree = join(work, 'tree');
  makeOddTree(tree);
  mkdirSync(join(tree, 'big'));
  await writeRandomFile(join(tree, 'big/sixty.bin'), 60 * MiB);
});

describe('rclone', () => {
  it('copy uploads a tree (the 60 MiB file as a 12-part multipart upload)', async () => {
    await rcloneOk(['mkdir', `store:${BUCKET}`]);
    await rcloneOk(['copy', tree, `store:${BUCKET}/t`]);
    const head = await store.s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key: 't/big/sixty.bin' }));
    expect(head.ETag).toMatch(/^"[0-9a-f]{32}-12"$/);
    expect(head.ContentLength).toBe(60 * MiB);
  });

  it('check finds 0 differences against the local tree', async () => {
    const res = await rcloneOk(['check', tree, `store:${BUCKET}/t`]);
    expect(res.stderr).toContain('0 differences found');
    expect(res.stderr).toContain(`${ODD_FILES.length + 1} matching files`);
  });

  it('ls lists every object with its size', async () => {
    const listed = parseLs((await rcloneOk(['ls', `store:${BUCKET}`])).stdout);
    const expected = new Map<string, number>([['t/big/sixty.bin', 60 * MiB]]);
    for (const rel of ODD_FILES) expected.set(`t/${rel}`, readFileSync(join(tree, rel)).length);
    expect(listed).toEqual(expected);
  });

  it('copy downloads the tree byte-identical', async () => {
    const down = join(work, 'down');
    await rcloneOk(['copy', `store:${BUCKET}/t`, down]);
    expect(await treeDigest(down)).toEqual(await treeDigest(tree));
    rmSync(down, { recursive: true });
  });

  it('check reports a remote object whose content changed (same size)', async () => {
    const rel = 'plus+dir/a+b=c.txt';
    const original = readFileSync(join(tree, rel));
    const altered = Buffer.from(original);
    altered[0] = altered[0] === 0x41 ? 0x42 : 0x41;
    await store.s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: `t/${rel}`, Body: altered }));
    const res = await rclone(['check', tree, `store:${BUCKET}/t`]);
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain('1 differences found');
    expect(res.stderr).toContain(rel);
  });

  it('sync re-uploads the changed object and deletes what is gone locally; check is clean again', async () => {
    rmSync(join(tree, 'top level.txt'));
    await rcloneOk(['sync', tree, `store:${BUCKET}/t`]);
    const listed = parseLs((await rcloneOk(['ls', `store:${BUCKET}/t`])).stdout);
    expect(listed.has('top level.txt')).toBe(false);
    expect(listed.size).toBe(ODD_FILES.length);
    expect((await rcloneOk(['check', tree, `store:${BUCKET}/t`])).stderr).toContain('0 differences found');
  });

  it('copyto between two remote paths copies server-side; md5sum of the copy matches the local file', async () => {
    const res = await rcloneOk(['copyto', `store:${BUCKET}/t/big/sixty.bin`, `store:${BUCKET}/copy/sixty.bin`, '-v']);
    expect(res.stderr).toMatch(/Copied \(server-side copy\)/);
    const local = createHash('md5')
      .update(readFileSync(join(tree, 'big/sixty.bin')))
      .digest('hex');
    expect((await rcloneOk(['md5sum', `store:${BUCKET}/copy`])).stdout.trim()).toBe(`${local}  sixty.bin`);
  });

  it('delete removes matching objects and leaves the rest', async () => {
    await rcloneOk(['delete', `store:${BUCKET}/t`, '--include', '*.{txt,md}']);
    expect([...parseLs((await rcloneOk(['ls', `store:${BUCKET}`])).stdout).keys()].sort()).toEqual([
      'copy/sixty.bin',
      't/big/sixty.bin',
    ]);
  });

  it('purge removes the bucket and everything in it', async () => {
    await rcloneOk(['purge', `store:${BUCKET}`]);
    await expect(store.s3.send(new HeadBucketCommand({ Bucket: BUCKET }))).rejects.toMatchObject({
      $metadata: { httpStatusCode: 404 },
    });
    expect((await rcloneOk(['lsd', 'store:'])).stdout).not.toContain(BUCKET);
  });

  // rclone asks GetBucketVersioning before a purge; Store answers 501 NotImplemented, which rclone logs as an
  // ERROR (it then assumes "unversioned" and carries on). S3 answers 200 with an empty VersioningConfiguration.
  it('purge logs no errors (needs GetBucketVersioning)', async () => {
    await rcloneOk(['mkdir', `store:${BUCKET}-2`]);
    await rcloneOk(['copyto', join(tree, 'empty.txt'), `store:${BUCKET}-2/x.txt`]);
    const res = await rcloneOk(['purge', `store:${BUCKET}-2`]);
    expect(res.stderr).not.toContain('ERROR');
  });

  it('reports a wrong secret as a failure', async () => {
    const res = await rclone([
      'ls',
      `store:${BUCKET}`,
      '--s3-secret-access-key',
      `${store.server.credentials.secretAccessKey}x`,
    ]);
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain('SignatureDoesNotMatch');
  });
});
