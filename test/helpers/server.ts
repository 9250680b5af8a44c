// Starts the real server (`node bin/store.js serve`, built by `npm run build`) as a child process on a free
// loopback port with a temp DATA_DIR, and stops it. Every integration and e2e test uses this.

import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomInt } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import argon2 from 'argon2';
import { drawAccepted, randomSecret } from '../../src/cli/init.js';
import { looksLikePlaceholder } from '../../src/config/secrets.js';

export const REPO_ROOT = resolve(import.meta.dirname, '../..');
const BIN = join(REPO_ROOT, 'bin/store.js');

export interface StartOptions {
  /** Extra or overriding environment variables. */
  env?: Record<string, string>;
  /** Reuse a data directory (for restart tests); otherwise a fresh temp one. */
  dataDir?: string;
  /** Keep the data directory when stopped (for restart tests). */
  keepDataDir?: boolean;
  /** The process's umask, as an octal string ('000'); default: inherited. */
  umask?: string;
}

export interface Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  adminPassword: string;
}

export interface RunningServer {
  url: string;
  port: number;
  dataDir: string;
  env: Record<string, string>;
  credentials: Credentials;
  process: ChildProcess;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  /** SIGTERM and wait for exit (SIGKILL after `timeoutMs`). Removes the data dir unless keepDataDir. */
  stop(timeoutMs?: number): Promise<number | null>;
  /** kill -9, as a crash. Keeps the data directory. */
  kill(): Promise<void>;
}

let cachedHash: { password: string; hash: string } | undefined;

/** Test credentials: random, strong, and a cached argon2id hash. */
export async function testCredentials(): Promise<Credentials & { passwordHash: string }> {
  if (!cachedHash) {
    const password = randomBytes(12).toString('base64url');
    // A cheap cost: the server hashes every admin password at ADMIN_PASSWORD_HASH's cost, so sign-ins in tests take
    // milliseconds instead of the ~0.5 s the library's defaults cost on a small machine.
    cachedHash = {
      password,
      hash: await argon2.hash(password, { type: argon2.argon2id, memoryCost: 4096, timeCost: 1, parallelism: 1 }),
    };
  }
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
  const keyId = (): string => `T${Array.from({ length: 19 }, () => alphabet[randomInt(alphabet.length)]).join('')}`;
  return {
    // Drawn like `store init` draws them: a random value can, rarely, contain a placeholder word the boot refuses.
    accessKeyId: drawAccepted(keyId, (v) => !looksLikePlaceholder(v)),
    secretAccessKey: randomSecret(30),
    adminPassword: cachedHash.password,
    passwordHash: cachedHash.hash,
  };
}

export async function baseEnv(dataDir: string): Promise<{ env: Record<string, string>; credentials: Credentials }> {
  const creds = await testCredentials();
  return {
    credentials: creds,
    env: {
      DATA_DIR: dataDir,
      PORT: '0',
      HOST: '127.0.0.1',
      JWT_SECRET: randomSecret(40),
      ADMIN_PASSWORD_HASH: creds.passwordHash,
      ROOT_ACCESS_KEY_ID: creds.accessKeyId,
      ROOT_SECRET_ACCESS_KEY: creds.secretAccessKey,
      LOG_LEVEL: 'info',
      SHUTDOWN_DRAIN_MS: '10000',
    },
  };
}

export function tempDir(prefix = 'store-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Spawns the server with exactly this environment (plus PATH/HOME) and waits for it to listen. */
export async function startServer(opts: StartOptions = {}): Promise<RunningServer> {
  const dataDir = opts.dataDir ?? join(tempDir(), 'data');
  const base = await baseEnv(dataDir);
  const env = { ...base.env, ...opts.env };
  return spawnServer(env, base.credentials, {
    keepDataDir: opts.keepDataDir ?? opts.dataDir !== undefined,
    umask: opts.umask,
  });
}

/** Restarts on the same data directory with the same environment. */
export async function restartServer(
  previous: RunningServer,
  extraEnv: Record<string, string> = {},
): Promise<RunningServer> {
  return spawnServer({ ...previous.env, ...extraEnv }, previous.credentials, { keepDataDir: true });
}

/**
 * Spawns `store serve ARGS` with exactly this environment (plus PATH/HOME) and waits for it to listen; `credentials`
 * are what the caller knows them to be (a zero-config start learns them from the output: test/helpers/zero-config.ts).
 */
export async function spawnServer(
  env: Record<string, string>,
  credentials: Credentials,
  opts: { keepDataDir: boolean; args?: string[]; command?: string[]; cwd?: string; umask?: string | undefined },
): Promise<RunningServer> {
  const cwd = opts.cwd ?? tempDir('store-cwd-'); // no stray .env is picked up
  // `command`: another way to run `store` (an installed package's bin); by default this checkout's, with this node.
  const store = [...(opts.command ?? [process.execPath, BIN]), 'serve', ...(opts.args ?? [])];
  // A umask is set by a shell that then becomes the server (exec), so the process and its pid are the server's.
  const [file, ...args] =
    opts.umask === undefined ? store : ['/bin/sh', '-c', `umask ${opts.umask} && exec "$0" "$@"`, ...store];
  const child = spawn(file as string, args, {
    cwd,
    env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d: Buffer) => {
    output += d.toString();
  });
  child.stderr.on('data', (d: Buffer) => {
    output += d.toString();
  });
  const exited = new Promise<number | null>((res) => child.once('exit', (code) => res(code)));

  const port = await new Promise<number>((resolvePort, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start within 20 s:\n${output}`)), 20_000);
    const onData = (): void => {
      const match = /"msg":"store listening"/.test(output) ? /"port":(\d+)/.exec(output) : null;
      if (match) {
        clearTimeout(timer);
        resolvePort(Number(match[1]));
      }
    };
    child.stdout.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before listening:\n${output}`));
    });
  });

  const dataDir = env['DATA_DIR'] as string;
  // A server that dies under a test shows up there only as refused or reset connections: say so, with its last output.
  let ending = false;
  child.once('exit', (code, signal) => {
    if (ending) return;
    process.stderr.write(
      `\n[test server on port ${port}] exited (code ${code}, signal ${signal}) without stop() or kill(); its last output:\n${output.slice(-4000)}\n`,
    );
  });
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    dataDir,
    env,
    credentials,
    process: child,
    output: () => output,
    async stop(timeoutMs = 15_000) {
      ending = true;
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
        await exited;
        clearTimeout(timer);
      }
      if (!opts.keepDataDir) rmSync(dataDir, { recursive: true, force: true });
      if (!opts.cwd) rmSync(cwd, { recursive: true, force: true });
      return child.exitCode;
    },
    async kill() {
      ending = true;
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await exited;
      }
      if (!opts.cwd) rmSync(cwd, { recursive: true, force: true });
    },
  };
}

/** Runs `store serve ARGS` with this environment and returns its exit code and output (for boot refusal tests). */
export async function runServeExpectingExit(
  env: Record<string, string>,
  timeoutMs = 20_000,
  args: string[] = [],
): Promise<{ code: number | null; output: string }> {
  const cwd = tempDir('store-cwd-');
  const child = spawn(process.execPath, [BIN, 'serve', ...args], {
    cwd,
    env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d: Buffer) => {
    output += d.toString();
  });
  child.stderr.on('data', (d: Buffer) => {
    output += d.toString();
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const code = await new Promise<number | null>((res) => child.once('exit', (c) => res(c)));
  clearTimeout(timer);
  rmSync(cwd, { recursive: true, force: true });
  return { code, output };
}
