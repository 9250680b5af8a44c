// A real nats-server (Debian package `nats-server`) for notification tests: loopback, a free port, JetStream with
// its store in a temp dir, user/password or token auth; ready once a real client connects and flushes.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll } from 'vitest';
import { ChildServer, findCommand, freePort, removeDir, tempDir } from './child-server.js';

export type NatsAuth = { user: string; pass: string } | { token: string };

export interface NatsServerHandle {
  port: number;
  auth: NatsAuth;
  /** A connected client for subscribing and managing streams; closed when the server stops. */
  client: () => Promise<NatsConnection>;
  stop: () => Promise<void>;
}

/** Starts nats-server with JetStream and the given auth, on `port` (to restart one) or a free port. */
export async function startNatsServer(auth: NatsAuth, opts: { port?: number } = {}): Promise<NatsServerHandle> {
  const port = opts.port ?? (await freePort());
  const dir = tempDir('nats');
  const authBlock =
    'token' in auth
      ? `authorization { token: ${JSON.stringify(auth.token)} }`
      : `authorization { user: ${JSON.stringify(auth.user)}, password: ${JSON.stringify(auth.pass)} }`;
  const conf = join(dir, 'nats.conf');
  writeFileSync(
    conf,
    [`listen: "127.0.0.1:${port}"`, `jetstream { store_dir: ${JSON.stringify(join(dir, 'js'))} }`, authBlock].join(
      '\n',
    ),
  );
  const server = new ChildServer({ name: 'nats-server', command: findCommand('nats-server'), args: ['-c', conf] });
  const credentials = 'token' in auth ? { token: auth.token } : { user: auth.user, pass: auth.pass };
  const clients: NatsConnection[] = [];
  const client = async (): Promise<NatsConnection> => {
    const nc = await connect({ servers: `127.0.0.1:${port}`, reconnect: false, ...credentials });
    clients.push(nc);
    return nc;
  };
  await server.waitReady(async () => {
    const nc = await connect({ servers: `127.0.0.1:${port}`, reconnect: false, timeout: 1000, ...credentials });
    try {
      await nc.flush();
      return true;
    } finally {
      await nc.close();
    }
  }, 20_000);
  return {
    port,
    auth,
    client,
    stop: async () => {
      for (const nc of clients.splice(0)) if (!nc.isClosed()) await nc.close();
      await server.stop();
      removeDir(dir);
    },
  };
}

/** One nats-server for the calling test file (or describe block), started in beforeAll, stopped in afterAll. */
export function useNatsServer(auth: NatsAuth): { get: () => NatsServerHandle } {
  let handle: NatsServerHandle | undefined;
  beforeAll(async () => {
    handle = await startNatsServer(auth);
  }, 30_000);
  afterAll(() => handle?.stop());
  return {
    get: () => {
      if (!handle) throw new Error('nats-server not started');
      return handle;
    },
  };
}
