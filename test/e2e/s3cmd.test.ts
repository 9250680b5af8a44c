// s3cmd (Debian package) against Store with SigV4 and path-style addressing: bucket and object commands, a
// 30 MiB put that s3cmd sends as a 2-part multipart upload (15 MiB chunks), sync both ways, and its errors.

import { CreateBucketCommand, HeadObjectCommand } from '@aws-sdk/client-s3';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { useStore, useTempDir } from '../helpers/store.js';
import {
  ODD_FILES,
  isolatedEnv,
  makeOddTree,
  run,
  runOk,
  sha256File,
  treeDigest,
  writeRandomFile,
  type RunResult,
} from './support.js';

const MiB = 1024 * 1024;
const BUCKET = 's3cmd-e2e';
const store = useStore();
const work = useTempDir('store-e2e-s3cmd-');
let env: Record<string, string>;

function writeConfig(path: string, secret: string, signatureV2 = false): void {
  writeFileSync(
    path,
    [
      '[default]',
      `access_key = ${store.server.credentials.accessKeyId}`,
      `secret_key = ${secret}`,
      `host_base = 127.0.0.1:${store.server.port}`,
      `host_bucket = 127.0.0.1:${store.server.port}`,
      'bucket_location = us-east-1',
      'use_https = False',
      `signature_v2 = ${signatureV2 ? 'True' : 'False'}`,
      'multipart_chunk_size_mb = 15',
      '',
    ].join('\n'),
  );
}

const s3cmd = (args: string[], config = 's3cfg'): Promise<RunResult> =>
  run('/usr/bin/s3cmd', ['-c', join(work, config), ...args], { env, cwd: work });
const s3cmdOk = (args: string[]): Promise<RunResult> =>
  runOk('/usr/bin/s3cmd', ['-c', join(work, 's3cfg'), ...args], { env, cwd: work });

/** `s3cmd ls` lines as key -> size (directories, shown as DIR, are skipped). */
function parseLs(stdout: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of stdout.split('\n')) {
    const m = /^\S+ \S+\s+(\d+)\s+s3:\/\/[^/]+\/(.+)$/.exec(line);
    if (m) out.set(m[2] as string, Number(m[1]));
  }
  return out;
}

const md5File = (path: string): string => createHash('md5').update(readFileSync(path)).digest('hex');

beforeAll(async () => {
  mkdirSync(join(work, 'home'));
  env = isolatedEnv(join(work, 'home'));
  writeConfig(join(work, 's3cfg'), store.server.credentials.secretAccessKey);
  writeConfig(join(work, 's3cfg-bad'), `${store.server.credentials.secretAccessKey}x`);
  writeConfig(join(work, 's3cfg-v2'), store.server.credentials.secretAccessKey, true);
  writeFileSync(join(work, 'small ü+.txt'), 'small file\n');
  await writeRandomFile(join(work, 'mid.bin'), 30 * MiB);
});

describe('s3cmd', () => {
  it('mb creates a bucket that ls lists', async () => {
    await s3cmdOk(['mb', `s3://${BUCKET}`]);
    expect((await s3cmdOk(['ls'])).stdout).toContain(`s3://${BUCKET}`);
  });

  it('put uploads a small file and a 30 MiB file (multipart, 2 parts of 15 MiB)', async () => {
    await s3cmdOk(['put', join(work, 'small ü+.txt'), `s3://${BUCKET}/small ü+.txt`]);
    await s3cmdOk(['put', join(work, 'mid.bin'), `s3://${BUCKET}/mid.bin`]);
    const head = await store.s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key: 'mid.bin' }));
    expect(head.ETag).toMatch(/^"[0-9a-f]{32}-2"$/);
    expect(head.ContentLength).toBe(30 * MiB);
  });

  it('ls lists both objects with their sizes', async () => {
    const listed = parseLs((await s3cmdOk(['ls', `s3://${BUCKET}`])).stdout);
    expect(listed).toEqual(
      new Map([
        ['mid.bin', 30 * MiB],
        ['small ü+.txt', 11],
      ]),
    );
  });

  it('get downloads both objects byte-identical', async () => {
    for (const name of ['mid.bin', 'small ü+.txt']) {
      const out = join(work, `got-${name}`);
      await s3cmdOk(['get', '--force', `s3://${BUCKET}/${name}`, out]);
      expect(await sha256File(out)).toBe(await sha256File(join(work, name)));
    }
  });

  it('info shows size and MD5 of an object and the bucket location', async () => {
    const info = (await s3cmdOk(['info', `s3://${BUCKET}/mid.bin`])).stdout;
    expect(info).toMatch(/File size:\s+31457280/);
    expect(info).toContain(`MD5 sum:   ${md5File(join(work, 'mid.bin'))}`);
    const small = (await s3cmdOk(['info', `s3://${BUCKET}/small ü+.txt`])).stdout;
    expect(small).toContain(`MD5 sum:   ${md5File(join(work, 'small ü+.txt'))}`);
    const bucketInfo = (await s3cmdOk(['info', `s3://${BUCKET}`])).stdout;
    expect(bucketInfo).toMatch(/Location:\s+us-east-1/);
    // Read from GET ?requestPayment, which answers AWS's default (BucketOwner) rather than 501.
    expect(bucketInfo).toMatch(/Payer:\s+BucketOwner/);
  });

  it('payer sets BucketOwner (what every bucket is), which is accepted', async () => {
    const res = await s3cmd(['payer', `s3://${BUCKET}`]);
    expect(res.code, res.stderr).toBe(0);
  });

  it('signurl (SigV2 query authentication) gives a URL plain fetch can GET until it expires', async () => {
    const url = (await s3cmdOk(['signurl', `s3://${BUCKET}/small ü+.txt`, '+300'])).stdout.trim();
    expect(url).toContain('AWSAccessKeyId=');
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('small file\n');
    const expired = await fetch(
      (
        await s3cmdOk(['signurl', `s3://${BUCKET}/small ü+.txt`, String(Math.floor(Date.now() / 1000) - 5)])
      ).stdout.trim(),
    );
    expect(expired.status).toBe(403);
  });

  it('with signature_v2 = True (SigV2 headers throughout): put, ls, info, get and del', async () => {
    const name = 'small ü+.txt';
    const key = `s3://${BUCKET}/v2/${name}`;
    const v2 = (args: string[]) => s3cmd(args, 's3cfg-v2');
    expect((await v2(['put', join(work, name), key])).code).toBe(0);
    expect((await v2(['ls', `s3://${BUCKET}/v2/`])).stdout).toContain(`v2/${name}`);
    expect((await v2(['info', key])).stdout).toContain(`MD5 sum:   ${md5File(join(work, name))}`);
    const out = join(work, 'v2.out');
    expect((await v2(['get', '--force', key, out])).code).toBe(0);
    expect(await sha256File(out)).toBe(await sha256File(join(work, name)));
    expect((await v2(['del', key])).code).toBe(0);
  });

  it('del removes an object; info (HEAD) then fails with 404 and get refuses', async () => {
    await s3cmdOk(['del', `s3://${BUCKET}/small ü+.txt`]);
    expect([...parseLs((await s3cmdOk(['ls', `s3://${BUCKET}`])).stdout).keys()]).toEqual(['mid.bin']);
    const info = await s3cmd(['info', `s3://${BUCKET}/small ü+.txt`]);
    expect(info.code).not.toBe(0);
    expect(info.stderr).toMatch(/404/);
    // s3cmd lists before a get, so a missing key is reported from the (correct) listing.
    const get = await s3cmd(['get', '--force', `s3://${BUCKET}/small ü+.txt`, join(work, 'never')]);
    expect(get.code).not.toBe(0);
    expect(get.stderr).toContain('does not exist');
  });

  it('sync uploads a tree with odd names, re-sends only a changed file, and syncs back identically', async () => {
    const tree = join(work, 'tree');
    makeOddTree(tree);
    const first = await s3cmdOk(['sync', `${tree}/`, `s3://${BUCKET}/tree/`]);
    expect(first.stdout.split('\n').filter((l) => l.startsWith('upload: '))).toHaveLength(ODD_FILES.length);

    writeFileSync(join(tree, 'pct%20dir/100%.txt'), 'changed\n');
    const second = await s3cmdOk(['sync', `${tree}/`, `s3://${BUCKET}/tree/`]);
    const uploads = second.stdout.split('\n').filter((l) => l.startsWith('upload: '));
    expect(uploads).toHaveLength(1);
    expect(uploads[0]).toContain('pct%20dir/100%.txt');

    const down = join(work, 'tree.down');
    mkdirSync(down);
    await s3cmdOk(['sync', `s3://${BUCKET}/tree/`, `${down}/`]);
    expect(await treeDigest(down)).toEqual(await treeDigest(tree));
  });

  it('reports errors: wrong secret, non-empty bucket, missing bucket', async () => {
    const bad = await s3cmd(['ls', `s3://${BUCKET}`], 's3cfg-bad');
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('SignatureDoesNotMatch');

    const notEmpty = await s3cmd(['rb', `s3://${BUCKET}`]);
    expect(notEmpty.code).not.toBe(0);
    expect(notEmpty.stderr).toContain('BucketNotEmpty');

    const missing = await s3cmd(['ls', 's3://s3cmd-no-such-bucket']);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('NoSuchBucket');
  });

  it('del --recursive empties the bucket and rb removes it', async () => {
    await s3cmdOk(['del', '--recursive', '--force', `s3://${BUCKET}`]);
    expect(parseLs((await s3cmdOk(['ls', '--recursive', `s3://${BUCKET}`])).stdout).size).toBe(0);
    await s3cmdOk(['rb', `s3://${BUCKET}`]);
    expect((await s3cmdOk(['ls'])).stdout).not.toContain(`s3://${BUCKET}`);
  });
});

describe('s3cmd ACLs on a bucket with ACLs enabled', () => {
  const ACL_BUCKET = 's3cmd-e2e-acl';
  const anonymousStatus = async (key: string): Promise<number> =>
    (await fetch(`${store.server.url}/${ACL_BUCKET}/${key}`)).status;

  beforeAll(async () => {
    await store.s3.send(new CreateBucketCommand({ Bucket: ACL_BUCKET, ObjectOwnership: 'BucketOwnerPreferred' }));
    await store.s3.send(new CreateBucketCommand({ Bucket: `${ACL_BUCKET}-enforced` }));
  });

  it('put --acl-public makes an object anyone can read; without it the object stays private', async () => {
    await s3cmdOk(['put', '--acl-public', join(work, 'small ü+.txt'), `s3://${ACL_BUCKET}/public.txt`]);
    await s3cmdOk(['put', join(work, 'small ü+.txt'), `s3://${ACL_BUCKET}/private.txt`]);
    const got = await fetch(`${store.server.url}/${ACL_BUCKET}/public.txt`);
    expect({ status: got.status, body: await got.text() }).toEqual({ status: 200, body: 'small file\n' });
    expect(await anonymousStatus('private.txt')).toBe(403);
  });

  it('setacl --acl-public / --acl-private change the ACL, and info shows it', async () => {
    await s3cmdOk(['setacl', '--acl-public', `s3://${ACL_BUCKET}/private.txt`]);
    expect(await anonymousStatus('private.txt')).toBe(200);
    expect((await s3cmdOk(['info', `s3://${ACL_BUCKET}/private.txt`])).stdout).toMatch(/ACL:\s+\*anon\*: READ/);
    await s3cmdOk(['setacl', '--acl-private', `s3://${ACL_BUCKET}/private.txt`]);
    expect(await anonymousStatus('private.txt')).toBe(403);
    expect((await s3cmdOk(['info', `s3://${ACL_BUCKET}/private.txt`])).stdout).not.toContain('*anon*');
  });

  it('put --acl-public onto a BucketOwnerEnforced bucket is refused (AccessControlListNotSupported)', async () => {
    const refused = await s3cmd([
      'put',
      '--acl-public',
      join(work, 'small ü+.txt'),
      `s3://${ACL_BUCKET}-enforced/public.txt`,
    ]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('AccessControlListNotSupported');
  });
});
