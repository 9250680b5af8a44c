// Boot: refusals (missing or weak keys, a locked or foreign data directory), `store init`, `store hash-password`,
// the SSE key file, and the boot-time cleanup of tmp/ and of orphan blobs.

import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  GetObjectCommand,
  ListBucketsCommand,
  PutObjectCommand,
  S3Client,
  CreateBucketCommand,
} from '@aws-sdk/client-s3';
import argon2 from 'argon2';
import { afterAll, describe, expect, it } from 'vitest';
import { parseDotenv } from '../../src/config/dotenv.js';
import { sdkClient } from '../helpers/clients.js';
import { REPO_ROOT, baseEnv, runServeExpectingExit, tempDir, type RunningServer } from '../helpers/server.js';
import { startStore } from '../helpers/store.js';

const BIN = join(REPO_ROOT, 'bin/store.js');
const cleanup: string[] = [];
afterAll(() => {
  for (const dir of cleanup) rmSync(dir, { recursive: true, force: true });
});

function freshDataDir(): string {
  const root = tempDir();
  cleanup.push(root);
  return join(root, 'data');
}

/** Runs the CLI to completion with optional stdin, in `cwd`. */
function runCli(
  args: string[],
  opts: { cwd?: string; stdin?: string; env?: Record<string, string> } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: opts.cwd ?? REPO_ROOT,
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
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  return new Promise((resolve) =>
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    }),
  );
}

async function putAndGet(
  server: RunningServer,
  { bucket, key }: { bucket: string; key: string },
  body?: Buffer,
): Promise<Buffer> {
  const s3 = sdkClient(server);
  try {
    if (body) await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body }));
    const got = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    return Buffer.from(await got.Body!.transformToByteArray());
  } finally {
    s3.destroy();
  }
}

/** Files under a directory, recursively, as paths relative to it. */
function listFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1));
}

describe('boot refusals', () => {
  it('refuses to start without a required key, naming it', async () => {
    const { env } = await baseEnv(freshDataDir());
    delete env['JWT_SECRET'];
    const { code, output } = await runServeExpectingExit(env);
    expect(code).not.toBe(0);
    expect(code).not.toBeNull();
    expect(output).toContain('JWT_SECRET');
    expect(output).not.toContain(env['ROOT_SECRET_ACCESS_KEY']);
    expect(output).not.toMatch(/store listening/);
  });

  it('refuses a weak root secret, naming the key and never printing any secret value', async () => {
    const { env } = await baseEnv(freshDataDir());
    const weak = `changeme-${randomBytes(20).toString('hex')}`;
    env['ROOT_SECRET_ACCESS_KEY'] = weak;
    const { code, output } = await runServeExpectingExit(env);
    expect(code).not.toBe(0);
    expect(code).not.toBeNull();
    expect(output).toContain('ROOT_SECRET_ACCESS_KEY');
    expect(output).not.toContain(weak);
    expect(output).not.toContain(env['JWT_SECRET']);
    expect(output).not.toContain(env['ADMIN_PASSWORD_HASH']);
  });

  it('exits non-zero when PORT is already taken, and releases the data directory', async () => {
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', () => r()));
    const port = (blocker.address() as { port: number }).port;
    const { env } = await baseEnv(freshDataDir());
    try {
      const { code, output } = await runServeExpectingExit({ ...env, PORT: String(port) });
      expect(code).not.toBe(0);
      expect(code).not.toBeNull();
      expect(output).toMatch(/EADDRINUSE/);
    } finally {
      blocker.close();
    }
    const store = await startStore({ dataDir: env['DATA_DIR'] as string });
    await store.stop();
  });

  it('refuses a second instance on the same data directory while the first runs, and not after it is killed', async () => {
    const store = await startStore();
    const second = await runServeExpectingExit(store.server.env);
    expect(second.code).not.toBe(0);
    expect(second.code).not.toBeNull();
    expect(second.output).toMatch(/another Store process/);
    // the first instance is unharmed
    expect((await fetch(`${store.server.url}/api/admin/health`)).status).toBe(200);
    await store.kill();
    await store.restart();
    expect((await fetch(`${store.server.url}/api/admin/health`)).status).toBe(200);
  });
});

describe('store init', () => {
  it('writes a 0600 .env whose values boot, prints the credentials once, and refuses to overwrite it', async () => {
    const root = tempDir('store-init-');
    cleanup.push(root);
    const dir = join(root, 'site');
    const init = await runCli(['init', dir]);
    expect(init.code).toBe(0);
    const envFile = join(dir, '.env');
    expect(statSync(envFile).mode & 0o777).toBe(0o600);
    const values = parseDotenv(readFileSync(envFile, 'utf8'));
    expect(values['DATA_DIR']).toBe(join(dir, 'data'));
    expect(init.stdout).toContain(values['ROOT_ACCESS_KEY_ID']);
    expect(init.stdout).toContain(values['ROOT_SECRET_ACCESS_KEY']);
    const password = /Admin console login:\s+admin \/ (\S+)/.exec(init.stdout)?.[1];
    expect(password).toBeDefined();
    expect(await argon2.verify(values['ADMIN_PASSWORD_HASH'] as string, password as string)).toBe(true);

    // `store serve` in that directory boots from the .env alone (PORT/HOST overridden: the environment wins)
    const server = spawn(process.execPath, [BIN, 'serve'], {
      cwd: dir,
      env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', PORT: '0', HOST: '127.0.0.1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      let output = '';
      const port = await new Promise<number>((resolve, reject) => {
        server.stdout.on('data', (d: Buffer) => {
          output += d.toString();
          const m = /"port":(\d+).*"msg":"store listening"/.exec(output);
          if (m) resolve(Number(m[1]));
        });
        server.once('exit', (c) => reject(new Error(`serve exited ${c}: ${output}`)));
      });
      const s3 = new S3Client({
        endpoint: `http://127.0.0.1:${port}`,
        region: 'us-east-1',
        forcePathStyle: true,
        maxAttempts: 1,
        credentials: {
          accessKeyId: values['ROOT_ACCESS_KEY_ID'] as string,
          secretAccessKey: values['ROOT_SECRET_ACCESS_KEY'] as string,
        },
      });
      await s3.send(new CreateBucketCommand({ Bucket: 'init-check' }));
      const list = await s3.send(new ListBucketsCommand({}));
      expect(list.Buckets?.map((b) => b.Name)).toEqual(['init-check']);
      s3.destroy();
      expect(existsSync(join(dir, 'data', 'meta.db'))).toBe(true);
    } finally {
      server.kill('SIGTERM');
      await new Promise((r) => server.once('exit', r));
    }

    const before = readFileSync(envFile, 'utf8');
    const again = await runCli(['init', dir]);
    expect(again.code).not.toBe(0);
    expect(again.stderr).toMatch(/already exists/);
    expect(readFileSync(envFile, 'utf8')).toBe(before);
  });
});

describe('store hash-password', () => {
  it('prints an argon2id hash of a piped password that argon2.verify accepts', async () => {
    const password = `pw-${randomBytes(9).toString('base64url')}`;
    const { code, stdout } = await runCli(['hash-password'], { stdin: `${password}\n` });
    expect(code).toBe(0);
    const hash = stdout.trim();
    expect(hash).toMatch(/^\$argon2id\$v=19\$/);
    expect(stdout).not.toContain(password);
    expect(await argon2.verify(hash, password)).toBe(true);
    expect(await argon2.verify(hash, `${password}x`)).toBe(false);
  });

  it('refuses a short password', async () => {
    const { code, stdout } = await runCli(['hash-password'], { stdin: 'short\n' });
    expect(code).not.toBe(0);
    expect(stdout).toBe('');
  });
});

describe('what stays fatal', () => {
  it('an uncaught exception is logged at fatal level with its stack, and the process exits 70 for its supervisor to restart it', async () => {
    // A preloaded module that throws outside any request when told to: the one way to reach that handler from outside.
    const preload = join(tempDir('store-preload-'), 'throw-on-sigusr2.mjs');
    writeFileSync(
      preload,
      "process.on('SIGUSR2', () => setImmediate(() => { throw new Error('injected failure'); }));\n",
    );
    const { server } = await startStore({ env: { NODE_OPTIONS: `--import=${preload}` } });
    const exited = new Promise<number | null>((resolve) => server.process.once('exit', (code) => resolve(code)));
    server.process.kill('SIGUSR2');
    expect(await exited).toBe(70);
    const fatal = server
      .output()
      .split('\n')
      .find((l) => l.includes('"level":"fatal"'));
    expect(fatal).toBeDefined();
    expect(fatal).toContain('uncaught exception: exiting');
    expect(fatal).toContain('injected failure');
    expect(fatal).toContain('"stack":');
  });
});

describe('the data directory across restarts', () => {
  it('creates sse.key 0600, reuses it after a restart, and refuses a different STORE_SSE_KEY', async () => {
    const store = await startStore();
    const bucket = await store.bucket();
    const body = randomBytes(70_000);
    expect((await putAndGet(store.server, { bucket, key: 'k' }, body)).equals(body)).toBe(true);
    const keyFile = join(store.dataDir, 'sse.key');
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    const keyText = readFileSync(keyFile, 'utf8');
    expect(await store.stop()).toBe(0);

    await store.restart();
    expect((await putAndGet(store.server, { bucket, key: 'k' })).equals(body)).toBe(true);
    expect(readFileSync(join(store.dataDir, 'sse.key'), 'utf8')).toBe(keyText);
    await store.stop();

    const other = randomBytes(32).toString('base64');
    const refused = await runServeExpectingExit({ ...store.server.env, STORE_SSE_KEY: other });
    expect(refused.code).not.toBe(0);
    expect(refused.code).not.toBeNull();
    expect(refused.output).toMatch(/SSE master key/);
    expect(refused.output).not.toContain(other);

    // the same key given through STORE_SSE_KEY is accepted
    await store.restart({ STORE_SSE_KEY: keyText.trim() });
    expect((await putAndGet(store.server, { bucket, key: 'k' })).equals(body)).toBe(true);
  });

  it('cleans tmp/ and removes orphan blobs at boot while referenced blobs survive', async () => {
    const store = await startStore();
    const bucket = await store.bucket();
    const bodies = [randomBytes(10), randomBytes(200_000), Buffer.alloc(0)];
    for (const [i, body] of bodies.entries()) await putAndGet(store.server, { bucket, key: `obj-${i}` }, body);
    await store.stop();
    const dataDir = store.dataDir;
    const referenced = listFiles(join(dataDir, 'blobs'));
    expect(referenced.length).toBeGreaterThan(0);

    // leftovers of a crash: a staged upload in tmp/, and a committed-looking blob no row references
    writeFileSync(join(dataDir, 'tmp', randomBytes(16).toString('hex')), randomBytes(1000));
    mkdirSync(join(dataDir, 'tmp', 'stray-dir'));
    const orphanId = `abcd${randomBytes(14).toString('hex')}`;
    const orphan = join(dataDir, 'blobs', 'ab', 'cd', orphanId);
    mkdirSync(join(dataDir, 'blobs', 'ab', 'cd'), { recursive: true });
    writeFileSync(orphan, randomBytes(4096));
    const old = new Date(Date.now() - 3600_000);
    utimesSync(orphan, old, old);
    // not ours to judge: a file whose name is not a blob id stays
    const foreign = join(dataDir, 'blobs', 'ab', 'cd', 'README');
    writeFileSync(foreign, 'not a blob');
    utimesSync(foreign, old, old);

    await store.restart();
    expect(readdirSync(join(dataDir, 'tmp'))).toEqual([]);
    const deadline = Date.now() + 5000;
    while (existsSync(orphan) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(existsSync(orphan)).toBe(false);
    expect(existsSync(foreign)).toBe(true);
    for (const file of referenced) expect(existsSync(join(dataDir, 'blobs', file))).toBe(true);
    for (const [i, body] of bodies.entries())
      expect((await putAndGet(store.server, { bucket, key: `obj-${i}` })).equals(body)).toBe(true);
  });
});
