import { createServer, type IncomingMessage, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { AppError } from '../../core/errors.js';
import { isClientAbort } from './client-abort.js';

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
  server = undefined;
});

/** Serves one request: `onRequest` reads it and reports what isClientAbort said for the error it got. */
async function classify(
  onRequest: (req: IncomingMessage) => Promise<boolean>,
  send: (port: number) => void,
): Promise<boolean> {
  const verdict = new Promise<boolean>((resolve) => {
    server = createServer((req, res) => {
      void onRequest(req).then((v) => {
        resolve(v);
        if (!res.destroyed) res.end();
      });
    });
  });
  await new Promise<void>((r) => server?.listen(0, '127.0.0.1', r));
  send((server?.address() as AddressInfo).port);
  return verdict;
}

const readAll = async (req: IncomingMessage): Promise<void> => {
  for await (const chunk of req) void chunk;
};

describe('isClientAbort', () => {
  it('is false for a server-side failure after the whole body was read (Node then marks the request destroyed)', async () => {
    const verdict = await classify(
      async (req) => {
        await readAll(req);
        expect(req.destroyed).toBe(true); // the trap: this flag alone made every such failure a "client abort"
        const enospc = Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
        return isClientAbort(req, enospc);
      },
      (port) => void fetch(`http://127.0.0.1:${port}/b/k`, { method: 'PUT', body: 'hello' }).catch(() => undefined),
    );
    expect(verdict).toBe(false);
  });

  it('is true when the client hangs up in the middle of the body', async () => {
    const verdict = await classify(
      async (req) => {
        try {
          await readAll(req);
          return false;
        } catch (err) {
          return isClientAbort(req, err);
        }
      },
      (port) => {
        const socket = connect(port, '127.0.0.1', () => {
          socket.write('PUT /b/k HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\npartial');
          setTimeout(() => socket.destroy(), 50);
        });
        socket.on('error', () => undefined);
      },
    );
    expect(verdict).toBe(true);
  });

  it('does not throw once Node has cleared req.socket (a reader destroyed the request mid-body): nobody to answer', async () => {
    const verdict = await classify(
      async (req) => {
        try {
          for await (const chunk of req) {
            void chunk;
            throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
          }
          return false;
        } catch (err) {
          expect(req.socket).toBeNull();
          return isClientAbort(req, err);
        }
      },
      (port) =>
        void fetch(`http://127.0.0.1:${port}/b/k`, { method: 'PUT', body: Buffer.alloc(1_000_000) }).catch(
          () => undefined,
        ),
    );
    expect(verdict).toBe(true);
  });

  it('is false for an AppError, whatever the connection', async () => {
    const verdict = await classify(
      async (req) => {
        await readAll(req);
        return isClientAbort(req, new AppError('IncompleteBody'));
      },
      (port) => void fetch(`http://127.0.0.1:${port}/`, { method: 'PUT', body: 'x' }).catch(() => undefined),
    );
    expect(verdict).toBe(false);
  });
});
