// @ts-check
// The processes a benchmark run starts (Store, the floor, s3rver) and its temp data: start on a free port and wait
// until healthy, stop, and remove everything at the end, on failure and on Ctrl-C (run.mjs calls cleanup()).

import { spawn } from 'node:child_process';
import { randomBytes, randomInt } from 'node:crypto';
import { rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));
export const REPO_DIR = path.dirname(BENCH_DIR);
const HEALTH_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 5_000;
const OUTPUT_TAIL_LINES = 60;
export const DEFAULT_STORE_CMD = 'node bin/store.js serve';
export const FLOOR_CMD = 'node bench/floor-server.mjs';
/**
 * s3rver from node_modules, bound to loopback; `{port}` and `{dir}` are filled in at start. It makes ListObjectsV2
 * continuation tokens with DES, which OpenSSL 3 only offers through its legacy provider (else: 500 on every
 * truncated list-type=2 page).
 */
export const S3RVER_CMD =
  'node --openssl-legacy-provider node_modules/s3rver/bin/s3rver.js --silent --no-vhost-buckets -a 127.0.0.1 -p {port} -d {dir}';
/** s3rver's built-in account: it checks SigV4 against these. */
export const S3RVER_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

/**
 * @typedef {{ label: string, cmd: string, child: import('node:child_process').ChildProcess, pid: number,
 *   baseUrl: string, tail: string[], exit: string | undefined, exited: Promise<void> }} Server
 */

/** @type {Server[]} */
const servers = [];
let tempRoot = '';
/**
 * Other things a run started (the message servers of bench/message-servers.mjs): stopped by cleanup(), newest first,
 * and killed by killEverythingNow().
 * @type {{ stop: () => Promise<void>, killNow: () => void }[]}
 */
const extras = [];

/** Has cleanup() stop something else this run started. @param {{ stop: () => Promise<void>, killNow: () => void }} e */
export function onCleanup(e) {
  extras.push(e);
}

export const log = (/** @type {string} */ msg) => process.stderr.write(`${msg}\n`);

/** A loopback port that was free a moment ago. */
export function freePort() {
  return /** @type {Promise<number>} */ (
    new Promise((resolve, reject) => {
      const probe = net.createServer().once('error', reject);
      probe.listen(0, '127.0.0.1', () => {
        const { port } = /** @type {net.AddressInfo} */ (probe.address());
        probe.close(() => resolve(port));
      });
    })
  );
}

/** Splits a command line on spaces; a leading `node` means this very node binary. @param {string} cmd */
function commandArgv(cmd) {
  const argv = cmd.trim().split(/\s+/);
  if (argv[0] === 'node') argv[0] = process.execPath;
  return argv;
}

/**
 * Starts a server on a free port (`{port}` in cmd is replaced too) and waits until `readyPath` answers 200.
 * With `anyAnswer`, any HTTP status means ready (s3rver has no health endpoint and refuses unsigned requests).
 * @param {{ label: string, cmd: string, env: Record<string,string>, readyPath?: string, anyAnswer?: boolean, pollMs?:
 * number }} opts
 * @returns {Promise<Server>}
 */
export async function startServer({
  label,
  cmd,
  env,
  readyPath = '/api/admin/health',
  anyAnswer = false,
  pollMs = 100,
}) {
  const port = await freePort();
  const [file, ...args] = commandArgv(cmd.replaceAll('{port}', String(port)));
  const child = spawn(/** @type {string} */ (file), args, {
    cwd: REPO_DIR,
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  /** @type {Server} */
  const server = {
    label,
    cmd,
    child,
    pid: child.pid ?? -1,
    baseUrl: `http://127.0.0.1:${port}`,
    tail: [],
    exit: undefined,
    exited: new Promise((resolve) =>
      child.once('exit', (code, signal) => {
        server.exit = signal ? `killed by ${signal}` : `exited with code ${code}`;
        resolve();
      }),
    ),
  };
  servers.push(server);
  const keep = (/** @type {Buffer} */ data) => {
    server.tail.push(...data.toString('utf8').split('\n').filter(Boolean));
    server.tail.splice(0, server.tail.length - OUTPUT_TAIL_LINES);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  child.once('error', (err) => {
    server.exit = `failed to start: ${err.message}`;
  });
  await waitHealthy(server, { readyPath, anyAnswer, pollMs });
  return server;
}

/**
 * Polls GET readyPath until it answers 200 (or anything).
 * @param {Server} server @param {{ readyPath: string, anyAnswer: boolean, pollMs: number }} opts
 */
async function waitHealthy(server, { readyPath, anyAnswer, pollMs }) {
  const deadline = Date.now() + HEALTH_TIMEOUT_MS;
  for (;;) {
    if (server.exit) throw new Error(`${server.label} (${server.cmd}) ${server.exit} before it was healthy`);
    try {
      const res = await fetch(`${server.baseUrl}${readyPath}`, { signal: AbortSignal.timeout(1000) });
      await res.arrayBuffer();
      if (res.status === 200 || anyAnswer) return;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) throw new Error(`${server.label} not healthy after ${HEALTH_TIMEOUT_MS / 1000} s`);
    await new Promise((r) => setTimeout(r, pollMs));
  }
}

/** Stops one server this run started and waits for it to exit. @param {Server} s */
export async function stopServer(s) {
  servers.splice(servers.indexOf(s), 1);
  if (s.exit) return;
  s.child.kill('SIGTERM');
  const timer = setTimeout(() => s.child.kill('SIGKILL'), STOP_TIMEOUT_MS);
  await s.exited;
  clearTimeout(timer);
}

/** A fresh temp directory for this run's data under `tmpDir`, removed by cleanup(). @param {string} tmpDir */
export async function makeTempRoot(tmpDir) {
  tempRoot = await mkdtemp(path.join(tmpDir, 'store-bench-'));
  return tempRoot;
}

/** Stops the servers this run started (by pid) and removes the temp data; safe to call twice. */
export async function cleanup() {
  for (const e of extras.splice(0).reverse()) await e.stop().catch((err) => log(`cleanup: ${err}`));
  await Promise.all(
    servers.splice(0).map(async (s) => {
      if (s.exit) return;
      s.child.kill('SIGTERM');
      const timer = setTimeout(() => s.child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      await s.exited;
      clearTimeout(timer);
    }),
  );
  if (tempRoot) await rm(tempRoot, { recursive: true, force: true });
  tempRoot = '';
}

/**
 * Last resort when the run dies without reaching cleanup(): no server and no temp data may outlive it (synchronous).
 */
export function killEverythingNow() {
  for (const e of extras.splice(0)) e.killNow();
  for (const s of servers) if (!s.exit) s.child.kill('SIGKILL');
  if (tempRoot) rmSync(tempRoot, { recursive: true, force: true });
}

/** Prints what the servers said last, for a failure that may be theirs. */
export function dumpServerOutput() {
  for (const s of servers) {
    if (s.exit) log(`${s.label} ${s.exit}`);
    if (s.tail.length) log(`--- last output of ${s.label} ---\n${s.tail.join('\n')}`);
  }
}

export const base64url40 = () => randomBytes(30).toString('base64url');
export const accessKeyId20 = () =>
  Array.from({ length: 20 }, () => 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'[randomInt(36)]).join('');
