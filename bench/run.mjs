// @ts-check
// `npm run bench`: starts Store, the floor server and (full runs) s3rver on free loopback ports with temp data dirs, runs
// every scenario on each, prints the Store/floor and Store/s3rver table and writes bench/results/<timestamp>.json and latest.json.
// Flags: --soak=SECONDS, --quick, --only=<substr>[,<substr>...], --store-cmd="<cmd args>" (default `node bin/store.js serve`),
// --signer=auto|real|stub, --rounds=<n>, --tmp-dir=<dir>, --with-s3rver / --without-s3rver, --objects=<n>
// (the scale run of bench/scale.mjs instead), --webhooks (Store delivers every event to a receiver child process),
// --webhooks-ab (Store with webhooks against Store without, instead of the floor), --webhook-cost=on|off|external
// (CPU per 4 KiB PUT by thread, with --puts=<n> and --rate=<n>), --read-cost=HEAD|GET (CPU per small read by thread,
// with --ops=<n> and --read-size=<bytes>), --upload-cost=put|multipart (CPU per MB of large uploads by thread, and the
// peak RSS, with --uploads=<n>), --download-cost=<concurrency> (the same for 64 MiB GETs, with --downloads=<n>).
// See bench/README.md.
import argon2 from 'argon2';
import { spawn } from 'node:child_process';
import { randomBytes, randomInt } from 'node:crypto';
import { readFileSync, readdirSync, rmSync } from 'node:fs';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { BenchClient, createSigner, loadSignRequest, stubSignRequest } from './client.mjs';
import { formatTable, ratioOf, writeResults } from './report.mjs';
import { BUCKET, LIST_BUCKET, UPLOAD_BYTES, buildScenarios, combineRounds, largePut, multipartUpload } from './workloads.mjs';
import { SCALE_BUCKET, buildScaleScenarios, formatScaleTable } from './scale.mjs';
import { seedMetadata } from './seed-metadata.mjs';
import { byMinute, runSoak, samplesCsv } from './soak.mjs';
import { startExternalSender, startWebhookReceiver } from './webhook-receiver.mjs';

const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));
const REPO_DIR = path.dirname(BENCH_DIR);
const HEALTH_TIMEOUT_MS = 20_000;
const STOP_TIMEOUT_MS = 5_000;
const OUTPUT_TAIL_LINES = 60;
const DEFAULT_STORE_CMD = 'node bin/store.js serve';
const FLOOR_CMD = 'node bench/floor-server.mjs';
/**
 * s3rver from node_modules, bound to loopback; `{port}` and `{dir}` are filled in at start. It makes ListObjectsV2
 * continuation tokens with DES, which OpenSSL 3 only offers through its legacy provider (else: 500 on every
 * truncated list-type=2 page).
 */
const S3RVER_CMD = 'node --openssl-legacy-provider node_modules/s3rver/bin/s3rver.js --silent --no-vhost-buckets -a 127.0.0.1 -p {port} -d {dir}';
/** s3rver's built-in account: it checks SigV4 against these. */
const S3RVER_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
/**
 * Each scenario runs in rounds, Store and floor alternating (S F F S S F ...): a burst of background load on this
 * small machine then lands on both sides instead of skewing one. The time per side is split over the rounds.
 */
const SECONDS_PER_SIDE = { full: 3, quick: 1 };
/**
 * Which side runs each round (0 = Store, 1 = floor, 2 = s3rver): forward, then backward (S F X X F S ...).
 * @param {number} rounds @param {number} sides @returns {number[]}
 */
const roundOrder = (rounds, sides) => {
  const forward = Array.from({ length: sides }, (_, i) => i);
  return Array.from({ length: rounds }, (_, i) => (i % 2 === 0 ? forward : [...forward].reverse())).flat();
};

/**
 * @typedef {import('./workloads.mjs').Target} Target
 * @typedef {import('./workloads.mjs').Scenario} Scenario
 * @typedef {import('./workloads.mjs').Round} Round
 * @typedef {import('./workloads.mjs').ScenarioResult} ScenarioResult
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

/**
 * Starts a server on a free port (`{port}` in cmd is replaced too) and waits until `readyPath` answers 200.
 * With `anyAnswer`, any HTTP status means ready (s3rver has no health endpoint and refuses unsigned requests).
 * @param {{ label: string, cmd: string, env: Record<string,string>, readyPath?: string, anyAnswer?: boolean, pollMs?: number }} opts
 * @returns {Promise<Server>}
 */
async function startServer({ label, cmd, env, readyPath = '/api/admin/health', anyAnswer = false, pollMs = 100 }) {
  const port = await freePort();
  const [file, ...args] = commandArgv(cmd.replaceAll('{port}', String(port)));
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
  await waitHealthy(server, readyPath, anyAnswer, pollMs);
  return server;
}

/** Polls GET readyPath until it answers 200 (or anything). @param {Server} server @param {string} readyPath @param {boolean} anyAnswer @param {number} pollMs */
async function waitHealthy(server, readyPath, anyAnswer, pollMs) {
  const deadline = Date.now() + HEALTH_TIMEOUT_MS;
  for (;;) {
    if (server.exit) throw new Error(`${server.label} (${server.cmd}) ${server.exit} before it was healthy`);
    try {
      const res = await fetch(`${server.baseUrl}${readyPath}`, { signal: AbortSignal.timeout(1000) });
      await res.arrayBuffer();
      if (res.status === 200 || anyAnswer) return;
    } catch { /* not listening yet */ }
    if (Date.now() > deadline) throw new Error(`${server.label} not healthy after ${HEALTH_TIMEOUT_MS / 1000} s`);
    await new Promise((r) => setTimeout(r, pollMs));
  }
}

/** CPU seconds (user + system) from a /proc stat file; NaN where it cannot be read. @param {string} file */
function statCpuSeconds(file) {
  try {
    const stat = readFileSync(file, 'utf8');
    // Fields after the parenthesised command name; utime and stime are fields 14 and 15, in clock ticks (100/s on Linux).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch { return NaN; }
}

/** Server CPU seconds so far (user + system) from /proc/<pid>/stat; NaN where /proc is missing. @param {number} pid */
function cpuSeconds(pid) {
  return statCpuSeconds(`/proc/${pid}/stat`);
}

/**
 * CPU seconds so far of each thread of a process, by `<name>#<tid>` (`main` for the event loop); empty without /proc.
 * @param {number} pid @returns {Map<string, number>}
 */
function threadCpuSeconds(pid) {
  const threads = new Map();
  let tids = [];
  try { tids = readdirSync(`/proc/${pid}/task`); } catch { return threads; }
  for (const tid of tids) {
    let name = 'main';
    if (tid !== String(pid)) {
      try { name = `${readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim()}#${tid}`; } catch { continue; }
    }
    const seconds = statCpuSeconds(`/proc/${pid}/task/${tid}/stat`);
    if (!Number.isNaN(seconds)) threads.set(name, seconds);
  }
  return threads;
}

/**
 * Runs `op` `n` times over `concurrency` workers, each starting the next op (numbered from 0) when its last one ends.
 * @param {number} concurrency @param {number} n @param {(i: number) => Promise<unknown>} op
 */
async function runOps(concurrency, n, op) {
  let started = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (started < n) await op(started++);
  }));
}

/**
 * Runs `work` and measures it: wall seconds, the CPU seconds each thread of `pid` spent meanwhile (busiest first,
 * idle threads left out) and their total, and this process's CPU seconds (the client). Linux only (/proc).
 * @param {number} pid @param {() => Promise<unknown>} work
 */
async function threadCpuDuring(pid, work) {
  const before = threadCpuSeconds(pid);
  const clientBefore = process.cpuUsage();
  const startedAt = Date.now();
  await work();
  const seconds = (Date.now() - startedAt) / 1000;
  const client = process.cpuUsage(clientBefore);
  const threads = [...threadCpuSeconds(pid)].map(([name, cpu]) => /** @type {[string, number]} */ ([name, cpu - (before.get(name) ?? 0)]))
    .filter(([, cpu]) => cpu > 0).sort((a, b) => b[1] - a[1]);
  return { seconds, threads, total: threads.reduce((sum, [, cpu]) => sum + cpu, 0), clientSeconds: (client.user + client.system) / 1e6 };
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
    'with-s3rver': { type: 'boolean' },
    'without-s3rver': { type: 'boolean', default: false },
    objects: { type: 'string', default: '' },
    soak: { type: 'string', default: '' },
    webhooks: { type: 'boolean', default: false },
    'webhooks-ab': { type: 'boolean', default: false },
    'webhook-cost': { type: 'string', default: '' },
    puts: { type: 'string', default: '8000' },
    rate: { type: 'string', default: '1300' },
    'read-cost': { type: 'string', default: '' },
    ops: { type: 'string', default: '30000' },
    'read-size': { type: 'string', default: '4096' },
    'upload-cost': { type: 'string', default: '' },
    uploads: { type: 'string', default: '4' },
    'download-cost': { type: 'string', default: '' },
    downloads: { type: 'string', default: '24' },
  } });
  const soak = values.soak ? Number(values.soak) : 0;
  if (!Number.isInteger(soak) || soak < 0) throw new Error(`--soak must be a whole number of seconds, got ${values.soak}`);
  const objects = values.objects ? Number(values.objects) : 0;
  if (!Number.isInteger(objects) || objects < 0) throw new Error(`--objects must be a positive integer, got ${values.objects}`);
  const rounds = Number(values.rounds);
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`--rounds must be a positive integer, got ${values.rounds}`);
  if (!['auto', 'real', 'stub'].includes(String(values.signer))) throw new Error(`--signer must be auto, real or stub`);
  const webhookCost = String(values['webhook-cost']);
  if (!['', 'on', 'off', 'external'].includes(webhookCost)) throw new Error(`--webhook-cost must be on, off or external, got ${webhookCost}`);
  const puts = Number(values.puts);
  if (!Number.isInteger(puts) || puts < 1) throw new Error(`--puts must be a positive integer, got ${values.puts}`);
  const rate = Number(values.rate);
  if (!Number.isInteger(rate) || rate < 1) throw new Error(`--rate must be a positive integer, got ${values.rate}`);
  const readCost = String(values['read-cost']);
  if (!['', 'HEAD', 'GET'].includes(readCost)) throw new Error(`--read-cost must be HEAD or GET, got ${readCost}`);
  const ops = Number(values.ops);
  if (!Number.isInteger(ops) || ops < 1) throw new Error(`--ops must be a positive integer, got ${values.ops}`);
  const readSize = Number(values['read-size']);
  if (!Number.isInteger(readSize) || readSize < 1 || readSize > 16 * 1024 * 1024) {
    throw new Error(`--read-size must be 1 to 16777216 bytes, got ${values['read-size']}`);
  }
  const uploadCost = String(values['upload-cost']);
  if (!['', 'put', 'multipart'].includes(uploadCost)) throw new Error(`--upload-cost must be put or multipart, got ${uploadCost}`);
  const uploads = Number(values.uploads);
  if (!Number.isInteger(uploads) || uploads < 1) throw new Error(`--uploads must be a positive integer, got ${values.uploads}`);
  const downloadCost = values['download-cost'] ? Number(values['download-cost']) : 0;
  if (!Number.isInteger(downloadCost) || downloadCost < 0 || downloadCost > 16) {
    throw new Error(`--download-cost must be a concurrency from 1 to 16, got ${values['download-cost']}`);
  }
  const downloads = Number(values.downloads);
  if (!Number.isInteger(downloads) || downloads < 1) throw new Error(`--downloads must be a positive integer, got ${values.downloads}`);
  return {
    quick: Boolean(values.quick),
    // s3rver takes part in a full run, not in a --quick one, unless a flag says otherwise.
    withS3rver: values['without-s3rver'] ? false : values['with-s3rver'] ?? !values.quick,
    objects,
    soak,
    only: String(values.only).split(',').filter(Boolean),
    storeCmd: String(values['store-cmd']),
    signer: String(values.signer),
    tmpDir: String(values['tmp-dir']),
    rounds,
    webhooks: Boolean(values.webhooks) || Boolean(values['webhooks-ab']),
    webhooksAb: Boolean(values['webhooks-ab']),
    webhookCost,
    puts,
    rate,
    readCost,
    ops,
    readSize,
    uploadCost,
    uploads,
    downloadCost,
    downloads,
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

/** Store's environment besides PORT and DATA_DIR: fresh admin secrets and the given root credentials. @param {string} accessKeyId @param {string} secretAccessKey */
async function storeSecrets(accessKeyId, secretAccessKey) {
  return {
    JWT_SECRET: base64url40(),
    ROOT_ACCESS_KEY_ID: accessKeyId,
    ROOT_SECRET_ACCESS_KEY: secretAccessKey,
    ADMIN_PASSWORD_HASH: await argon2.hash(base64url40(), { type: argon2.argon2id }),
  };
}

/**
 * Starts Store (with fresh root credentials and admin secrets), the floor and optionally s3rver, each on its own data dir.
 * @param {{ storeCmd: string, tmpDir: string, accessKeyId: string, secretAccessKey: string, withS3rver: boolean, storeEnv?: Record<string, string> }} opts
 */
async function startServers({ storeCmd, tmpDir, accessKeyId, secretAccessKey, withS3rver, storeEnv = {} }) {
  tempRoot = await mkdtemp(path.join(tmpDir, 'store-bench-'));
  const env = async (/** @type {string} */ name) => {
    const dataDir = path.join(tempRoot, name);
    await mkdir(dataDir);
    return { DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
  };
  const store = await startServer({ label: 'Store', cmd: storeCmd, env: {
    ...(await env('store')), ...(await storeSecrets(accessKeyId, secretAccessKey)), ...storeEnv,
  } });
  const floor = await startServer({ label: 'floor', cmd: FLOOR_CMD, env: await env('floor') });
  log(`Store pid ${store.pid} at ${store.baseUrl} (${storeCmd}); floor pid ${floor.pid} at ${floor.baseUrl}; data in ${tempRoot}`);
  if (!withS3rver) return { store, floor, s3rver: undefined };
  const { DATA_DIR } = await env('s3rver');
  const s3rver = await startServer({ label: 's3rver', cmd: S3RVER_CMD.replace('{dir}', DATA_DIR), env: {}, readyPath: '/', anyAnswer: true });
  log(`s3rver pid ${s3rver.pid} at ${s3rver.baseUrl}`);
  return { store, floor, s3rver };
}

/**
 * `--webhooks-ab`: two Stores from the same build, one with `storeEnv` (webhooks on) and one without, in the places
 * of Store and the floor, so each scenario's rounds alternate between them and the ratio is on/off.
 * @param {{ storeCmd: string, tmpDir: string, accessKeyId: string, secretAccessKey: string, storeEnv: Record<string, string> }} opts
 */
async function startStorePair({ storeCmd, tmpDir, accessKeyId, secretAccessKey, storeEnv }) {
  tempRoot = await mkdtemp(path.join(tmpDir, 'store-bench-'));
  const env = async (/** @type {string} */ name) => {
    const dataDir = path.join(tempRoot, name);
    await mkdir(dataDir);
    return { DATA_DIR: dataDir, LOG_LEVEL: 'warn', ...(await storeSecrets(accessKeyId, secretAccessKey)) };
  };
  const store = await startServer({ label: 'Store+webhooks', cmd: storeCmd, env: { ...(await env('store')), ...storeEnv } });
  const floor = await startServer({ label: 'Store-plain', cmd: storeCmd, env: await env('store-plain') });
  log(`Store with webhooks pid ${store.pid} at ${store.baseUrl}; Store without pid ${floor.pid} at ${floor.baseUrl}; data in ${tempRoot}`);
  return { store, floor, s3rver: undefined };
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

/**
 * Runs one scenario's rounds on every target, alternating, and combines them. A failure on s3rver (a feature it
 * lacks or answers differently) marks its figures n/a instead of failing the run; on Store or the floor it fails.
 * @param {Scenario} scenario @param {Target[]} targets @param {number} rounds
 */
async function runScenario(scenario, targets, rounds) {
  /** @type {Round[][]} */ const done = targets.map(() => []);
  /** @type {string | undefined} */ let s3rverError;
  for (const side of roundOrder(rounds, targets.length)) {
    if (side === 2 && s3rverError) continue;
    globalThis.gc?.();
    const target = /** @type {Target} */ (targets[side]);
    try {
      done[side]?.push(await scenario.run(target));
    } catch (err) {
      if (side !== 2) throw err;
      s3rverError = err instanceof Error ? err.message : String(err);
      log(`${scenario.name}: s3rver n/a (${s3rverError.slice(0, 200)})`);
    }
  }
  const results = done.map((r) => combineRounds(scenario.unit, r));
  const store = /** @type {ScenarioResult} */ (results[0]);
  const floor = /** @type {ScenarioResult} */ (results[1]);
  const s3 = targets.length > 2 && !s3rverError ? results[2] : undefined;
  /** @type {import('./report.mjs').Row} */
  const row = {
    scenario: scenario.name, unit: scenario.unit, hasLatency: scenario.hasLatency, store, floor, ratio: ratioOf(store, floor),
    ...(targets.length > 2 ? { s3rver: s3, ratioS3rver: s3 ? ratioOf(store, s3) : NaN, s3rverError } : {}),
  };
  const each = (/** @type {number[]} */ v) => v.map((x) => x.toFixed(1)).join(', ');
  const s3text = targets.length > 2 ? `  s3rver ${s3 ? each(s3.roundValues) : 'n/a'}` : '';
  const [labelA, labelB] = [targets[0]?.label, targets[1]?.label];
  log(`${scenario.name.padEnd(18)} ${labelA} ${each(store.roundValues)}  ${labelB} ${each(floor.roundValues)}${s3text} ${scenario.unit} -> ratio ${row.ratio.toFixed(2)}`);
  return row;
}

async function main() {
  const opts = parseOptions();
  if (opts.objects > 0) return mainScale(opts);
  if (opts.soak > 0) return mainSoak(opts);
  if (opts.webhookCost) return mainWebhookCost(opts);
  if (opts.readCost) return mainReadCost(opts);
  if (opts.uploadCost) return mainUploadCost(opts);
  if (opts.downloadCost) return mainDownloadCost(opts);
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
  // --webhooks: every event Store commits is POSTed (signed) to a receiver (a child process) that answers 200.
  const receiver = opts.webhooks ? await startWebhookReceiver() : undefined;
  const storeEnv = receiver ? { WEBHOOK_URL: receiver.url, WEBHOOK_SECRET: base64url40() } : {};
  if (receiver) log(`webhooks on: Store delivers to ${receiver.url}`);
  const { store, floor, s3rver } = opts.webhooksAb
    ? await startStorePair({ ...opts, accessKeyId, secretAccessKey, storeEnv })
    : await startServers({ ...opts, accessKeyId, secretAccessKey, storeEnv });
  const sign = createSigner({ signRequest, accessKeyId, secretAccessKey });
  /** @type {Target[]} */
  const targets = [await prepareTarget(store, sign), await prepareTarget(floor, sign)];
  if (s3rver) targets.push(await prepareTarget(s3rver, createSigner({ signRequest, ...S3RVER_CREDENTIALS })));
  const rows = [];
  for (const scenario of scenarios) rows.push(await runScenario(scenario, targets, opts.rounds));

  const peakRss = { storeKiB: peakRssKiB(store.pid), floorKiB: peakRssKiB(floor.pid), ...(s3rver ? { s3rverKiB: peakRssKiB(s3rver.pid) } : {}) };
  const webhooks = receiver ? await webhookSummary(receiver, path.join(tempRoot, 'store')) : undefined;
  console.log(`\n${formatTable(rows, opts.webhooksAb ? { a: 'on', b: 'off' } : undefined)}\n`);
  if (opts.webhooksAb) console.log('on = Store with webhooks, off = Store without (same build, rounds interleaved)');
  if (webhooks) {
    const { outbox } = webhooks;
    console.log(`webhooks: outbox delivered ${outbox.delivered}, pending ${outbox.pending}, failed ${outbox.failed} ` +
      `(${webhooks.drainedAfterMs} ms after the last scenario); receiver got ${webhooks.received} distinct deliveries in ${webhooks.requests} requests`);
  }
  const s3rverRss = s3rver ? `, s3rver ${((peakRss.s3rverKiB ?? NaN) / 1024).toFixed(0)} MiB` : '';
  console.log(`peak RSS: Store ${(peakRss.storeKiB / 1024).toFixed(0)} MiB, floor ${(peakRss.floorKiB / 1024).toFixed(0)} MiB${s3rverRss}`);
  const cpus = os.cpus();
  const file = await writeResults({ dir: path.join(BENCH_DIR, 'results'), startedAt, record: {
    startedAt: startedAt.toISOString(), finishedAt: new Date().toISOString(),
    options: opts, floorCmd: FLOOR_CMD, ...(s3rver ? { s3rverCmd: S3RVER_CMD } : {}), signer: signRequest === stubSignRequest ? 'stub' : 'real',
    loadAverage: { start: loadAtStart, end: os.loadavg()[0] },
    machine: { node: process.version, platform: `${os.platform()} ${os.release()}`, cpus: cpus.length, cpuModel: cpus[0]?.model, memMiB: Math.round(os.totalmem() / 2 ** 20) },
    peakRss, rows, ...(webhooks ? { webhooks } : {}),
  } });
  console.log(`results: ${path.relative(REPO_DIR, file)} (and bench/results/latest.json)`);
}

/**
 * After the scenarios: waits (up to 30 s) until Store's webhook outbox has nothing pending, read from its database
 * (read-only; WAL readers do not block the writer), and reports it with what the receiver got.
 * @param {Awaited<ReturnType<typeof startWebhookReceiver>>} receiver @param {string} dataDir
 */
async function webhookSummary(receiver, dataDir) {
  const { default: Database } = await import('better-sqlite3');
  const db = new Database(path.join(dataDir, 'meta.db'), { readonly: true });
  const counts = () => Object.fromEntries(
    /** @type {{ status: string, n: number }[]} */ (db.prepare('SELECT status, COUNT(*) AS n FROM webhook_outbox GROUP BY status').all()).map((r) => [r.status, r.n]),
  );
  const started = Date.now();
  let outbox = counts();
  while ((outbox.pending ?? 0) > 0 && Date.now() - started < 30_000) {
    await new Promise((r) => setTimeout(r, 200));
    outbox = counts();
  }
  db.close();
  const got = await receiver.stats();
  await receiver.close();
  return {
    outbox: { pending: outbox.pending ?? 0, delivered: outbox.delivered ?? 0, failed: outbox.failed ?? 0 },
    received: got.deliveries, requests: got.requests, drainedAfterMs: Date.now() - started,
  };
}

const SCALE_SMALL = 10_000;
const COLD_STARTS = 3;

/** Stops one server this run started and waits for it to exit. @param {Server} s */
async function stopServer(s) {
  servers.splice(servers.indexOf(s), 1);
  if (s.exit) return;
  s.child.kill('SIGTERM');
  const timer = setTimeout(() => s.child.kill('SIGKILL'), STOP_TIMEOUT_MS);
  await s.exited;
  clearTimeout(timer);
}

/**
 * The scale run (`--objects=N`): seeds a 10,000-object and an N-object bucket (bench/seed-metadata.mjs), runs
 * bench/scale.mjs's scenarios on both Stores alternately, then times COLD_STARTS restarts on the N-object data.
 * @param {ReturnType<typeof parseOptions>} opts
 */
async function mainScale(opts) {
  const perSideMs = 1000 * (opts.quick ? SECONDS_PER_SIDE.quick : SECONDS_PER_SIDE.full);
  const all = buildScaleScenarios({ durationMs: perSideMs / opts.rounds, warmupMs: opts.quick ? 100 : 300 });
  const scenarios = opts.only.length ? all.filter((s) => opts.only.some((f) => s.name.includes(f))) : all;
  const signRequest = await chooseSignRequest({ ...opts, signer: opts.signer === 'auto' ? 'real' : opts.signer });
  const startedAt = new Date();
  const loadAtStart = os.loadavg()[0] ?? 0;
  const accessKeyId = accessKeyId20();
  const secretAccessKey = base64url40();
  const sign = createSigner({ signRequest, accessKeyId, secretAccessKey });
  tempRoot = await mkdtemp(path.join(opts.tmpDir, 'store-bench-'));
  const labels = [SCALE_SMALL, opts.objects].map((n) => (n >= 1e6 && n % 1e6 === 0 ? `${n / 1e6}M` : n % 1000 === 0 ? `${n / 1000}k` : String(n)));
  /** @type {Target[]} */ const targets = [];
  /** @type {Server[]} */ const stores = [];
  /** @type {Record<string, number>} */ const seedSeconds = {};
  const env = async (/** @type {string} */ dir) => ({ DATA_DIR: dir, LOG_LEVEL: 'warn', ...(await storeSecrets(accessKeyId, secretAccessKey)) });
  for (const [i, count] of [SCALE_SMALL, opts.objects].entries()) {
    const label = `Store-${labels[i]}`;
    const dataDir = path.join(tempRoot, label);
    seedSeconds[label] = await seedMetadata({ dataDir, bucket: SCALE_BUCKET, count, log: (m) => log(`${label}: ${m}`) });
    const server = await startServer({ label, cmd: opts.storeCmd, env: await env(dataDir) });
    stores.push(server);
    targets.push({ label, baseUrl: server.baseUrl, sign, cpuSeconds: () => cpuSeconds(server.pid),
      state: { smallKeys: [], largeKeys: [], seq: 0, listSeeded: true, multipartVerified: true, objectCount: count } });
  }
  const rows = [];
  for (const scenario of scenarios) {
    /** @type {Round[][]} */ const done = [[], []];
    for (const side of roundOrder(opts.rounds, 2)) {
      globalThis.gc?.();
      done[side]?.push(await scenario.run(/** @type {Target} */ (targets[side])));
    }
    const [small, large] = done.map((r) => combineRounds(scenario.unit, r));
    const row = { scenario: scenario.name, unit: scenario.unit, small: /** @type {ScenarioResult} */ (small), large: /** @type {ScenarioResult} */ (large), ratio: NaN };
    row.ratio = row.large.value / row.small.value;
    log(`${scenario.name.padEnd(26)} ${labels[0]} ${row.small.value.toFixed(1)}  ${labels[1]} ${row.large.value.toFixed(1)} ${scenario.unit} -> ${row.ratio.toFixed(2)}`);
    rows.push(row);
  }
  const large = /** @type {Server} */ (stores[1]);
  const peakRss = { smallKiB: peakRssKiB(/** @type {Server} */ (stores[0]).pid), largeKiB: peakRssKiB(large.pid) };
  await stopServer(large);
  /** @type {number[]} */ const coldStartMs = [];
  for (let i = 0; i < COLD_STARTS; i++) {
    const t0 = performance.now();
    const s = await startServer({ label: `${large.label} restart ${i + 1}`, cmd: opts.storeCmd, env: await env(path.join(tempRoot, large.label)), readyPath: '/api/admin/ready', pollMs: 10 });
    coldStartMs.push(performance.now() - t0);
    await stopServer(s);
  }
  console.log(`\n${formatScaleTable(rows, labels[0] ?? '', labels[1] ?? '')}\n`);
  console.log(`seeding: ${Object.entries(seedSeconds).map(([k, v]) => `${k} ${v.toFixed(1)} s`).join(', ')}`);
  console.log(`cold start with ${labels[1]} objects (spawn to /api/admin/ready 200): ${coldStartMs.map((v) => `${(v / 1000).toFixed(2)} s`).join(', ')}`);
  console.log(`peak RSS: Store-${labels[0]} ${(peakRss.smallKiB / 1024).toFixed(0)} MiB, Store-${labels[1]} ${(peakRss.largeKiB / 1024).toFixed(0)} MiB`);
  const file = await writeResults({ dir: path.join(BENCH_DIR, 'results'), startedAt, record: {
    kind: 'scale', startedAt: startedAt.toISOString(), finishedAt: new Date().toISOString(), options: opts,
    loadAverage: { start: loadAtStart, end: os.loadavg()[0] }, machine: { node: process.version, cpus: os.cpus().length },
    seedSeconds, coldStartMs, peakRss, rows,
  } });
  console.log(`results: ${path.relative(REPO_DIR, file)} (and bench/results/latest.json)`);
}

/**
 * One Store (the soak, webhook-cost and read-cost modes) on a fresh data dir, with fresh root credentials and admin secrets plus
 * `storeEnv`, its bench buckets created. @param {ReturnType<typeof parseOptions>} opts @param {Record<string, string>} [storeEnv]
 */
async function startSoloStore(opts, storeEnv = {}) {
  const signRequest = await chooseSignRequest({ ...opts, signer: opts.signer === 'auto' ? 'real' : opts.signer });
  const accessKeyId = accessKeyId20();
  const secretAccessKey = base64url40();
  const sign = createSigner({ signRequest, accessKeyId, secretAccessKey });
  tempRoot = await mkdtemp(path.join(opts.tmpDir, 'store-bench-'));
  const dataDir = path.join(tempRoot, 'store');
  await mkdir(dataDir);
  const store = await startServer({ label: 'Store', cmd: opts.storeCmd, env: {
    DATA_DIR: dataDir, LOG_LEVEL: 'warn', ...(await storeSecrets(accessKeyId, secretAccessKey)), ...storeEnv,
  } });
  await prepareTarget(store, sign);
  return { store, sign };
}

/**
 * The soak run (`--soak=SECONDS`, `npm run soak` for 20 minutes): Store alone under bench/soak.mjs's mixed workload,
 * RSS and open fds sampled throughout; the curve goes to bench/results/<timestamp>.csv beside the JSON.
 * @param {ReturnType<typeof parseOptions>} opts
 */
async function mainSoak(opts) {
  const startedAt = new Date();
  const { store, sign } = await startSoloStore(opts);
  log(`soak: ${opts.soak} s of mixed operations at concurrency 16 against Store pid ${store.pid}`);
  const result = await runSoak({ baseUrl: store.baseUrl, sign, pid: store.pid, bucket: BUCKET, seconds: opts.soak, log });
  const minutes = byMinute(result.samples);
  console.log(`\nsoak ${opts.soak} s: ${result.ops} ops (${result.opsPerSecond.toFixed(0)}/s)`);
  console.log(`RSS: first third after warm-up ${result.early.rssMiB.toFixed(1)} MiB, last third ${result.late.rssMiB.toFixed(1)} MiB ` +
    `(growth ${result.growthMiB.toFixed(1)} MiB), peak ${result.peakMiB.toFixed(0)} MiB`);
  console.log(`fds: idle before ${result.idleBefore.fds}, first third ${result.early.fds.toFixed(1)}, last third ${result.late.fds.toFixed(1)}, ` +
    `peak ${result.peakFds}, idle after ${result.idleAfter.fds}`);
  console.log(`\n| minute | RSS MiB | fds (mean) | fds (peak) | ops/s |\n|---|---|---|---|---|\n${
    minutes.map((m) => `| ${m.minute} | ${m.rssMiB.toFixed(0)} | ${m.fds.toFixed(0)} | ${m.peakFds} | ${m.opsPerSecond} |`).join('\n')}\n`);
  const file = await writeResults({ dir: path.join(BENCH_DIR, 'results'), startedAt, record: {
    kind: 'soak', startedAt: startedAt.toISOString(), finishedAt: new Date().toISOString(), options: opts,
    machine: { node: process.version, cpus: os.cpus().length, loadAverage: os.loadavg() }, ...result, minutes,
  } });
  const csv = file.replace(/\.json$/, '.csv');
  await writeFile(csv, samplesCsv(result.samples));
  console.log(`results: ${path.relative(REPO_DIR, file)} and ${path.relative(REPO_DIR, csv)} (the curve; and bench/results/latest.json)`);
}

/**
 * What webhooks cost a 4 KiB PUT, thread by thread (`--webhook-cost=on|off|external`; docs/performance.md, "Webhooks"):
 * one Store and a receiver, 1,500 PUTs at concurrency 16 to warm up, then `--puts` more, and the CPU per PUT of each
 * Store thread (`main` is the event loop), of the receiver and of this client. `on`: every PUT is delivered to the
 * receiver. `off`: webhooks off. `external`: webhooks off while a separate process POSTs event-sized signed requests to
 * the receiver at `--rate` per second, i.e. what deliveries cost the machine when they cost Store nothing. Alternate
 * the modes in pairs on a quiet machine and compare within a pair. Linux only (/proc).
 * @param {ReturnType<typeof parseOptions>} opts
 */
async function mainWebhookCost(opts) {
  const receiver = await startWebhookReceiver();
  /** @type {{ close: () => Promise<void> } | undefined} */
  let sender;
  try {
    const { store, sign } = await startSoloStore(opts,
      opts.webhookCost === 'on' ? { WEBHOOK_URL: receiver.url, WEBHOOK_SECRET: base64url40() } : {});
    const client = new BenchClient({ baseUrl: store.baseUrl, concurrency: 16, sign });
    const body = randomBytes(4096);
    let seq = 0;
    const put = (/** @type {number} */ n) => runOps(16, n, () => client.request({ method: 'PUT', path: `/${BUCKET}/cost-${seq++}`, body: [body] }));
    await put(1500);
    if (opts.webhookCost === 'external') sender = startExternalSender(receiver.url, opts.rate);
    await new Promise((r) => setTimeout(r, 1000));
    const receiverBefore = cpuSeconds(receiver.pid);
    let putSeconds = 0;
    const cost = await threadCpuDuring(store.pid, async () => {
      const startedAt = Date.now();
      await put(opts.puts);
      putSeconds = (Date.now() - startedAt) / 1000;
      await new Promise((r) => setTimeout(r, 1500)); // deliveries still in flight count too
    });
    const perPut = (/** @type {number} */ cpu) => ((cpu * 1000) / opts.puts).toFixed(3);
    client.close();
    console.log(`${opts.webhookCost}${opts.webhookCost === 'external' ? ` (${opts.rate}/s)` : ''}: ${(opts.puts / putSeconds).toFixed(0)} PUT/s; ` +
      `ms of CPU per PUT: Store ${perPut(cost.total)} (${cost.threads.map(([name, cpu]) => `${name} ${perPut(cpu)}`).join(', ')}); ` +
      `receiver ${perPut(cpuSeconds(receiver.pid) - receiverBefore)}; client ${perPut(cost.clientSeconds)}`);
  } finally {
    await sender?.close();
    await receiver.close();
    await cleanup();
  }
}

/**
 * What one small read costs Store, thread by thread (`--read-cost=HEAD|GET`; docs/performance.md, "Round 7"): one
 * Store, 256 objects of `--read-size` bytes (default 4 KiB, stored inline; above 16 KiB they are files), 5,000 reads
 * at concurrency 16 to warm up, then `--ops` more, and the CPU per read of
 * each Store thread (`main` is the event loop) and of this client. A HEAD at c16 is all per-request CPU on the event
 * loop, and this separates two builds where the benchmark's ratio cannot: alternate `--store-cmd` between them on a
 * quiet machine and compare within a pair. Linux only (/proc).
 * @param {ReturnType<typeof parseOptions>} opts
 */
async function mainReadCost(opts) {
  const KEYS = 256;
  const SIZE = opts.readSize;
  try {
    const { store, sign } = await startSoloStore(opts);
    const client = new BenchClient({ baseUrl: store.baseUrl, concurrency: 16, sign });
    const body = randomBytes(SIZE);
    await runOps(16, KEYS, (k) => client.request({ method: 'PUT', path: `/${BUCKET}/cost-${k}`, body: [body] }));
    const expectedBytes = opts.readCost === 'GET' ? SIZE : 0;
    const read = (/** @type {number} */ n) => runOps(16, n, async (i) => {
      const key = `cost-${i % KEYS}`;
      const reply = await client.request({ method: opts.readCost, path: `/${BUCKET}/${key}` });
      if (reply.bytes !== expectedBytes || reply.headers['content-length'] !== String(SIZE)) {
        throw new Error(`${opts.readCost} ${key}: ${reply.bytes} bytes, content-length ${reply.headers['content-length']}`);
      }
    });
    await read(5000);
    const cost = await threadCpuDuring(store.pid, () => read(opts.ops));
    const perRead = (/** @type {number} */ cpu) => ((cpu * 1e6) / opts.ops).toFixed(1);
    client.close();
    console.log(`${opts.readCost} ${SIZE} B c16: ${(opts.ops / cost.seconds).toFixed(0)}/s; µs of CPU per ${opts.readCost}: Store ${perRead(cost.total)} ` +
      `(${cost.threads.map(([name, cpu]) => `${name} ${perRead(cpu)}`).join(', ')}); client ${perRead(cost.clientSeconds)}`);
  } finally {
    await cleanup();
  }
}

/**
 * What large uploads cost Store, thread by thread (`--upload-cost=put|multipart`; docs/performance.md, "Round 9"): one
 * Store, one upload to warm up, then `--uploads` more, each either four 64 MiB PUTs at once (`put`, as put-64m-c4) or
 * one 256 MiB multipart upload of 16 MiB parts, four in flight (`multipart`, as multipart-256m-p4). Prints MB/s, the
 * ms of CPU per MB of each Store thread (`main` is the event loop; the V8 platform threads are the garbage collector's
 * helpers) and of this client, and Store's peak RSS. Alternate `--store-cmd` between two builds on a quiet machine
 * and compare within a pair. Linux only (/proc).
 * @param {ReturnType<typeof parseOptions>} opts
 */
async function mainUploadCost(opts) {
  try {
    const { store, sign } = await startSoloStore(opts);
    const client = new BenchClient({ baseUrl: store.baseUrl, concurrency: 4, sign });
    let seq = 0;
    /** One upload of the chosen kind; resolves to the bytes it sent. */
    const upload = async () => {
      if (opts.uploadCost === 'multipart') {
        await multipartUpload(client, `m/${seq}`, seq++);
        return UPLOAD_BYTES.multipart;
      }
      await Promise.all(Array.from({ length: 4 }, () => largePut(client, seq++)));
      return 4 * UPLOAD_BYTES.put;
    };
    await upload();
    let bytes = 0;
    const cost = await threadCpuDuring(store.pid, async () => {
      for (let i = 0; i < opts.uploads; i++) bytes += await upload();
    });
    client.close();
    console.log(costPerMb(opts.uploadCost, bytes, cost, store.pid));
  } finally {
    await cleanup();
  }
}

/**
 * What large downloads cost Store, thread by thread (`--download-cost=<concurrency>`; docs/performance.md, "Round 12"):
 * one Store holding `concurrency` objects of 64 MiB, one GET of each to warm up, then `--downloads` more GETs kept
 * `concurrency` in flight (as get-64m-c1 and get-64m-c4, each body's length checked). Prints MB/s, the ms of CPU per MB
 * of each Store thread and of this client, and Store's peak RSS. CPU per MB separates two builds where MB/s, which
 * follows the machine's other work, cannot. Linux only (/proc).
 * @param {ReturnType<typeof parseOptions>} opts
 */
async function mainDownloadCost(opts) {
  const concurrency = opts.downloadCost;
  const size = UPLOAD_BYTES.put;
  try {
    const { store, sign } = await startSoloStore(opts);
    const client = new BenchClient({ baseUrl: store.baseUrl, concurrency, sign });
    await Promise.all(Array.from({ length: concurrency }, (_, n) => largePut(client, n)));
    const download = (/** @type {number} */ n) => runOps(concurrency, n, async (i) => {
      const reply = await client.request({ method: 'GET', path: `/${BUCKET}/l/${i % concurrency}` });
      if (reply.bytes !== size) throw new Error(`GET l/${i % concurrency}: ${reply.bytes} bytes, wrote ${size}`);
    });
    await download(concurrency);
    const cost = await threadCpuDuring(store.pid, () => download(opts.downloads));
    client.close();
    console.log(costPerMb(`GET 64 MiB c${concurrency}`, opts.downloads * size, cost, store.pid));
  } finally {
    await cleanup();
  }
}

/**
 * One line of a large-transfer cost run: MB/s, the ms of CPU per MB of Store (in all and by thread) and of this
 * client, and Store's peak RSS.
 * @param {string} label
 * @param {number} bytes moved while `cost` was measured
 * @param {Awaited<ReturnType<typeof threadCpuDuring>>} cost
 * @param {number} pid Store's
 */
function costPerMb(label, bytes, cost, pid) {
  const mb = bytes / 1e6;
  const perMb = (/** @type {number} */ cpu) => ((cpu * 1000) / mb).toFixed(2);
  return `${label}: ${(mb / cost.seconds).toFixed(1)} MB/s; ms of CPU per MB: Store ${perMb(cost.total)} ` +
    `(${cost.threads.map(([name, cpu]) => `${name} ${perMb(cpu)}`).join(', ')}); client ${perMb(cost.clientSeconds)}; ` +
    `peak RSS ${(peakRssKiB(pid) / 1024).toFixed(0)} MiB`;
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
