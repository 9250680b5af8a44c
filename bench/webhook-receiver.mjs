// @ts-check
// `--webhooks`: a tiny webhook receiver on loopback that answers 200 to every POST and counts requests and distinct
// X-Store-Delivery ids. It runs as its own process (forked by run.mjs), so receiving does not take event-loop time
// from the load generator; run directly, it is that child.
import { fork } from 'node:child_process';
import http from 'node:http';
import { fileURLToPath } from 'node:url';

/**
 * Forks the receiver and waits until it listens.
 * @returns {Promise<{ url: string, pid: number, stats: () => Promise<{ requests: number, deliveries: number }>, close: () => Promise<void> }>}
 */
export async function startWebhookReceiver() {
  const child = fork(fileURLToPath(import.meta.url), ['--child'], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  /** @type {string} */
  const url = await new Promise((resolve, reject) => {
    child.once('message', (m) => resolve(/** @type {{ url: string }} */ (m).url));
    child.once('exit', (code) => reject(new Error(`webhook receiver exited with ${code}`)));
  });
  return {
    url,
    pid: /** @type {number} */ (child.pid),
    stats: () => new Promise((resolve) => {
      child.once('message', (m) => resolve(/** @type {{ requests: number, deliveries: number }} */ (m)));
      child.send('stats');
    }),
    close: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
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
  server.listen(0, '127.0.0.1', () => {
    const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
    process.send?.({ url: `http://127.0.0.1:${port}/hook` });
  });
  process.on('message', () => process.send?.({ requests, deliveries: deliveries.size }));
  process.on('disconnect', () => process.exit(0));
  process.on('SIGTERM', () => process.exit(0));
}
