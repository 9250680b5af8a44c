// @ts-check
// `node bench/integrity-scrub.mjs [--seconds=5] [--rounds=3] [--bytes-per-tick=N] [--objects-per-tick=N]`: what an
// integrity scrub costs client reads. One Store (built by `npm run build`), seeded with 4 KiB and 1 MiB objects;
// GET throughput is measured in alternating rounds with no scrub running and with a manual scrub pass running (at the
// given per-tick limits, default Store's defaults), and the median of each is printed. See docs/integrity-analytics.md.
import argon2 from 'argon2';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { BenchClient, createSigner, loadSignRequest } from './client.mjs';

const REPO = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '3' },
    'bytes-per-tick': { type: 'string', default: '8388608' },
    'objects-per-tick': { type: 'string', default: '100' },
  },
});
const SECONDS = Number(values.seconds);
const ROUNDS = Number(values.rounds);
const SMALL = 4096;
const LARGE = 1024 * 1024;
const SMALL_COUNT = 256;
/** Enough bytes that a pass outlasts a round at the default 8 MiB/s. */
const LARGE_COUNT = 200;

const port = await new Promise((resolve) => {
  const s = net.createServer().listen(0, '127.0.0.1', () => {
    const p = /** @type {net.AddressInfo} */ (s.address()).port;
    s.close(() => resolve(p));
  });
});
const dir = await mkdtemp(path.join(os.tmpdir(), 'store-scrub-bench-'));
const password = randomBytes(16).toString('base64url');
const accessKeyId = 'BENCH' + randomBytes(8).toString('hex').toUpperCase().slice(0, 15);
const secretAccessKey = randomBytes(30).toString('base64url');
const child = spawn(process.execPath, ['bin/store.js', 'serve'], {
  cwd: REPO,
  stdio: ['ignore', 'pipe', 'pipe'],
  env: {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: path.join(dir, 'data'),
    LOG_LEVEL: 'warn',
    JWT_SECRET: randomBytes(40).toString('base64url'),
    ROOT_ACCESS_KEY_ID: accessKeyId,
    ROOT_SECRET_ACCESS_KEY: secretAccessKey,
    ADMIN_PASSWORD_HASH: await argon2.hash(password, {
      type: argon2.argon2id,
      memoryCost: 4096,
      timeCost: 1,
      parallelism: 1,
    }),
    STORE_INTEGRITY_SCRUB_BYTES_PER_TICK: String(values['bytes-per-tick']),
    STORE_INTEGRITY_SCRUB_OBJECTS_PER_TICK: String(values['objects-per-tick']),
  },
});
let output = '';
child.stdout.on('data', (d) => {
  output += d;
});
child.stderr.on('data', (d) => {
  output += d;
});
const base = `http://127.0.0.1:${port}`;

try {
  for (let i = 0; ; i++) {
    if (
      await fetch(`${base}/api/admin/health`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    if (i > 200) throw new Error(`Store did not start:\n${output}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const signRequest = await loadSignRequest();
  if (!signRequest) throw new Error('run `npm run build` first');
  const sign = createSigner({ signRequest, accessKeyId, secretAccessKey });
  const seed = new BenchClient({ baseUrl: base, concurrency: 8, sign });
  await seed.request({ method: 'PUT', path: '/bench' });
  const put = async (key, size) => seed.request({ method: 'PUT', path: `/bench/${key}`, body: [randomBytes(size)] });
  for (let i = 0; i < SMALL_COUNT; i++) await put(`s/${i}`, SMALL);
  for (let i = 0; i < LARGE_COUNT; i++) await put(`l/${i}`, LARGE);
  seed.close();
  const login = await fetch(`${base}/api/admin/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'admin', password }),
  });
  const { accessToken } = /** @type {{ accessToken: string }} */ (await login.json());
  const admin = (method, p) =>
    fetch(`${base}/api/admin${p}`, { method, headers: { authorization: `Bearer ${accessToken}` } }).then((r) =>
      r.json(),
    );

  /** GETs for SECONDS at concurrency c; returns ops/s and MB/s. */
  const measure = async ({ prefix, count, size, concurrency }) => {
    const client = new BenchClient({ baseUrl: base, concurrency, sign });
    let ops = 0;
    const end = Date.now() + SECONDS * 1000;
    await Promise.all(
      Array.from({ length: concurrency }, async (_, w) => {
        let n = w;
        while (Date.now() < end) {
          const reply = await client.request({ method: 'GET', path: `/bench/${prefix}/${n++ % count}` });
          if (reply.bytes !== size) throw new Error(`short GET: ${reply.bytes}`);
          ops++;
        }
      }),
    );
    client.close();
    return { ops: ops / SECONDS, mbps: (ops * size) / SECONDS / 1e6 };
  };
  /** @returns {Promise<{ bytesChecked: number } | null>} */
  const currentPass = async () =>
    /** @type {{ currentPass: { bytesChecked: number } | null }} */ (await admin('GET', '/integrity')).currentPass;
  /** Keeps a pass running (a new one as soon as one ends) and counts the bytes scrubbed, until stopped. */
  const keepScrubbing = () => {
    let stop = false;
    let bytes = 0;
    let last = 0;
    const done = (async () => {
      while (!stop) {
        const pass = await currentPass();
        if (pass === null) {
          await admin('POST', '/integrity/scrub');
          last = 0;
        } else {
          bytes += Math.max(0, pass.bytesChecked - last);
          last = pass.bytesChecked;
        }
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    return async () => {
      stop = true;
      await done;
      return bytes;
    };
  };
  /** @type {Record<string, number[]>} */
  const results = { 'get-4k-c16 idle': [], 'get-4k-c16 scrub': [], 'get-1m-c4 idle': [], 'get-1m-c4 scrub': [] };
  let scrubbed = 0;
  let scrubSeconds = 0;
  for (let round = 0; round < ROUNDS; round++) {
    for (const scrub of round % 2 === 0 ? [false, true] : [true, false]) {
      while (!scrub && (await currentPass()) !== null) await new Promise((r) => setTimeout(r, 200));
      const keeper = scrub ? keepScrubbing() : undefined;
      const label = scrub ? 'scrub' : 'idle';
      const started = Date.now();
      results[`get-4k-c16 ${label}`].push(
        (await measure({ prefix: 's', count: SMALL_COUNT, size: SMALL, concurrency: 16 })).ops,
      );
      results[`get-1m-c4 ${label}`].push(
        (await measure({ prefix: 'l', count: LARGE_COUNT, size: LARGE, concurrency: 4 })).mbps,
      );
      if (keeper) {
        scrubbed += await keeper();
        scrubSeconds += (Date.now() - started) / 1000;
      }
    }
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  console.log(
    `limits: ${values['objects-per-tick']} objects and ${values['bytes-per-tick']} bytes per 1000 ms tick; ${ROUNDS} rounds of ${SECONDS} s`,
  );
  for (const [name, xs] of Object.entries(results))
    console.log(
      `${name.padEnd(18)} median ${median(xs).toFixed(1)} ${name.includes('4k') ? 'ops/s' : 'MB/s'}  (${xs.map((x) => x.toFixed(0)).join(', ')})`,
    );
  console.log(`scrub rate during the scrub rounds: ${(scrubbed / scrubSeconds / 1e6).toFixed(1)} MB/s`);
} finally {
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  await rm(dir, { recursive: true, force: true });
}
