// The AWS CLI against Store: v2 (Debian's /usr/bin/aws, required) and v1 (any other `aws` on PATH, e.g. pyenv's;
// skipped when absent). Each version runs the same flow on its own bucket: big copies, odd-name sync, listings,
// metadata, multipart by hand, presigned URLs and the errors a user would see.

import { HeadObjectCommand } from '@aws-sdk/client-s3';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { useStore, useTempDir } from '../helpers/store.js';
import { awsClis } from './aws-cli-bins.js';
import {
  ODD_FILES,
  awsCliEnv,
  makeOddTree,
  run,
  runOk,
  sha256,
  sha256File,
  treeDigest,
  writeRandomFile,
  xmlErrorCode,
  type RunResult,
} from './support.js';

const CLIS = awsClis();

const MiB = 1024 * 1024;
const store = useStore();
const work = useTempDir('store-e2e-aws-');
let bigFile: string;
let bigSha: string;

beforeAll(async () => {
  bigFile = join(work, 'big.bin');
  await writeRandomFile(bigFile, 100 * MiB);
  bigSha = await sha256File(bigFile);
});

for (const cli of CLIS)
  describe.skipIf(!cli.bin)(`aws CLI ${cli.label}${cli.bin ? '' : ' (not on PATH)'}`, () => {
    const bucket = `aws-${cli.label}-e2e`;
    let dir: string;
    let env: Record<string, string>;
    let presignEnv: Record<string, string>;

    /** Runs `aws --endpoint-url <server> ...args`; `envOverride` replaces keys of the client environment. */
    const aws = (args: string[], envOverride: Record<string, string> = {}): Promise<RunResult> =>
      run(cli.bin, ['--endpoint-url', store.server.url, ...args], { env: { ...env, ...envOverride }, cwd: dir });
    const awsOk = (args: string[], envOverride: Record<string, string> = {}): Promise<RunResult> =>
      runOk(cli.bin, ['--endpoint-url', store.server.url, ...args], { env: { ...env, ...envOverride }, cwd: dir });
    const awsJson = async <T>(args: string[]): Promise<T> => JSON.parse((await awsOk(args)).stdout) as T;
    const etagOf = async (key: string): Promise<string> =>
      (await store.s3.send(new HeadObjectCommand({ Bucket: bucket, Key: key }))).ETag ?? '';

    beforeAll(() => {
      dir = join(work, cli.label);
      const home = join(dir, 'home');
      mkdirSync(home, { recursive: true });
      writeFileSync(join(home, 'config'), '[default]\nregion = us-east-1\n');
      // AWS CLI v1 presigns with SigV2 unless told otherwise; this is the documented switch.
      writeFileSync(join(home, 'config-s3v4'), '[default]\nregion = us-east-1\ns3 =\n    signature_version = s3v4\n');
      env = awsCliEnv(home, { credentials: store.server.credentials });
      presignEnv = { AWS_CONFIG_FILE: join(home, 'config-s3v4') };
    });

    it('s3 mb creates a bucket that s3 ls lists', async () => {
      await awsOk(['s3', 'mb', `s3://${bucket}`]);
      const ls = await awsOk(['s3', 'ls']);
      expect(ls.stdout.split('\n').some((line) => line.endsWith(` ${bucket}`))).toBe(true);
    });

    it('s3 cp uploads and downloads a 100 MiB file intact (multipart, 8 MiB parts)', async () => {
      await awsOk(['s3', 'cp', '--only-show-errors', bigFile, `s3://${bucket}/big/big.bin`]);
      expect(await etagOf('big/big.bin')).toMatch(/^"[0-9a-f]{32}-13"$/);
      const down = join(dir, 'big.down');
      await awsOk(['s3', 'cp', '--only-show-errors', `s3://${bucket}/big/big.bin`, down]);
      expect(await sha256File(down)).toBe(bigSha);
      rmSync(down);
    });

    // Over the multipart threshold the CLI copies with UploadPartCopy; v2 first reads the source's tags
    // (GET ?tagging) to carry them over, so Store must answer GetObjectTagging (an empty TagSet here).
    it('s3 cp copies the 100 MiB object server-side (UploadPartCopy) and s3 mv moves it', async () => {
      await awsOk(['s3', 'cp', '--only-show-errors', `s3://${bucket}/big/big.bin`, `s3://${bucket}/copy/big.bin`]);
      await awsOk(['s3', 'mv', '--only-show-errors', `s3://${bucket}/copy/big.bin`, `s3://${bucket}/moved/big.bin`]);
      const down = join(dir, 'moved.down');
      await awsOk(['s3', 'cp', '--only-show-errors', `s3://${bucket}/moved/big.bin`, down]);
      expect(await sha256File(down)).toBe(bigSha);
      rmSync(down);
      await awsOk(['s3', 'rm', '--only-show-errors', `s3://${bucket}/moved/big.bin`]);
      const left = await awsJson<{ KeyCount: number }>([
        's3api',
        'list-objects-v2',
        '--no-paginate',
        '--bucket',
        bucket,
        '--prefix',
        'copy/',
      ]);
      expect(left.KeyCount).toBe(0);
    });

    it('s3 sync uploads a tree with odd names, re-sends only a changed file, and syncs back identically', async () => {
      const tree = join(dir, 'tree');
      makeOddTree(tree);
      const first = await awsOk(['s3', 'sync', '--no-progress', tree, `s3://${bucket}/tree`]);
      expect(first.stdout.split('\n').filter((l) => l.startsWith('upload: '))).toHaveLength(ODD_FILES.length);

      writeFileSync(join(tree, 'plus+dir/a+b=c.txt'), 'changed, and longer than before\n');
      const second = await awsOk(['s3', 'sync', '--no-progress', tree, `s3://${bucket}/tree`]);
      const uploads = second.stdout.split('\n').filter((l) => l.startsWith('upload: '));
      expect(uploads).toHaveLength(1);
      expect(uploads[0]).toContain(`s3://${bucket}/tree/plus+dir/a+b=c.txt`);

      const down = join(dir, 'tree.down');
      mkdirSync(down);
      await awsOk(['s3', 'sync', '--no-progress', `s3://${bucket}/tree`, down]);
      expect(await treeDigest(down)).toEqual(await treeDigest(tree));
    });

    it('s3 ls --recursive lists every key with its size', async () => {
      const ls = await awsOk(['s3', 'ls', '--recursive', `s3://${bucket}/`]);
      const listed = new Map<string, number>();
      for (const line of ls.stdout.split('\n')) {
        const m = /^\S+ \S+\s+(\d+) (.+)$/.exec(line);
        if (m) listed.set(m[2] as string, Number(m[1]));
      }
      const expected = new Map<string, number>([['big/big.bin', 100 * MiB]]);
      for (const rel of ODD_FILES) expected.set(`tree/${rel}`, readFileSync(join(dir, 'tree', rel)).length);
      expect(listed).toEqual(expected);
    });

    it('s3api put-object stores metadata and headers that head-object returns', async () => {
      const body = join(dir, 'meta.txt');
      writeFileSync(body, '# metadata\n');
      const put = await awsJson<{ ETag: string }>([
        's3api',
        'put-object',
        '--bucket',
        bucket,
        '--key',
        'meta/obj ü.md',
        '--body',
        body,
        '--content-type',
        'text/markdown',
        '--cache-control',
        'max-age=60',
        '--content-disposition',
        'attachment; filename="obj.md"',
        '--metadata',
        'Color=blue,project=store-e2e',
      ]);
      const head = await awsJson<Record<string, unknown>>([
        's3api',
        'head-object',
        '--bucket',
        bucket,
        '--key',
        'meta/obj ü.md',
      ]);
      expect(head).toMatchObject({
        ContentLength: 11,
        ETag: put.ETag,
        ContentType: 'text/markdown',
        CacheControl: 'max-age=60',
        ContentDisposition: 'attachment; filename="obj.md"',
        Metadata: { color: 'blue', project: 'store-e2e' },
      });
    });

    it('s3api list-objects-v2 paginates with continuation tokens, by hand and automatically', async () => {
      const expected = ODD_FILES.map((rel) => `tree/${rel}`).sort();
      const seen: string[] = [];
      let token: string | undefined;
      let pages = 0;
      do {
        const page = await awsJson<{
          Contents?: { Key: string }[];
          IsTruncated: boolean;
          NextContinuationToken?: string;
          KeyCount: number;
        }>([
          's3api',
          'list-objects-v2',
          '--no-paginate',
          '--bucket',
          bucket,
          '--prefix',
          'tree/',
          '--max-keys',
          '3',
          ...(token ? ['--continuation-token', token] : []),
        ]);
        pages++;
        expect(page.KeyCount).toBe(page.Contents?.length ?? 0);
        expect(page.KeyCount).toBeLessThanOrEqual(3);
        seen.push(...(page.Contents ?? []).map((c) => c.Key));
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
        if (page.IsTruncated) expect(token).toBeTruthy();
      } while (token && pages < 10);
      expect(pages).toBe(Math.ceil(expected.length / 3));
      expect(seen).toEqual(expected);

      const auto = await awsJson<string[]>([
        's3api',
        'list-objects-v2',
        '--bucket',
        bucket,
        '--prefix',
        'tree/',
        '--page-size',
        '2',
        '--query',
        'Contents[].Key',
      ]);
      expect(auto).toEqual(expected);
    });

    it('s3api create-multipart-upload / upload-part / complete-multipart-upload assembles the parts', async () => {
      const p1 = join(dir, 'part1');
      const p2 = join(dir, 'part2');
      await writeRandomFile(p1, 5 * MiB);
      await writeRandomFile(p2, MiB + 7);
      const key = 'mpu/hand made+.bin';
      const { UploadId } = await awsJson<{ UploadId: string }>([
        's3api',
        'create-multipart-upload',
        '--bucket',
        bucket,
        '--key',
        key,
      ]);
      const parts = [];
      for (const [i, file] of [p1, p2].entries()) {
        const res = await awsJson<{ ETag: string }>([
          's3api',
          'upload-part',
          '--bucket',
          bucket,
          '--key',
          key,
          '--upload-id',
          UploadId,
          '--part-number',
          String(i + 1),
          '--body',
          file,
        ]);
        parts.push({ ETag: res.ETag, PartNumber: i + 1 });
      }
      writeFileSync(join(dir, 'parts.json'), JSON.stringify({ Parts: parts }));
      const done = await awsJson<{ ETag: string; Key: string }>([
        's3api',
        'complete-multipart-upload',
        '--bucket',
        bucket,
        '--key',
        key,
        '--upload-id',
        UploadId,
        '--multipart-upload',
        'file://parts.json',
      ]);
      expect(done.ETag).toMatch(/^"[0-9a-f]{32}-2"$/);
      expect(done.Key).toBe(key);

      const out = join(dir, 'mpu.out');
      await awsOk(['s3api', 'get-object', '--bucket', bucket, '--key', key, out]);
      expect(await sha256File(out)).toBe(sha256(Buffer.concat([readFileSync(p1), readFileSync(p2)])));

      const bogus = await aws([
        's3api',
        'upload-part',
        '--bucket',
        bucket,
        '--key',
        key,
        '--upload-id',
        'no-such-upload',
        '--part-number',
        '1',
        '--body',
        p2,
      ]);
      expect(bogus.code).not.toBe(0);
      expect(bogus.stderr).toContain('NoSuchUpload');
    });

    it('s3 presign gives a URL that plain fetch can GET; a tampered or expired one is refused', async () => {
      const key = 'meta/obj ü.md';
      const url = (
        await awsOk(['s3', 'presign', `s3://${bucket}/${key}`, '--expires-in', '300'], presignEnv)
      ).stdout.trim();
      expect(url).toContain('X-Amz-Signature=');
      const ok = await fetch(url);
      expect(ok.status).toBe(200);
      expect(await ok.text()).toBe('# metadata\n');

      const tampered = url.replace(
        /X-Amz-Signature=([0-9a-f]+)/,
        (_m, sig: string) => `X-Amz-Signature=${sig.slice(0, -1)}${sig.endsWith('0') ? '1' : '0'}`,
      );
      const bad = await fetch(tampered);
      expect(bad.status).toBe(403);
      expect(xmlErrorCode(await bad.text())).toBe('SignatureDoesNotMatch');

      const shortLived = (
        await awsOk(['s3', 'presign', `s3://${bucket}/${key}`, '--expires-in', '1'], presignEnv)
      ).stdout.trim();
      await new Promise((r) => setTimeout(r, 2100));
      const expired = await fetch(shortLived);
      expect(expired.status).toBe(403);
      expect(xmlErrorCode(await expired.text())).toBe('AccessDenied');
    });

    it.runIf(cli.label === 'v1')(
      'v1 default presign (SigV2 query auth) gives a URL that plain fetch can GET; a tampered one is refused',
      async () => {
        const url = (await awsOk(['s3', 'presign', `s3://${bucket}/meta/obj ü.md`])).stdout.trim();
        expect(url).toContain('AWSAccessKeyId=');
        const res = await fetch(url);
        expect(res.status).toBe(200);
        expect(await res.text()).toBe('# metadata\n');
        const tampered = await fetch(url.replace('obj', 'obk'));
        expect(tampered.status).toBe(403);
        expect(xmlErrorCode(await tampered.text())).toBe('SignatureDoesNotMatch');
      },
    );

    it('reports S3 errors: missing key, non-empty bucket, bad secret, unknown access key', async () => {
      const missing = await aws(['s3api', 'head-object', '--bucket', bucket, '--key', 'no/such/key']);
      expect(missing.code).not.toBe(0);
      expect(missing.stderr).toMatch(/\(404\)|Not Found/);

      const getMissing = await aws(['s3', 'cp', `s3://${bucket}/no/such/key`, join(dir, 'never')]);
      expect(getMissing.code).not.toBe(0);
      expect(getMissing.stderr).toMatch(/404|Not Found|NoSuchKey/);

      const notEmpty = await aws(['s3', 'rb', `s3://${bucket}`]);
      expect(notEmpty.code).not.toBe(0);
      expect(notEmpty.stderr).toContain('BucketNotEmpty');

      const badSecret = await aws(['s3', 'ls', `s3://${bucket}`], {
        AWS_SECRET_ACCESS_KEY: `${store.server.credentials.secretAccessKey}x`,
      });
      expect(badSecret.code).not.toBe(0);
      expect(badSecret.stderr).toContain('SignatureDoesNotMatch');

      const badKey = await aws(['s3', 'ls', `s3://${bucket}`], { AWS_ACCESS_KEY_ID: 'AKIDNOSUCHKEY0000000' });
      expect(badKey.code).not.toBe(0);
      expect(badKey.stderr).toContain('InvalidAccessKeyId');
    });

    it('s3 rm --recursive empties the bucket and s3 rb removes it', async () => {
      await awsOk(['s3', 'rm', '--recursive', '--only-show-errors', `s3://${bucket}`]);
      // --no-paginate: the CLI's paginator drops KeyCount (v1) or prints nothing (v2) for an empty result.
      const left = await awsJson<{ KeyCount: number }>([
        's3api',
        'list-objects-v2',
        '--no-paginate',
        '--bucket',
        bucket,
      ]);
      expect(left.KeyCount).toBe(0);
      await awsOk(['s3', 'rb', `s3://${bucket}`]);
      const gone = await aws(['s3api', 'head-bucket', '--bucket', bucket]);
      expect(gone.code).not.toBe(0);
      expect(gone.stderr).toMatch(/\(404\)|Not Found/);
    });
  });
