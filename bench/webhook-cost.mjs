// What webhooks cost a 4 KiB PUT, thread by thread (docs/performance.md, "Webhooks"). Starts one Store from the
// build with a bench webhook receiver, PUTs 1,500 objects to warm up, then N more at concurrency 16, and prints
// PUT/s and the CPU per PUT of each Store thread (from /proc/<pid>/task/*/stat; `main` is the event loop), of the
// receiver process and of this client.
//
//   node bench/webhook-cost.mjs on  [N]          webhooks on: every PUT is delivered to the receiver
//   node bench/webhook-cost.mjs off [N]          webhooks off
//   node bench/webhook-cost.mjs external [N] R   webhooks off, and a separate process POSTs event-sized signed
//                                                requests to the receiver at R per second: what deliveries cost
//                                                this machine when they cost Store nothing
//
// Alternate modes in pairs on a quiet machine; compare within a pair. STORE_NODE_ARGS adds node flags (e.g.
// "--cpu-prof --cpu-prof-dir=/tmp/prof"). Linux only (/proc).
import { spawn } from 'node:child_process';
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import http from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import argon2 from 'argon2';
import { BenchClient, createSigner, loadSignRequest } from './client.mjs';
import { startWebhookReceiver } from './webhook-receiver.mjs';

const [mode = 'on', count = '8000', rate = '1300'] = process.argv.slice(2);

if (mode === '--sender') {
  // The external sender (child process): POSTs like Store's deliveries, at a fixed rate, with node:http.
  const url = new URL(count);
  const perSecond = Number(rate);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
  const body = Buffer.from(JSON.stringify({ type: 'object.created', bucket: 'whbench', key: 'k123456', size: 4096, etag: '0123456789abcdef0123456789abcdef', eventTime: new Date().toISOString() }));
  let sent = 0;
  const t0 = Date.now();
  setInterval(() => {
    const due = Math.floor(((Date.now() - t0) / 1000) * perSecond);
    for (; sent < due; sent++) {
      const signature = createHmac('sha256', 'x'.repeat(40)).update(`${Math.floor(Date.now() / 1000)}.`).update(body).digest('hex');
      const req = http.request({ hostname: url.hostname, port: url.port, path: url.pathname, method: 'POST', agent, headers: {
        'content-type': 'application/json', 'user-agent': 'store-webhooks/bench', 'x-store-event': 'object.created',
        'x-store-delivery': randomUUID(), 'x-store-signature': `t=${Math.floor(Date.now() / 1000)},v1=${signature}`, 'content-length': String(body.length),
      } });
      req.on('response', (res) => res.resume());
      req.on('error', () => undefined);
      req.end(body);
    }
  }, 5);
} else {
  if (!['on', 'off', 'external'].includes(mode)) throw new Error(`mode must be on, off or external, got ${mode}`);
  const N = Number(count);
  const b40 = () => randomBytes(30).toString('base64url');
  const port = await new Promise((r) => { const s = createServer().listen(0, '127.0.0.1', () => { const p = s.address().port; s.close(() => r(p)); }); });
  const receiver = await startWebhookReceiver();
  const dataDir = mkdtempSync(join(tmpdir(), 'store-whcost-'));
  const ak = `AKBENCH${randomBytes(6).toString('hex').toUpperCase()}`;
  const sk = b40();
  const env = {
    ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, JWT_SECRET: b40(), ROOT_ACCESS_KEY_ID: ak, ROOT_SECRET_ACCESS_KEY: sk,
    ADMIN_PASSWORD_HASH: await argon2.hash(b40(), { type: argon2.argon2id }), LOG_LEVEL: 'warn',
    ...(mode === 'on' ? { WEBHOOK_URL: receiver.url, WEBHOOK_SECRET: b40() } : {}),
  };
  const storeJs = fileURLToPath(new URL('../bin/store.js', import.meta.url));
  const store = spawn(process.execPath, [...(process.env.STORE_NODE_ARGS?.split(' ') ?? []), storeJs, 'serve'], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  const children = [store];
  const cleanup = () => { for (const c of children) c.kill('SIGTERM'); };
  process.on('exit', cleanup);
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 200; i++) {
    try { if ((await fetch(`${base}/api/admin/health`)).ok) break; } catch { /* not up yet */ }
    await new Promise((r) => setTimeout(r, 100));
  }
  const client = new BenchClient({ baseUrl: base, concurrency: 16, sign: createSigner({ signRequest: await loadSignRequest(), accessKeyId: ak, secretAccessKey: sk }) });
  await client.request({ method: 'PUT', path: '/whbench' });
  const ticks = (file) => { const s = readFileSync(file, 'utf8'); const f = s.slice(s.lastIndexOf(')') + 2).split(' '); return Number(f[11]) + Number(f[12]); };
  const threads = (pid) => {
    const m = new Map();
    for (const t of readdirSync(`/proc/${pid}/task`)) {
      try {
        const key = t === String(pid) ? 'main' : `${readFileSync(`/proc/${pid}/task/${t}/comm`, 'utf8').trim()}#${t}`;
        m.set(key, ticks(`/proc/${pid}/task/${t}/stat`));
      } catch { /* thread ended */ }
    }
    return m;
  };
  const body = randomBytes(4096);
  let seq = 0;
  const put = async (n) => {
    let i = 0;
    await Promise.all([...Array(16)].map(async () => { while (i < n) { i++; await client.request({ method: 'PUT', path: `/whbench/k${seq++}`, body: [body] }); } }));
  };
  await put(1500);
  if (mode === 'external') children.push(spawn(process.execPath, [fileURLToPath(import.meta.url), '--sender', receiver.url, rate], { stdio: 'inherit' }));
  await new Promise((r) => setTimeout(r, 1000));
  const t0 = threads(store.pid);
  const r0 = ticks(`/proc/${receiver.pid}/stat`);
  const c0 = process.cpuUsage();
  const w0 = Date.now();
  await put(N);
  const secs = (Date.now() - w0) / 1000;
  await new Promise((r) => setTimeout(r, 1500)); // deliveries still in flight count too
  const t1 = threads(store.pid);
  const r1 = ticks(`/proc/${receiver.pid}/stat`);
  const c1 = process.cpuUsage(c0);
  const per = (jiffies) => ((jiffies * 10) / N).toFixed(3);
  const rows = [...t1].map(([k, v]) => [k, v - (t0.get(k) ?? 0)]).filter(([, d]) => d > 0).sort((a, b) => b[1] - a[1]);
  const total = rows.reduce((s, [, d]) => s + d, 0);
  console.log(`${mode}${mode === 'external' ? ` (${rate}/s)` : ''}: ${(N / secs).toFixed(0)} PUT/s; ms of CPU per PUT: Store ${per(total)} (${rows.map(([k, d]) => `${k} ${per(d)}`).join(', ')}); receiver ${per(r1 - r0)}; client ${((c1.user + c1.system) / 1000 / N).toFixed(3)}`);
  cleanup();
  await receiver.close();
  rmSync(dataDir, { recursive: true, force: true });
  process.exit(0);
}
