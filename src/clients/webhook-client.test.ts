// WebhookClient against a real loopback server: status passthrough, no redirect following, the timeout, network
// errors and aborts, URL credentials sent as Basic auth, and failure reasons free of the URL and its credentials.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FaultServer } from '../../test/helpers/fault-server.js';
import { WebhookClient, type WebhookPost } from './webhook-client.js';

let server: Server;
let base: string;
const hits: { path: string; headers: IncomingMessage['headers']; body: string }[] = [];
const hanging: ServerResponse[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      hits.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString() });
      if (req.url?.startsWith('/ok')) res.writeHead(204).end();
      else if (req.url === '/redirect') res.writeHead(302, { location: '/ok' }).end('moved');
      else if (req.url === '/hang') hanging.push(res);
      else if (req.url === '/big') res.writeHead(500).end(Buffer.alloc(256 * 1024, 1));
      else res.writeHead(404).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const res of hanging) res.destroy();
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const client = new WebhookClient({ maxSockets: 2 });
afterAll(() => client.close());

function post(url: string, extra: Partial<WebhookPost> = {}): ReturnType<WebhookClient['post']> {
  return client.post({
    url: new URL(url),
    headers: { 'content-type': 'application/json', 'x-store-event': 'object.created' },
    body: '{"k":"ü"}',
    timeoutMs: 2000,
    ...extra,
  });
}

describe('WebhookClient', () => {
  it('POSTs the exact body bytes and headers and returns the status', async () => {
    expect(await post(`${base}/ok`)).toEqual({ kind: 'response', status: 204 });
    const hit = hits.at(-1)!;
    expect(hit.body).toBe('{"k":"ü"}');
    expect(hit.headers['content-length']).toBe(String(Buffer.byteLength('{"k":"ü"}')));
    expect(hit.headers['x-store-event']).toBe('object.created');
    expect(hit.headers['authorization']).toBeUndefined();
  });

  it('does not follow a redirect: the 3xx is the answer and the Location is never requested', async () => {
    const before = hits.length;
    expect(await post(`${base}/redirect`)).toEqual({ kind: 'response', status: 302 });
    await new Promise((r) => setTimeout(r, 50));
    expect(hits.slice(before).map((h) => h.path)).toEqual(['/redirect']);
  });

  it('reads and discards a large error body', async () => {
    expect(await post(`${base}/big`)).toEqual({ kind: 'response', status: 500 });
  });

  it('stops reading a body that never ends: the status stands, at once, and the socket is dropped', async () => {
    const fault = await FaultServer.start();
    try {
      for (const status of [200, 503]) {
        await fault.setMode({ kind: 'huge-body', status });
        const started = Date.now();
        expect(await post(`${fault.url}/hook`, { timeoutMs: 5000 })).toEqual({ kind: 'response', status });
        expect(Date.now() - started).toBeLessThan(2000);
      }
      // What was sent is what sat in socket buffers when the reader gave up, not what 5 s at loopback speed carry.
      expect(fault.stats.hugeBytesSent).toBeLessThan(32 * 1024 * 1024);
    } finally {
      await fault.close();
    }
  });

  it('reports a receiver that trickles, resets or answers in something other than HTTP by cause only', async () => {
    const fault = await FaultServer.start(Number(new URL(base).port));
    try {
      await fault.setMode({ kind: 'trickle', byteEveryMs: 20 });
      expect(await post(`${fault.url}/ok`, { timeoutMs: 300 })).toEqual({
        kind: 'error',
        reason: 'timed out after 300 ms',
      });
      await fault.setMode({ kind: 'reset' });
      expect(await post(`${fault.url}/ok`)).toEqual({ kind: 'error', reason: 'network error: ECONNRESET' });
      await fault.setMode({ kind: 'garbage' });
      expect(await post(`${fault.url}/ok`)).toEqual({ kind: 'error', reason: 'network error: HPE_INVALID_CONSTANT' });
      await fault.setMode({ kind: 'pass' });
      expect(await post(`${fault.url}/ok`)).toEqual({ kind: 'response', status: 204 });
    } finally {
      await fault.close();
    }
  });

  it('gives up after the timeout', async () => {
    const started = Date.now();
    expect(await post(`${base}/hang`, { timeoutMs: 150 })).toEqual({ kind: 'error', reason: 'timed out after 150 ms' });
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it('reports a refused connection by code only', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const result = await post(`http://secret-user:secret-pass@127.0.0.1:${port}/x`);
    expect(result).toEqual({ kind: 'error', reason: 'network error: ECONNREFUSED' });
  });

  it('sends URL credentials as Basic auth and never puts them in a reason', async () => {
    expect(await post(`http://al%40ice:p%3Ass@127.0.0.1:${new URL(base).port}/ok`)).toEqual({
      kind: 'response',
      status: 204,
    });
    expect(hits.at(-1)!.headers['authorization']).toBe(`Basic ${Buffer.from('al@ice:p:ss').toString('base64')}`);
    const timedOut = await post(`http://al%40ice:p%3Ass@127.0.0.1:${new URL(base).port}/hang`, { timeoutMs: 100 });
    expect(JSON.stringify(timedOut)).not.toMatch(/ice|ss@|127\.0\.0\.1/);
  });

  it('aborts with the signal, before or during the request', async () => {
    const early = new AbortController();
    early.abort();
    expect(await post(`${base}/ok`, { signal: early.signal })).toEqual({ kind: 'aborted' });
    const late = new AbortController();
    const pending = post(`${base}/hang`, { signal: late.signal, timeoutMs: 5000 });
    setTimeout(() => late.abort(), 50);
    expect(await pending).toEqual({ kind: 'aborted' });
  });

  it('aborts a request in the turn it was posted: the receiver never sees it', async () => {
    const before = hits.length;
    const controller = new AbortController();
    const aborted = post(`${base}/ok?never`, { signal: controller.signal });
    const sent = post(`${base}/ok?sent`);
    controller.abort();
    expect(await aborted).toEqual({ kind: 'aborted' });
    expect(await sent).toEqual({ kind: 'response', status: 204 });
    await new Promise((r) => setTimeout(r, 50));
    expect(hits.slice(before).map((h) => h.path)).toEqual(['/ok?sent']);
  });

  it('runs many requests at once and answers each with its own result', async () => {
    const results = await Promise.all([...Array(40)].map((_, i) => post(`${base}/${i % 2 === 0 ? 'ok' : 'redirect'}`)));
    expect(results.map((r) => (r.kind === 'response' ? r.status : r.kind))).toEqual(
      [...Array(40)].map((_, i) => (i % 2 === 0 ? 204 : 302)),
    );
  });

  it('ends requests in flight as network errors on close, and a closed client still sends the next post', async () => {
    const own = new WebhookClient({ maxSockets: 1 });
    const inFlight = own.post({ url: new URL(`${base}/hang`), headers: {}, body: '{}', timeoutMs: 5000 });
    await new Promise((r) => setTimeout(r, 50));
    own.close();
    expect(await inFlight).toEqual({ kind: 'error', reason: 'network error: closed' });
    expect(await own.post({ url: new URL(`${base}/ok`), headers: {}, body: '{}', timeoutMs: 2000 })).toEqual({
      kind: 'response',
      status: 204,
    });
    own.close();
  });
});
