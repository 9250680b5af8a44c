// A reader that stops in the middle of a request body (a full disk, a refused size) leaves the connection to the
// answer: the client gets the error, not a reset.

import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { endUnreadBody, requestBytes } from './request-bytes.js';

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
  server = undefined;
});

/** PUTs `size` bytes in two writes to a server that stops reading after the first chunk and answers 507. */
async function putToFullDisk(size: number): Promise<{ status: number; body: string; socketKept: boolean }> {
  let socketKept = false;
  server = createServer((req, res) => {
    void (async () => {
      try {
        for await (const chunk of requestBytes(req)) {
          void chunk;
          throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
        }
      } catch {
        socketKept = req.socket !== null && !req.socket.destroyed;
        const unread = endUnreadBody(req);
        res.writeHead(507, unread ? { connection: 'close' } : {}).end('full');
      }
    })();
  });
  await new Promise<void>((r) => server?.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, method: 'PUT', path: '/b/k', headers: { 'content-length': String(size) } },
      (res) => {
        let body = '';
        res.on('data', (d: Buffer) => {
          body += d.toString();
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, socketKept }));
      },
    );
    req.on('error', reject);
    req.write(Buffer.alloc(size / 2));
    req.end(Buffer.alloc(size / 2));
  });
}

describe('requestBytes', () => {
  it('leaves the request and its socket open when the reader stops early, so the error answer reaches the client', async () => {
    const answer = await putToFullDisk(4 * 1024 * 1024);
    expect(answer).toEqual({ status: 507, body: 'full', socketKept: true });
  });
});
