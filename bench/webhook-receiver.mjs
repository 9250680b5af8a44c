// @ts-check
// `--webhooks`: a tiny webhook receiver on loopback that answers 200 to every POST and counts requests and distinct
// X-Store-Delivery ids. It runs as its own process (forked by run.mjs), so receiving does not take event-loop time
// from the load generator; run directly, it is that child.
// `--webhook-cost=external`: a sender process that POSTs event-sized, signed requests to a receiver at a fixed rate
// through node:http, as Store's deliveries would, but costing Store nothing.
import { fork } from 'node:child_process';
import { createHmac, randomUUID } from 'node:crypto';
import http from 'node:http';
import { fileURLToPath } from 'node:url';

/**
 * Forks the receiver and waits until it listens, on `port` (the same one again after an outage) or a free one.
 * @param {number} [port]
 * @returns {Promise<{ url: string, pid: number, stats: () => Promise<{ requests: number, deliveries: number }>, close:
 * () => Promise<void>, stop: () => Promise<{ requests: number, deliveries: number }> }>}
 */
export async function startWebhookReceiver(port = 0) {
  const child = fork(fileURLToPath(import.meta.url), ['--child', String(port)], {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  /** @type {string} */
  const url = await new Promise((resolve, reject) => {
    child.once('message', (m) => resolve(/** @type {{ url: string }} */ (m).url));
    child.once('exit', (code) => reject(new Error(`webhook receiver exited with ${code}`)));
  });
  return {
    url,
    pid: /** @type {number} */ (child.pid),
    stats: () =>
      new Promise((resolve) => {
        child.once('message', (m) => resolve(/** @type {{ requests: number, deliveries: number }} */ (m)));
        child.send('stats');
      }),
    close: async () => {
      child.kill('SIGTERM');
      await exited;
    },
    /** Stops listening, then resolves to the final counts once the process has exited. */
    stop: async () => {
      /** @type {Promise<{ requests: number, deliveries: number }>} */
      const final = new Promise((resolve) =>
        child.once('message', (m) => resolve(/** @type {{ requests: number, deliveries: number }} */ (m))),
      );
      child.send('stop');
      const counts = await final;
      await exited;
      return counts;
    },
  };
}

/**
 * Forks the external sender: `perSecond` POSTs to `url` every second until stopped.
 * @param {string} url @param {number} perSecond
 * @returns {{ close: () => Promise<void> }}
 */
export function startExternalSender(url, perSecond) {
  const child = fork(fileURLToPath(import.meta.url), ['--sender', url, String(perSecond)], {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return {
    close: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

if (process.argv[2] === '--sender') {
  const url = new URL(String(process.argv[3]));
  const perSecond = Number(process.argv[4]);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
  const body = Buffer.from(
    JSON.stringify({
      type: 'object.created',
      bucket: 'bench',
      key: 'k123456',
      size: 4096,
      etag: '0123456789abcdef0123456789abcdef',
      eventTime: new Date().toISOString(),
    }),
  );
  const startedAt = Date.now();
  let sent = 0;
  setInterval(() => {
    for (const due = Math.floor(((Date.now() - startedAt) / 1000) * perSecond); sent < due; sent++) {
      const t = Math.floor(Date.now() / 1000);
      const req = http.request({
        hostname: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          'user-agent': 'store-webhooks/bench',
          'x-store-event': 'object.created',
          'x-store-delivery': randomUUID(),
          'x-store-signature': `t=${t},v1=${createHmac('sha256', 'x'.repeat(40)).update(`${t}.`).update(body).digest('hex')}`,
          'content-length': String(body.length),
        },
      });
      req.on('response', (res) => res.resume());
      req.on('error', () => undefined);
      req.end(body);
    }
  }, 5);
  process.on('disconnect', () => process.exit(0));
  process.on('SIGTERM', () => process.exit(0));
}

if (process.argv[2] === '--child') {
  let requests = 0;
  const deliveries = new Set();
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      requests++;
      deliveries.add(String(req.headers['x-store-delivery'] ?? ''));
      res.writeHead(200, { 'content-length': '0' }).end();
    });
  });
  server.keepAliveTimeout = 30_000;
  server.listen(Number(process.argv[3] ?? 0), '127.0.0.1', () => {
    const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
    process.send?.({ url: `http://127.0.0.1:${port}/hook` });
  });
  process.on('message', (m) => {
    if (m !== 'stop') return void process.send?.({ requests, deliveries: deliveries.size });
    // Stop answering first, so the counts sent are final (an outage: connections refused from here on).
    server.close();
    server.closeAllConnections();
    process.send?.({ requests, deliveries: deliveries.size }, () => process.exit(0));
  });
  process.on('disconnect', () => process.exit(0));
  process.on('SIGTERM', () => process.exit(0));
}
