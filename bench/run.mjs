// @ts-check
// `npm run bench`: starts Store and the floor server on free loopback ports with temp data dirs, runs every
// scenario on both, prints the Store/floor table and writes bench/results/<timestamp>.json and latest.json.
// Flags: --quick, --only=<substr>[,<substr>...], --store-cmd="<cmd args>" (default `node bin/store.js serve`),
// --signer=auto|real|stub, --rounds=<n>, --tmp-dir=<dir>. See bench/README.md.
import argon2 from 'argon2';
import { spawn } from 'node:child_process';
import { randomBytes, randomInt } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { mkdtemp, mkdir, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { BenchClient, createSigner, loadSignRequest, stubSignRequest } from './client.mjs';
import { formatTable, ratioOf, writeResults } from './report.mjs';
import { BUCKET, LIST_BUCKET, buildScenarios, combineRounds } from './workloads.mjs';

const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));
const REPO_DIR = path.dirname(BENCH_DIR);
const HEALTH_TIMEOUT_MS = 20_000;
const STOP_TIMEOUT_MS = 5_000;
const OUTPUT_TAIL_LINES = 60;
const DEFAULT_STORE_CMD = 'node bin/store.js serve';
const FLOOR_CMD = 'node bench/floor-server.mjs';
/**
 * Each scenario runs in rounds, Store and floor alternating (S F F S S F ...): a burst of background load on this
 * small machine then lands on both sides instead of skewing one. The time per side is split over the rounds.
 */
const SECONDS_PER_SIDE = { full: 3, quick: 1 };
/** Which side runs each round: 0 = Store, 1 = floor. @param {number} rounds @returns {(0 | 1)[]} */
const roundOrder = (rounds) => Array.from({ length: rounds }, (_, i) => (i % 2 === 0 ? /** @type {const} */ ([0, 1]) : /** @type {const} */ ([1, 0]))).flat();

/**
 * @typedef {import('./workloads.mjs').Target} Target
 * @typedef {import('./workloads.mjs').Scenario} Scenario
 * @typedef {import('./workloads.mjs').Round} Round
 * @typedef {{ label: string, cmd: string, child: import('node:child_process').ChildProcess, pid: number,
 *   baseUrl: string, tail: string[], exit: string | undefined, exited: Promise<void> }} Server
 */

/** @type {Server[]} */
const servers = [];
let tempRoot = '';
let interrupted = false;

const log = (/** @type {string} */ msg) => process.stderr.write(`${msg}\n`);

function freePort() {
  return /** @type {Promise<number>} */ (new Promise((resolve, reject) => {
    const probe = net.createServer().once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = /** @type {net.AddressInfo} */ (probe.address());
      probe.close(() => resolve(port));
    });
  }));
}

/** Splits a command line on spaces; a leading `node` means this very node binary. @param {string} cmd */
function commandArgv(cmd) {
  const argv = cmd.trim().split(/\s+/);
  if (argv[0] === 'node') argv[0] = process.execPath;
  return argv;
}

/** @param {{ label: string, cmd: string, env: Record<string,string> }} opts @returns {Promise<Server>} */
async function startServer({ label, cmd, env }) {
  const port = await freePort();
  const [file, ...args] = commandArgv(cmd);
  const child = spawn(/** @type {string} */ (file), args, {
    cwd: REPO_DIR, env: { ...process.env, ...env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  /** @type {Server} */
  const server = {
    label, cmd, child, pid: child.pid ?? -1, baseUrl: `http://127.0.0.1:${port}`, tail: [], exit: undefined,
    exited: new Promise((resolve) => child.once('exit', (code, signal) => {
      server.exit = signal ? `killed by ${signal}` : `exited with code ${code}`;
      resolve();
    })),
  };
  servers.push(server);
  const keep = (/** @type {Buffer} */ data) => {
    server.tail.push(...data.toString('utf8').split('\n').filter(Boolean));
    server.tail.splice(0, server.tail.length - OUTPUT_TAIL_LINES);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  child.once('error', (err) => { server.exit = `failed to start: ${err.message}`; });
  await waitHealthy(server);
  return server;
}

/** Polls GET /api/admin/health until it answers 200. @param {Server} server */
async function waitHealthy(server) {
  const deadline = Date.now() + HEALTH_TIMEOUT_MS;
  for (;;) {
    if (server.exit) throw new Error(`${server.label} (${server.cmd}) ${server.exit} before it was healthy`);
    try {
      const res = await fetch(`${server.baseUrl}/api/admin/health`, { signal: AbortSignal.timeout(1000) });
      await res.arrayBuffer();
      if (res.status === 200) return;
    } catch { /* not listening yet */ }
    if (Date.now() > deadline) throw new Error(`${server.label} not healthy after ${HEALTH_TIMEOUT_MS / 1000} s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Server CPU seconds so far (user + system) from /proc/<pid>/stat; NaN where /proc is missing. @param {number} pid */
function cpuSeconds(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the parenthesised command name; utime and stime are fields 14 and 15, in clock ticks (100/s on Linux).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch { return NaN; }
}

/** Peak resident set size in KiB (VmHWM). @param {number} pid */
function peakRssKiB(pid) {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : NaN;
  } catch { return NaN; }
}

/** Stops the servers this run started (by pid) and removes the temp data; safe to call twice. */
async function cleanup() {
  await Promise.all(servers.splice(0).map(async (s) => {
    if (s.exit) return;
    s.child.kill('SIGTERM');
    const timer = setTimeout(() => s.child.kill('SIGKILL'), STOP_TIMEOUT_MS);
    await s.exited;
    clearTimeout(timer);
  }));
  if (tempRoot) await rm(tempRoot, { recursive: true, force: true });
  tempRoot = '';
}

const base64url40 = () => randomBytes(30).toString('base64url');
const accessKeyId20 = () => Array.from({ length: 20 }, () => 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'[randomInt(36)]).join('');

function parseOptions() {
  const { values } = parseArgs({ options: {
    quick: { type: 'boolean', default: false },
    only: { type: 'string', default: '' },
    'store-cmd': { type: 'string', default: process.env.BENCH_STORE_CMD ?? DEFAULT_STORE_CMD },
    signer: { type: 'string', default: 'auto' },
    'tmp-dir': { type: 'string', default: os.tmpdir() },
    rounds: { type: 'string', default: '2' },
  } });
  const rounds = Number(values.rounds);
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`--rounds must be a positive integer, got ${values.rounds}`);
  if (!['auto', 'real', 'stub'].includes(String(values.signer))) throw new Error(`--signer must be auto, real or stub`);
  return {
    quick: Boolean(values.quick),
    only: String(values.only).split(',').filter(Boolean),
    storeCmd: String(values['store-cmd']),
    signer: String(values.signer),
    tmpDir: String(values['tmp-dir']),
    rounds,
  };
}

/** The real signer from dist/, or the stub where that is allowed. @param {ReturnType<typeof parseOptions>} opts */
async function chooseSignRequest({ signer, storeCmd }) {
  const real = signer === 'stub' ? undefined : await loadSignRequest();
  if (real) return real;
  if (signer === 'real' || (signer === 'auto' && storeCmd === DEFAULT_STORE_CMD)) {
    throw new Error('dist/sigv4/sign.js is missing: run `npm run build` first (Store needs valid SigV4)');
  }
  log('note: using the stub signer (not valid SigV4): fine for floor-vs-floor, not for Store');
  return stubSignRequest;
}

/**
 * Starts Store (with fresh root credentials and admin secrets) and the floor, each on its own data dir.
 * @param {{ storeCmd: string, tmpDir: string, accessKeyId: string, secretAccessKey: string }} opts
 */
async function startServers({ storeCmd, tmpDir, accessKeyId, secretAccessKey }) {
  tempRoot = await mkdtemp(path.join(tmpDir, 'store-bench-'));
  const env = async (/** @type {string} */ name) => {
    const dataDir = path.join(tempRoot, name);
    await mkdir(dataDir);
    return { DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
  };
  const store = await startServer({ label: 'Store', cmd: storeCmd, env: {
    ...(await env('store')),
    JWT_SECRET: base64url40(),
    ROOT_ACCESS_KEY_ID: accessKeyId,
    ROOT_SECRET_ACCESS_KEY: secretAccessKey,
    ADMIN_PASSWORD_HASH: await argon2.hash(base64url40(), { type: argon2.argon2id }),
  } });
  const floor = await startServer({ label: 'floor', cmd: FLOOR_CMD, env: await env('floor') });
  log(`Store pid ${store.pid} at ${store.baseUrl} (${storeCmd}); floor pid ${floor.pid} at ${floor.baseUrl}; data in ${tempRoot}`);
  return { store, floor };
}

/** @param {Server} server @param {import('./client.mjs').Signer} sign @returns {Promise<Target>} */
async function prepareTarget(server, sign) {
  const client = new BenchClient({ baseUrl: server.baseUrl, concurrency: 1, sign });
  try {
    for (const bucket of [BUCKET, LIST_BUCKET]) await client.request({ method: 'PUT', path: `/${bucket}` });
  } finally { client.close(); }
  return {
    label: server.label, baseUrl: server.baseUrl, sign, cpuSeconds: () => cpuSeconds(server.pid),
    state: { smallKeys: [], largeKeys: [], seq: 0, listSeeded: false, multipartVerified: false },
  };
}

/** Runs one scenario's rounds on both targets, alternating, and combines them. @param {Scenario} scenario @param {[Target, Target]} targets @param {number} rounds */
async function runScenario(scenario, targets, rounds) {
  /** @type {[Round[], Round[]]} */ const done = [[], []];
  for (const side of roundOrder(rounds)) {
    globalThis.gc?.();
    done[side].push(await scenario.run(targets[side]));
  }
  const store = combineRounds(scenario.unit, done[0]);
  const floor = combineRounds(scenario.unit, done[1]);
  const row = { scenario: scenario.name, unit: scenario.unit, hasLatency: scenario.hasLatency, store, floor, ratio: ratioOf(store, floor) };
  const each = (/** @type {number[]} */ v) => v.map((x) => x.toFixed(1)).join(', ');
  log(`${scenario.name.padEnd(18)} Store ${each(store.roundValues)}  floor ${each(floor.roundValues)} ${scenario.unit} -> ratio ${row.ratio.toFixed(2)}`);
  return row;
}

async function main() {
  const opts = parseOptions();
  const perSideMs = 1000 * (opts.quick ? SECONDS_PER_SIDE.quick : SECONDS_PER_SIDE.full);
  const all = buildScenarios({ durationMs: perSideMs / opts.rounds, warmupMs: opts.quick ? 100 : 300 });
  const scenarios = opts.only.length ? all.filter((s) => opts.only.some((f) => s.name.includes(f))) : all;
  if (scenarios.length === 0) throw new Error(`--only=${opts.only} matches no scenario of: ${all.map((s) => s.name).join(', ')}`);
  const signRequest = await chooseSignRequest(opts);

  const startedAt = new Date();
  const loadAtStart = os.loadavg()[0] ?? 0;
  if (loadAtStart > os.cpus().length / 2) {
    log(`warning: load average ${loadAtStart.toFixed(1)} on ${os.cpus().length} CPUs: other work will make the numbers noisy`);
  }
  const accessKeyId = accessKeyId20();
  const secretAccessKey = base64url40();
  const { store, floor } = await startServers({ ...opts, accessKeyId, secretAccessKey });
  const sign = createSigner({ signRequest, accessKeyId, secretAccessKey });
  /** @type {[Target, Target]} */
  const targets = [await prepareTarget(store, sign), await prepareTarget(floor, sign)];
  const rows = [];
  for (const scenario of scenarios) rows.push(await runScenario(scenario, targets, opts.rounds));

  const peakRss = { storeKiB: peakRssKiB(store.pid), floorKiB: peakRssKiB(floor.pid) };
  console.log(`\n${formatTable(rows)}\n`);
  console.log(`peak RSS: Store ${(peakRss.storeKiB / 1024).toFixed(0)} MiB, floor ${(peakRss.floorKiB / 1024).toFixed(0)} MiB`);
  const cpus = os.cpus();
  const file = await writeResults({ dir: path.join(BENCH_DIR, 'results'), startedAt, record: {
    startedAt: startedAt.toISOString(), finishedAt: new Date().toISOString(),
    options: opts, floorCmd: FLOOR_CMD, signer: signRequest === stubSignRequest ? 'stub' : 'real',
    loadAverage: { start: loadAtStart, end: os.loadavg()[0] },
    machine: { node: process.version, platform: `${os.platform()} ${os.release()}`, cpus: cpus.length, cpuModel: cpus[0]?.model, memMiB: Math.round(os.totalmem() / 2 ** 20) },
    peakRss, rows,
  } });
  console.log(`results: ${path.relative(REPO_DIR, file)} (and bench/results/latest.json)`);
}

/** Prints what the servers said last, for a failure that may be theirs. */
function dumpServerOutput() {
  for (const s of servers) {
    if (s.exit) log(`${s.label} ${s.exit}`);
    if (s.tail.length) log(`--- last output of ${s.label} ---\n${s.tail.join('\n')}`);
  }
}

// Last resort when the run dies without reaching cleanup(): no server and no temp data may outlive it.
process.on('exit', () => {
  for (const s of servers) if (!s.exit) s.child.kill('SIGKILL');
  if (tempRoot) rmSync(tempRoot, { recursive: true, force: true });
});
// `npm run bench | head` must still stop the servers and remove the temp data.
for (const out of [process.stdout, process.stderr]) {
  out.on('error', (/** @type {NodeJS.ErrnoException} */ err) => { if (err.code !== 'EPIPE') throw err; });
}
for (const signal of /** @type {const} */ (['SIGINT', 'SIGTERM'])) {
  process.once(signal, () => {
    interrupted = true;
    log(`\n${signal}: stopping servers and removing temp data`);
    cleanup().finally(() => process.exit(130));
  });
}

try {
  await main();
} catch (err) {
  process.exitCode = 1;
  if (!interrupted) {
    log(`bench failed: ${err instanceof Error ? err.message : String(err)}`);
    dumpServerOutput();
  }
} finally {
  await cleanup();
}
