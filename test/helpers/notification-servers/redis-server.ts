// A real redis-server (Debian package `redis-server`) for notification tests: loopback, a free port, a temp dir,
// no persistence, a password; ready once a real client's PING is answered.

import { createClient } from '@redis/client';

/** A plain client of the test server (its type is node-redis's default client). */
function testClient(port: number, password?: string) {
  const c = createClient({ socket: { host: '127.0.0.1', port, reconnectStrategy: false }, password });
  c.on('error', () => undefined);
  return c;
}
export type TestRedisClient = ReturnType<typeof testClient>;
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { ChildServer, findCommand, freePort, removeDir, tempDir } from './child-server.js';

export interface RedisServerHandle {
  port: number;
  password: string;
  /** A connected client of the server for reading back what a transport wrote. */
  client: () => Promise<TestRedisClient>;
  /** Stops the server (tests of a server that went away); afterAll stops it anyway. */
  stop: () => Promise<void>;
}

/** Starts redis-server with `requirepass password`, on `port` (to restart one) or a free port. */
export async function startRedisServer(opts: { password?: string; port?: number } = {}): Promise<RedisServerHandle> {
  const password = opts.password ?? 'redis-test-pass';
  const port = opts.port ?? (await freePort());
  const dir = tempDir('redis');
  const conf = join(dir, 'redis.conf');
  const lines = [`port ${port}`, 'bind 127.0.0.1', `dir ${dir}`, 'save ""', 'appendonly no', `requirepass ${password}`];
  writeFileSync(conf, `${lines.join('\n')}\n`);
  const server = new ChildServer({
    name: 'redis-server',
    command: findCommand('redis-server'),
    args: [conf],
  });
  const clients: TestRedisClient[] = [];
  const client = async (): Promise<TestRedisClient> => {
    const c = testClient(port, password);
    await c.connect();
    clients.push(c);
    return c;
  };
  await server.waitReady(async () => {
    const c = testClient(port, password);
    try {
      await c.connect();
      return (await c.ping()) === 'PONG';
    } finally {
      c.destroy();
    }
  }, 20_000);
  return {
    port,
    password,
    client,
    stop: async () => {
      for (const c of clients.splice(0)) if (c.isOpen) c.destroy();
      await server.stop();
      removeDir(dir);
    },
  };
}

/** One redis-server for the calling test file, started in beforeAll and stopped in afterAll. */
export function useRedisServer(): { get: () => RedisServerHandle } {
  let handle: RedisServerHandle | undefined;
  beforeAll(async () => {
    handle = await startRedisServer();
  }, 30_000);
  afterAll(() => handle?.stop());
  return {
    get: () => {
      if (!handle) throw new Error('redis-server not started');
      return handle;
    },
  };
}
