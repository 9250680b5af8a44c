// @ts-check
// `--webhooks`: a tiny webhook receiver in the bench process, on loopback. It answers 200 to every POST and counts
// requests and distinct X-Store-Delivery ids, so the run can report whether delivery kept up with the writes.
import http from 'node:http';

/**
 * @returns {Promise<{ url: string, stats: { requests: number, deliveries: Set<string> }, close: () => Promise<void> }>}
 */
export async function startWebhookReceiver() {
  const stats = { requests: 0, deliveries: /** @type {Set<string>} */ (new Set()) };
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      stats.requests++;
      stats.deliveries.add(String(req.headers['x-store-delivery'] ?? ''));
      res.writeHead(200, { 'content-length': '0' }).end();
    });
  });
  server.keepAliveTimeout = 30_000;
  server.unref(); // never what keeps a failed run alive
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
  return {
    url: `http://127.0.0.1:${port}/hook`,
    stats,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
