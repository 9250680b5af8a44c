// The image as people start it (docs/operations.md, "Docker"), run with podman by .ci/container.sh: an empty volume
// and no secrets give a zero-config first start (credentials printed once, STORE_INIT_BUCKETS created), as the
// non-root user; health, readiness, an AWS SDK round trip and the console through the published port; the same version
// and commit from the CLI and the API; the HEALTHCHECK; SIGTERM drains an upload in flight and exits 0 within
// SHUTDOWN_DRAIN_MS; the second start reuses the volume with a read-only root filesystem; a weak secret refuses.
// Prints the figures the README reports: start-to-ready times, idle RSS.

import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import {
  GetBucketVersioningCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { presignUrl } from '../../src/sigv4/sign.js';
import { announced, type Announced } from '../helpers/zero-config.js';
import { containerRssMiB, freePort, podman, waitForStatus } from '../helpers/podman.js';
import { REPO_ROOT } from '../helpers/server.js';

const IMAGE = process.env['STORE_IMAGE'] ?? '';
const COMMIT = process.env['STORE_IMAGE_COMMIT'] ?? 'unknown';
const tag = randomBytes(4).toString('hex');
const volume = `store-ci-data-${tag}`;
const names = { first: `store-ci-first-${tag}`, second: `store-ci-second-${tag}`, weak: `store-ci-weak-${tag}` };
const DRAIN_MS = 8000;
const figures: string[] = [];
let port: number;
let base: string;
let creds: Announced;

const operations = readFileSync(join(REPO_ROOT, 'docs/operations.md'), 'utf8');
/** The documented `docker run` line, as words. */
const documentedRun = (/^docker run (-d --name store .*)$/m.exec(operations)?.[1] ?? '').split(/\s+/);

/**
 * The documented `docker run` line with podman, its name, port, volume and image replaced and `extra` options added;
 * resolves with the milliseconds from run to ready. `--ulimit` is left out: the CI machines' sandbox refuses to set
 * any rlimit in a container (runc: "error setting rlimit type 6: operation not permitted"; podman's own default
 * ulimits are emptied in .ci/containers.conf for the same reason).
 */
async function start(name: string, extra: string[] = []): Promise<number> {
  const args = documentedRun.flatMap((word, i) => {
    if (word === '--ulimit' || documentedRun[i - 1] === '--ulimit') return [];
    if (documentedRun[i - 1] === '--name') return [name];
    if (word === '127.0.0.1:9000:9000') return [`127.0.0.1:${port}:9000`];
    if (word === 'store-data:/data') return [`${volume}:/data`];
    return [word];
  });
  expect(args.pop()).toBe('store'); // the image
  const started = Date.now();
  await podman([
    'run',
    ...args,
    '-e',
    `SHUTDOWN_DRAIN_MS=${DRAIN_MS}`,
    '-e',
    'STORE_INIT_BUCKETS=ci-bucket:versioned',
    ...extra,
    IMAGE,
  ]);
  await waitForStatus(`${base}/api/admin/ready`, 200);
  return Date.now() - started;
}

const logs = async (name: string): Promise<string> => {
  const { stdout, stderr } = await podman(['logs', name]);
  return `${stdout}${stderr}`;
};

function s3(): S3Client {
  return new S3Client({
    endpoint: base,
    region: 'us-east-1',
    forcePathStyle: true,
    maxAttempts: 1,
    credentials: { accessKeyId: creds.accessKeyId ?? '', secretAccessKey: creds.secretAccessKey ?? '' },
  });
}

beforeAll(async () => {
  if (IMAGE === '') throw new Error('STORE_IMAGE is not set: run this suite through .ci/container.sh');
  port = await freePort();
  base = `http://127.0.0.1:${port}`;
});

afterAll(async () => {
  for (const name of Object.values(names)) await podman(['rm', '-f', '-t', '0', name], { allowFail: true });
  await podman(['volume', 'rm', '-f', volume], { allowFail: true });
  await podman(['volume', 'rm', '-f', `${volume}-weak`], { allowFail: true });
  console.log(`\nContainer figures (${IMAGE}):\n  ${figures.join('\n  ')}\n`);
});

describe('the documented lines', () => {
  it('publish the port on loopback, mount the volume, wait out the drain, and say the same in compose', () => {
    expect(documentedRun).toEqual(
      expect.arrayContaining(['-p', '127.0.0.1:9000:9000', '-v', 'store-data:/data', '--stop-timeout']),
    );
    const stopTimeout = Number(documentedRun[documentedRun.indexOf('--stop-timeout') + 1]);
    expect(stopTimeout * 1000).toBeGreaterThan(30_000); // the default SHUTDOWN_DRAIN_MS
    const compose = /<!-- docker-compose:[^\n]*\n```yaml\n([\s\S]*?)```/.exec(operations)?.[1] ?? '';
    expect(compose).toContain('ports: ["127.0.0.1:9000:9000"]');
    expect(compose).toContain('volumes: ["store-data:/data"]');
    expect(compose).toContain(`stop_grace_period: ${stopTimeout}s`);
    expect(compose).toContain('nofile: { soft: 65536, hard: 65536 }');
    expect(documentedRun).toContain('nofile=65536:65536');
  });
});

describe('the image', () => {
  it('starts zero-config on an empty volume as a non-root user, and prints the generated credentials once', async () => {
    const ms = await start(names.first);
    figures.push(`first start (empty volume, secrets generated), podman run to ready: ${ms} ms`);
    figures.push(`RSS right after ready: ${await containerRssMiB(names.first)} MiB`);
    const output = await logs(names.first);
    creds = announced(output);
    expect(creds.adminPassword).toBeDefined();
    expect(creds.accessKeyId).toMatch(/^[A-Z0-9]{20}$/);
    expect(creds.secretAccessKey).toBeDefined();
    expect((await podman(['exec', names.first, 'cat', '/proc/1/status'])).stdout).toMatch(/^Uid:\s+1000\s/m);
    expect(
      (await podman(['exec', names.first, 'stat', '-c', '%a %U', '/data', '/data/secrets.env'])).stdout
        .trim()
        .split('\n'),
    ).toEqual(['700 node', '600 node']);
    expect(await (await fetch(`${base}/api/admin/health`)).json()).toMatchObject({ status: 'ok' });
  });

  it('serves the AWS SDK through the published port, the bucket STORE_INIT_BUCKETS made, and the console', async () => {
    const client = s3();
    try {
      expect((await client.send(new GetBucketVersioningCommand({ Bucket: 'ci-bucket' }))).Status).toBe('Enabled');
      const body = randomBytes(300_000);
      await client.send(new PutObjectCommand({ Bucket: 'ci-bucket', Key: 'round/trip.bin', Body: body }));
      const got = await client.send(new GetObjectCommand({ Bucket: 'ci-bucket', Key: 'round/trip.bin' }));
      expect(Buffer.from(await got.Body!.transformToByteArray()).equals(body)).toBe(true);
      const listed = await client.send(new ListObjectsV2Command({ Bucket: 'ci-bucket' }));
      expect(listed.Contents?.map((c) => c.Key)).toEqual(['round/trip.bin']);
    } finally {
      client.destroy();
    }
    const page = await fetch(`${base}/admin/`);
    expect(page.status).toBe(200);
    const html = await page.text();
    const script = /src="\.\/(assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    expect((await fetch(`${base}/admin/${script}`)).status).toBe(200);
  });

  it('reports one version and commit from `store --version` and /api/admin/version, and passes its HEALTHCHECK', async () => {
    const res = await fetch(`${base}/api/admin/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password: creds.adminPassword }),
    });
    expect(res.status).toBe(200);
    const { accessToken } = (await res.json()) as { accessToken: string };
    const api = (await (
      await fetch(`${base}/api/admin/version`, { headers: { authorization: `Bearer ${accessToken}` } })
    ).json()) as Record<string, string>;
    expect(api['build']).toBe(COMMIT);
    const cli = (await podman(['exec', names.first, 'node', 'bin/store.js', '--version'])).stdout.trim();
    expect(cli).toBe(`store ${api['version']} (commit ${api['build']})`);
    expect((await podman(['healthcheck', 'run', names.first], { allowFail: true })).code).toBe(0);
  });

  it('settles to its idle footprint', async () => {
    // Idle for two looks of the idle heap trim (lib/idle-heap.ts, 10 s each).
    await new Promise((r) => setTimeout(r, 25_000));
    figures.push(`RSS idle after the first requests: ${await containerRssMiB(names.first)} MiB`);
  });

  it('drains an upload in flight on SIGTERM (podman stop) and exits 0 within SHUTDOWN_DRAIN_MS', async () => {
    const url = presignUrl({
      method: 'PUT',
      url: new URL(`${base}/ci-bucket/draining.bin`),
      accessKeyId: creds.accessKeyId ?? '',
      secretAccessKey: creds.secretAccessKey ?? '',
      region: 'us-east-1',
      expiresSeconds: 300,
    });
    const chunk = randomBytes(64 * 1024);
    const upload = request(url, { method: 'PUT', headers: { 'content-length': String(chunk.length * 2) } });
    const answered = new Promise<number>((resolve, reject) => {
      upload.on('response', (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      upload.on('error', reject);
    });
    upload.write(chunk);
    await new Promise((r) => setTimeout(r, 300));
    const stopping = Date.now();
    const stopped = podman(['stop', '-t', '30', names.first]);
    await waitForStatus(`${base}/api/admin/ready`, 503, 10_000); // readiness says draining while the upload goes on
    upload.end(chunk);
    expect(await answered).toBe(200);
    await stopped;
    const elapsed = Date.now() - stopping;
    const state = (await podman(['inspect', '--format', '{{.State.ExitCode}}', names.first])).stdout.trim();
    expect(state).toBe('0');
    expect(elapsed).toBeLessThan(DRAIN_MS);
    figures.push(`podman stop with an upload in flight: exit 0 after ${elapsed} ms (SHUTDOWN_DRAIN_MS ${DRAIN_MS})`);
    expect(await logs(names.first)).toMatch(/"msg":"stopped"/);
  });

  it('starts again on the same volume with a read-only root filesystem: same credentials, data kept, nothing printed', async () => {
    const ms = await start(names.second, ['--read-only', '--tmpfs', '/tmp']);
    figures.push(`second start (volume reused, read-only root), podman run to ready: ${ms} ms`);
    const output = await logs(names.second);
    expect(announced(output)).toEqual({});
    expect(output).not.toContain(creds.secretAccessKey);
    const client = s3();
    try {
      const got = await client.send(new GetObjectCommand({ Bucket: 'ci-bucket', Key: 'draining.bin' }));
      expect((await got.Body!.transformToByteArray()).length).toBe(128 * 1024);
      await client.send(new PutObjectCommand({ Bucket: 'ci-bucket', Key: 'read-only-root.txt', Body: 'written' }));
    } finally {
      client.destroy();
    }
    expect((await podman(['healthcheck', 'run', names.second], { allowFail: true })).code).toBe(0);
    await podman(['stop', '-t', '30', names.second]);
    expect((await podman(['inspect', '--format', '{{.State.ExitCode}}', names.second])).stdout.trim()).toBe('0');
  });

  it('refuses a weak given secret on an empty volume (exit 78), as the spec says', async () => {
    const ran = await podman(
      [
        'run',
        '--name',
        names.weak,
        '-v',
        `${volume}-weak:/data`,
        '-e',
        'JWT_SECRET=changeme-changeme-changeme-changeme',
        IMAGE,
      ],
      { allowFail: true },
    );
    expect(ran.code).toBe(78);
    expect(`${ran.stdout}${ran.stderr}`).toMatch(/JWT_SECRET .*placeholder/);
  });
});
