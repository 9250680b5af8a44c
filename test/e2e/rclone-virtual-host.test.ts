// rclone (Debian package, S3 backend, provider Other) with `force_path_style = false` against Store with STORE_DOMAIN:
// every bucket request goes to `<bucket>.s3.test`, reached through a forward proxy (HTTP_PROXY, host-proxy.ts) that
// keeps the Host: no /etc/hosts. Copies a tree and a 12 MiB file (multipart) up, checks, copies down, lists, purges.

import { HeadObjectCommand } from '@aws-sdk/client-s3';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { useStore, useTempDir } from '../helpers/store.js';
import { useHostProxy } from './host-proxy.js';
import { ODD_FILES, isolatedEnv, makeOddTree, runOk, treeDigest, writeRandomFile, type RunResult } from './support.js';

const MiB = 1024 * 1024;
const DOMAIN = 's3.test';
const BUCKET = 'rclone-vhost';
const store = useStore({ env: { STORE_DOMAIN: DOMAIN } });
const proxy = useHostProxy(() => store.server.port);
const work = useTempDir('store-e2e-rclone-vhost-');
let tree: string;
let env: Record<string, string>;

const rcloneOk = (rest: string[]): Promise<RunResult> =>
  runOk(
    '/usr/bin/rclone',
    [
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
    ],
    { env, cwd: work },
  );

beforeAll(async () => {
  mkdirSync(join(work, 'home'));
  env = isolatedEnv(join(work, 'home'), { HTTP_PROXY: proxy().url, http_proxy: proxy().url });
  writeFileSync(
    join(work, 'rclone.conf'),
    [
      '[store]',
      'type = s3',
      'provider = Other',
      `access_key_id = ${store.server.credentials.accessKeyId}`,
      `secret_access_key = ${store.server.credentials.secretAccessKey}`,
      `endpoint = http://${DOMAIN}:${store.server.port}`,
      'force_path_style = false',
      'region = us-east-1',
      '',
    ].join('\n'),
  );
  tree = join(work, 'tree');
  makeOddTree(tree);
  await writeRandomFile(join(tree, 'twelve.bin'), 12 * MiB);
});

describe('rclone with virtual-hosted–style addressing', () => {
  it('creates the bucket and copies a tree up through the bucket host (the 12 MiB file in 3 parts)', async () => {
    await rcloneOk(['mkdir', `store:${BUCKET}`]);
    await rcloneOk(['copy', tree, `store:${BUCKET}/t`]);
    const head = await store.s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key: 't/twelve.bin' }));
    expect(head.ETag).toMatch(/^"[0-9a-f]{32}-3"$/);
    const bucketHost = `${BUCKET}.${DOMAIN}:${store.server.port}`;
    expect(new Set(proxy().hosts)).toEqual(new Set([bucketHost]));
  });

  it('check finds no differences; copy down is byte-identical', async () => {
    const res = await rcloneOk(['check', tree, `store:${BUCKET}/t`]);
    expect(res.stderr).toContain('0 differences found');
    expect(res.stderr).toContain(`${ODD_FILES.length + 1} matching files`);
    const down = join(work, 'down');
    await rcloneOk(['copy', `store:${BUCKET}/t`, down]);
    expect(await treeDigest(down)).toEqual(await treeDigest(tree));
  });

  it('lists buckets at the domain itself, then purges the bucket', async () => {
    expect((await rcloneOk(['lsd', 'store:'])).stdout).toContain(BUCKET);
    expect(proxy().hosts).toContain(`${DOMAIN}:${store.server.port}`);
    await rcloneOk(['purge', `store:${BUCKET}`]);
    expect((await rcloneOk(['lsd', 'store:'])).stdout).not.toContain(BUCKET);
  });
});
