// The reverse-proxy suite, run against each documented proxy (nginx-proxy.test.ts, caddy-proxy.test.ts): the proxy
// runs the site block of docs/operations.md (TLS at the proxy, MOUNT_PATH=/storage, X-Forwarded-Proto and
// X-Forwarded-For set, no buffering, no size cap, the client's Host kept), and through it the AWS CLI v1 and v2 and
// presigned URLs (the SDK's, the CLI's and the admin API's, fetched by a plain HTTPS client) work (the console
// through nginx: console/console-proxy.test.ts). The access log names the real client only while the proxy is
// trusted (STORE_TRUSTED_PROXIES); otherwise it names the proxy, and forwarded headers change nothing
// (aws:SecureTransport).

import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import {
  CreateBucketCommand,
  GetObjectCommand,
  PutBucketPolicyCommand,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../helpers/server.js';
import { awsClis } from './aws-cli-bins.js';
import { CADDY, httpsRequest, NGINX, s3ClientVia, useProxiedStore, type ProxyKind } from './reverse-proxy.js';
import { awsCliEnv, runOk, sha256, sha256File, writeRandomFile, xmlErrorCode } from './support.js';

const MOUNT = '/storage';
const MiB = 1024 * 1024;
/** Requests whose logged address the tests check come from here; the proxy connects to Store from 127.0.0.1. */
const CLIENT_ADDRESS = '127.0.0.9';

/**
 * The reverse-proxy suite for one proxy: Store with MOUNT_PATH=/storage behind it, trusted, then not trusted.
 * Call it at the top level of a test file.
 */
export function proxySuite(kind: ProxyKind): void {
  beforeAll(() => {
    const bin = kind === 'nginx' ? NGINX : CADDY;
    expect(existsSync(bin), `${bin} is missing: apt-get install ${kind} (the CI script installs it)`).toBe(true);
  });
  const proxied = useProxiedStore({ mount: MOUNT, env: { STORE_TRUSTED_PROXIES: '127.0.0.1' }, proxy: kind });
  let bigFile: string;
  let bigSha: string;

  /** An SDK client whose endpoint is the proxy (its URL under the mount), trusting the test certificate. */
  const proxiedSdk = (): S3Client =>
    s3ClientVia(`${proxied.proxy.origin}${MOUNT}`, proxied.store.credentials, proxied.certificate.pem);

  /** The access-log lines Store wrote for requests that carried this request id. */
  async function accessLogFor(server: RunningServer, reqId: string): Promise<Record<string, unknown>> {
    const deadline = Date.now() + 5000;
    for (;;) {
      const line = server
        .output()
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .find((l) => l['reqId'] === reqId && l['msg'] === 'request completed');
      if (line) return line;
      if (Date.now() > deadline) throw new Error(`no access-log line for ${reqId}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** GET of the proxied health route from CLIENT_ADDRESS (with an extra X-Forwarded-For when given); its log line. */
  async function loggedThroughProxy(extraForwardedFor?: string): Promise<Record<string, unknown>> {
    const reqId = crypto.randomUUID();
    const res = await httpsRequest(`${proxied.proxy.origin}${MOUNT}/api/admin/health`, {
      ca: proxied.certificate.pem,
      localAddress: CLIENT_ADDRESS,
      headers: { 'x-request-id': reqId, ...(extraForwardedFor ? { 'x-forwarded-for': extraForwardedFor } : {}) },
    });
    expect(res.status, res.body.toString()).toBe(200);
    return accessLogFor(proxied.store, reqId);
  }

  /** A bucket whose policy denies every read that did not arrive over TLS, holding `secure.txt`. */
  async function bucketDenyingInsecureReads(s3: S3Client): Promise<string> {
    const bucket = `tls-only-${randomBytes(4).toString('hex')}`;
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'secure.txt', Body: 'over TLS only\n' }));
    await s3.send(
      new PutBucketPolicyCommand({
        Bucket: bucket,
        Policy: JSON.stringify({
          Version: '2012-10-17',
          Statement: [
            {
              Effect: 'Deny',
              Principal: '*',
              Action: 's3:GetObject',
              Resource: `arn:aws:s3:::${bucket}/*`,
              Condition: { Bool: { 'aws:SecureTransport': 'false' } },
            },
          ],
        }),
      }),
    );
    return bucket;
  }

  beforeAll(async () => {
    bigFile = join(proxied.work, 'big.bin');
    await writeRandomFile(bigFile, 20 * MiB); // three parts at the CLI's 8 MiB multipart threshold and chunk size
    bigSha = await sha256File(bigFile);
  });

  describe(`through ${kind}, trusted as a proxy`, () => {
    for (const cli of awsClis())
      describe.skipIf(!cli.bin)(`aws CLI ${cli.label}${cli.bin ? '' : ' (not on PATH)'}`, () => {
        const bucket = `${kind}-${cli.label}`;
        let env: Record<string, string>;
        const aws = (args: string[]) =>
          runOk(cli.bin, ['--endpoint-url', `${proxied.proxy.origin}${MOUNT}`, ...args], { env, cwd: proxied.work });

        beforeAll(() => {
          const home = join(proxied.work, `home-${cli.label}`);
          mkdirSync(home);
          // v1 presigns with SigV2 unless told to use SigV4.
          writeFileSync(join(home, 'config'), '[default]\nregion = us-east-1\ns3 =\n    signature_version = s3v4\n');
          env = awsCliEnv(home, {
            credentials: proxied.store.credentials,
            extra: { AWS_CA_BUNDLE: proxied.certificate.cert },
          });
        });

        it('copies a multipart-sized file up and down byte-exact, lists it and removes it', async () => {
          await aws(['s3', 'mb', `s3://${bucket}`]);
          expect((await aws(['s3', 'ls'])).stdout).toMatch(new RegExp(` ${bucket}$`, 'm'));
          await aws(['s3', 'cp', bigFile, `s3://${bucket}/dir one/big file+ü.bin`]);
          const head = JSON.parse(
            (await aws(['s3api', 'head-object', '--bucket', bucket, '--key', 'dir one/big file+ü.bin'])).stdout,
          ) as { ETag: string; ContentLength: number };
          expect(head.ETag).toMatch(/-3"$/); // it went up as a three-part multipart upload
          expect(head.ContentLength).toBe(20 * MiB);
          const down = join(proxied.work, `${cli.label}.down`);
          await aws(['s3', 'cp', `s3://${bucket}/dir one/big file+ü.bin`, down]);
          expect(await sha256File(down)).toBe(bigSha);
          expect((await aws(['s3', 'ls', `s3://${bucket}/dir one/`])).stdout).toContain('big file+ü.bin');
          await aws(['s3', 'rm', `s3://${bucket}/dir one/big file+ü.bin`]);
          expect((await aws(['s3', 'ls', '--recursive', `s3://${bucket}`])).stdout.trim()).toBe('');
        });

        it('presigns a GET that a plain HTTPS client can use through the proxy', async () => {
          const body = `presigned through ${kind} by ${cli.label}\n`;
          writeFileSync(join(proxied.work, `${cli.label}.txt`), body);
          await aws(['s3', 'cp', join(proxied.work, `${cli.label}.txt`), `s3://${bucket}/note ${cli.label}.txt`]);
          const url = (
            await aws(['s3', 'presign', `s3://${bucket}/note ${cli.label}.txt`, '--expires-in', '300'])
          ).stdout.trim();
          expect(url.startsWith(`${proxied.proxy.origin}${MOUNT}/${bucket}/`)).toBe(true);
          const res = await httpsRequest(url, { ca: proxied.certificate.pem });
          expect(res.status, res.body.toString()).toBe(200);
          expect(res.body.toString()).toBe(body);
        });
      });

    it('serves presigned GET and PUT URLs made by the SDK for the proxy URL to a plain HTTPS client', async () => {
      const s3 = proxiedSdk();
      const bucket = `${kind}-sdk-${randomBytes(4).toString('hex')}`;
      await s3.send(new CreateBucketCommand({ Bucket: bucket }));
      const payload = randomBytes(3 * MiB + 17);
      const putUrl = await getSignedUrl(s3, new PutObjectCommand({ Bucket: bucket, Key: 'a//b/c %2F.bin' }), {
        expiresIn: 300,
      });
      const put = await httpsRequest(putUrl, { ca: proxied.certificate.pem, method: 'PUT', body: payload });
      expect(put.status, put.body.toString()).toBe(200);
      const getUrl = await getSignedUrl(s3, new GetObjectCommand({ Bucket: bucket, Key: 'a//b/c %2F.bin' }), {
        expiresIn: 300,
      });
      const got = await httpsRequest(getUrl, { ca: proxied.certificate.pem });
      expect(got.status).toBe(200);
      expect(sha256(got.body)).toBe(sha256(payload));
      // A tampered signature is refused by Store, not by the proxy.
      const bad = await httpsRequest(
        getUrl.replace(/X-Amz-Signature=[0-9a-f]/, (m) => `${m.slice(0, -1)}${m.endsWith('0') ? '1' : '0'}`),
        { ca: proxied.certificate.pem },
      );
      expect(bad.status).toBe(403);
      expect(xmlErrorCode(bad.body.toString())).toBe('SignatureDoesNotMatch');
    });

    it('hands out admin presigned URLs on the proxy origin (https, Host kept) that work through it', async () => {
      const s3 = proxiedSdk();
      const bucket = `${kind}-share-${randomBytes(4).toString('hex')}`;
      await s3.send(new CreateBucketCommand({ Bucket: bucket }));
      await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'shared.txt', Body: 'shared through the proxy\n' }));
      const login = await httpsRequest(`${proxied.proxy.origin}${MOUNT}/api/admin/auth/login`, {
        ca: proxied.certificate.pem,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'admin', password: proxied.store.credentials.adminPassword }),
      });
      expect(login.status, login.body.toString()).toBe(200);
      const token = (JSON.parse(login.body.toString()) as { accessToken: string }).accessToken;
      const res = await httpsRequest(`${proxied.proxy.origin}${MOUNT}/api/admin/buckets/${bucket}/objects/presign`, {
        ca: proxied.certificate.pem,
        method: 'POST',
        body: JSON.stringify({ key: 'shared.txt', method: 'GET', expiresIn: 300 }),
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      });
      expect(res.status, res.body.toString()).toBe(200);
      const { url } = JSON.parse(res.body.toString()) as { url: string };
      expect(url.startsWith(`${proxied.proxy.origin}${MOUNT}/${bucket}/shared.txt?`)).toBe(true);
      const got = await httpsRequest(url, { ca: proxied.certificate.pem });
      expect(got.body.toString()).toBe('shared through the proxy\n');
    });

    it(`logs the client address ${kind} forwards, not ${kind}, and a client cannot forge it`, async () => {
      expect((await loggedThroughProxy())['clientIp']).toBe(CLIENT_ADDRESS);
      // nginx appends the address it saw to what the client sent, Caddy replaces it: either way Store takes the hop the
      // proxy vouches for.
      expect((await loggedThroughProxy('203.0.113.66'))['clientIp']).toBe(CLIENT_ADDRESS);
    });

    it('believes the forwarded scheme: a policy that denies non-TLS reads lets reads through the HTTPS proxy pass', async () => {
      const s3 = proxiedSdk();
      const bucket = await bucketDenyingInsecureReads(s3);
      const url = await getSignedUrl(s3, new GetObjectCommand({ Bucket: bucket, Key: 'secure.txt' }), {
        expiresIn: 300,
      });
      expect((await httpsRequest(url, { ca: proxied.certificate.pem })).status).toBe(200);
      // Straight to Store over plain HTTP the same policy denies (the socket decides there).
      const direct = await fetch(url.replace(proxied.proxy.origin, proxied.store.url));
      expect(direct.status).toBe(403);
    });
  });

  describe(`through ${kind}, not trusted`, () => {
    let bucket: string;

    beforeAll(async () => {
      bucket = await bucketDenyingInsecureReads(proxiedSdk());
      await proxied.restart({ STORE_TRUSTED_PROXIES: '' });
    });

    it('still serves S3 through the proxy', async () => {
      const got = await proxiedSdk().send(new GetObjectCommand({ Bucket: `${kind}-v2`, Key: 'note v2.txt' }));
      expect(await got.Body?.transformToString()).toBe(`presigned through ${kind} by v2\n`);
    });

    it("logs the proxy's address and ignores X-Forwarded-For", async () => {
      expect((await loggedThroughProxy())['clientIp']).toBe('127.0.0.1');
      expect((await loggedThroughProxy('203.0.113.66'))['clientIp']).toBe('127.0.0.1');
    });

    it('ignores X-Forwarded-Proto: the policy denying non-TLS reads denies even through the HTTPS proxy', async () => {
      const url = await getSignedUrl(proxiedSdk(), new GetObjectCommand({ Bucket: bucket, Key: 'secure.txt' }), {
        expiresIn: 300,
      });
      const res = await httpsRequest(url, { ca: proxied.certificate.pem });
      expect(res.status).toBe(403);
      expect(xmlErrorCode(res.body.toString())).toBe('AccessDenied');
    });
  });
}
