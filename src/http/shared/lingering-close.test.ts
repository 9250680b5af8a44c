import { once } from 'node:events';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { isLingering, lingerAfterAnswer } from './lingering-close.js';

let server: Server | undefined;

afterEach(() => {
  server?.close();
  server = undefined;
});

/**
 * A connected pair: the server's socket (allowHalfOpen, as node:http's) and a client's that keeps sending after a FIN.
 */
async function pair(): Promise<{ near: Socket; far: Socket }> {
  server = createServer({ allowHalfOpen: true });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address() as { port: number };
  const far = connect({ port: address.port, host: '127.0.0.1', allowHalfOpen: true });
  far.on('error', () => undefined);
  const [near] = (await once(server, 'connection')) as [Socket];
  near.on('error', () => undefined);
  return { near, far };
}

const timing = { lingerMs: 400, idleMs: 100 };

describe('lingerAfterAnswer', () => {
  it('half-closes, keeps reading while bytes arrive, and closes at the deadline', async () => {
    const { near, far } = await pair();
    lingerAfterAnswer(near, timing);
    expect(isLingering(near)).toBe(true);
    const started = Date.now();
    near.destroySoon();
    await once(far, 'end');
    const pump = setInterval(() => {
      if (!far.destroyed) far.write(Buffer.alloc(1024));
    }, 10);
    await once(near, 'close');
    clearInterval(pump);
    const took = Date.now() - started;
    expect(took).toBeGreaterThanOrEqual(350);
    expect(took).toBeLessThan(2000);
    expect(near.bytesRead).toBeGreaterThan(0);
    far.destroy();
  });

  it('closes after the idle time when nothing arrives', async () => {
    const { near, far } = await pair();
    lingerAfterAnswer(near, timing);
    const started = Date.now();
    near.destroySoon();
    await once(near, 'close');
    expect(Date.now() - started).toBeGreaterThanOrEqual(90);
    expect(Date.now() - started).toBeLessThan(350);
    far.destroy();
  });

  it('closes at once when the client closes its side', async () => {
    const { near, far } = await pair();
    lingerAfterAnswer(near, { lingerMs: 5000, idleMs: 5000 });
    near.destroySoon();
    const started = Date.now();
    far.end();
    await once(near, 'close');
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('ignores a socket that is already gone', async () => {
    expect(() => lingerAfterAnswer(null)).not.toThrow();
    const { near, far } = await pair();
    near.destroy();
    lingerAfterAnswer(near);
    expect(isLingering(near)).toBe(false);
    far.destroy();
  });
});
