// SlowBodyGuard over real loopback connections with a fake clock: a trickling body is cut once it falls behind
// its allowance (grace + received bytes at the minimum rate), a body that keeps the rate is not, time the server
// itself does not read is not held against the client, and bodiless requests are never watched.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { SlowBodyGuard } from './slow-body-guard.js';

let clock = 0;
const servers: Server[] = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
});

/** A server whose every request is watched; `read: false` leaves bodies unread (the server is the slow side). */
async function serve(
  guard: SlowBodyGuard,
  opts: { read: boolean },
): Promise<{ port: number; requests: IncomingMessage[]; timeouts: number[] }> {
  const requests: IncomingMessage[] = [];
  const timeouts: number[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    requests.push(req);
    guard.watch(req, res, () => {
      timeouts.push(clock);
      res.writeHead(400, { connection: 'close' }).end('RequestTimeout');
    });
    if (opts.read) req.resume();
    req.on('end', () => res.end('ok'));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  servers.push(server);
  return { port: (server.address() as AddressInfo).port, requests, timeouts };
}

/** Opens a connection and sends a PUT head declaring `length` body bytes; resolves once the server has the request. */
async function open(port: number, requests: IncomingMessage[], length: number | 'chunked'): Promise<Socket> {
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => undefined);
  sockets.push(socket);
  const framing = length === 'chunked' ? 'Transfer-Encoding: chunked' : `Content-Length: ${length}`;
  const before = requests.length;
  socket.write(`PUT /b/k HTTP/1.1\r\nHost: x\r\n${framing}\r\n\r\n`);
  for (let i = 0; i < 200 && requests.length === before; i++) await new Promise((r) => setTimeout(r, 5));
  return socket;
}

const flush = (): Promise<void> => new Promise((r) => setTimeout(r, 50));
const closed = (socket: Socket): Promise<string> =>
  new Promise((resolve) => {
    let text = '';
    socket.on('data', (d: Buffer) => {
      text += d.toString();
    });
    socket.once('close', () => resolve(text));
  });

describe('SlowBodyGuard', () => {
  it('cuts a trickling body once it falls behind grace + bytes / rate, answering first', async () => {
    clock = 0;
    const guard = new SlowBodyGuard({ graceMs: 20_000, minBytesPerSecond: 500, now: () => clock });
    const { port, requests, timeouts } = await serve(guard, { read: true });
    const socket = await open(port, requests, 1_000_000);
    const answer = closed(socket);
    // 1,000 bytes earn two seconds: the allowance is 22 s.
    socket.write(Buffer.alloc(1000, 0x61));
    await flush();
    clock = 21_000;
    guard.tick();
    expect(timeouts).toEqual([]);
    clock = 22_500;
    guard.tick();
    expect(timeouts).toEqual([22_500]);
    const text = await answer;
    expect(text).toMatch(/^HTTP\/1\.1 400 /);
    expect(text).toContain('RequestTimeout');
    expect(guard.size).toBe(0);
  });

  it('never cuts a body that keeps the minimum rate, and forgets it once it has arrived', async () => {
    clock = 0;
    const guard = new SlowBodyGuard({ graceMs: 20_000, minBytesPerSecond: 500, now: () => clock });
    const { port, requests, timeouts } = await serve(guard, { read: true });
    const socket = await open(port, requests, 60_000);
    for (let second = 1; second <= 100; second++) {
      socket.write(Buffer.alloc(second === 100 ? 60_000 - 99 * 600 : 600, 0x61));
      if (second % 10 === 0) await flush();
      clock = second * 1000;
      guard.tick();
    }
    await flush();
    guard.tick();
    expect(timeouts).toEqual([]);
    expect(guard.size).toBe(0);
  });

  it('does not hold time against the client while the server is not reading', async () => {
    clock = 0;
    const guard = new SlowBodyGuard({ graceMs: 20_000, minBytesPerSecond: 500, now: () => clock });
    const { port, requests, timeouts } = await serve(guard, { read: false });
    const socket = await open(port, requests, 10_000_000);
    socket.write(Buffer.alloc(256 * 1024, 0x61));
    await flush();
    for (let second = 1; second <= 600; second++) {
      clock = second * 1000;
      guard.tick();
    }
    expect(timeouts).toEqual([]);
    expect(guard.size).toBe(1);
  });

  it('watches chunked bodies too, and never a request without a body', async () => {
    clock = 0;
    const guard = new SlowBodyGuard({ graceMs: 1000, minBytesPerSecond: 500, now: () => clock });
    const { port, requests, timeouts } = await serve(guard, { read: true });
    const chunked = await open(port, requests, 'chunked');
    const empty = await open(port, requests, 0);
    expect(guard.size).toBe(1);
    clock = 5000;
    guard.tick();
    expect(timeouts).toEqual([5000]);
    await closed(chunked);
    expect(empty.destroyed).toBe(false);
  });
});
