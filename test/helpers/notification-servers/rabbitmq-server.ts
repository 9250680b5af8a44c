// A real RabbitMQ (Debian package `rabbitmq-server`) for notification tests: its own epmd and node name on free
// loopback ports, mnesia, logs and Erlang cookie in a temp dir, no plugins, one user; ready once a real AMQP client
// logs in. RabbitMQ takes 10-30 s to boot, so each test file shares one broker (useRabbitMq).

import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { connect as tcpConnect } from 'node:net';
import { join } from 'node:path';
import { connect, type ChannelModel } from 'amqplib';
import { afterAll, beforeAll } from 'vitest';
import { ChildServer, findCommand, freePort, removeDir, tempDir } from './child-server.js';

/** Generous for a loaded 2-core machine, but bounded. */
const READY_TIMEOUT_MS = 150_000;

export interface RabbitMqHandle {
  port: number;
  username: string;
  password: string;
  /** A connected client for declaring and reading queues; closed when the broker stops. */
  client: () => Promise<ChannelModel>;
  stop: () => Promise<void>;
}

/** Whether something accepts TCP connections on 127.0.0.1:port. */
function isListening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = tcpConnect({ host: '127.0.0.1', port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

/** Starts epmd and a RabbitMQ node with one user (`loopback_users = none`: it may log in over 127.0.0.1). */
export async function startRabbitMq(username = 'store', password = 'amqp-Secret-2236'): Promise<RabbitMqHandle> {
  const dir = tempDir('rabbitmq');
  const [port, distPort, epmdPort] = [await freePort(), await freePort(), await freePort()];
  const conf = join(dir, 'rabbitmq.conf');
  writeFileSync(
    conf,
    [
      `listeners.tcp.default = 127.0.0.1:${port}`,
      `default_user = ${username}`,
      `default_pass = ${password}`,
      'loopback_users = none',
      'log.console = true',
      'log.file = false',
    ].join('\n') + '\n',
  );
  writeFileSync(join(dir, 'enabled_plugins'), '[].\n');
  // A private epmd in the foreground, so stopping the test stops it too (RabbitMQ would start a daemon otherwise).
  const epmd = new ChildServer({
    name: 'epmd',
    command: findCommand('epmd'),
    args: ['-port', String(epmdPort), '-address', '127.0.0.1'],
  });
  await epmd.waitReady(() => isListening(epmdPort), 10_000);
  const server = new ChildServer({
    name: 'rabbitmq-server',
    command: '/usr/lib/rabbitmq/bin/rabbitmq-server',
    args: [],
    cwd: dir,
    env: {
      ...process.env,
      HOME: dir, // the Erlang cookie goes here
      ERL_EPMD_PORT: String(epmdPort),
      RABBITMQ_NODENAME: `rabbit-${randomBytes(4).toString('hex')}@localhost`,
      RABBITMQ_NODE_IP_ADDRESS: '127.0.0.1',
      RABBITMQ_NODE_PORT: String(port),
      RABBITMQ_DIST_PORT: String(distPort),
      RABBITMQ_CONFIG_FILE: conf,
      RABBITMQ_CONF_ENV_FILE: join(dir, 'rabbitmq-env.conf'),
      RABBITMQ_ENABLED_PLUGINS_FILE: join(dir, 'enabled_plugins'),
      RABBITMQ_PLUGINS_EXPAND_DIR: join(dir, 'plugins-expand'),
      RABBITMQ_MNESIA_BASE: join(dir, 'mnesia'),
      RABBITMQ_LOG_BASE: join(dir, 'log'),
    },
  });
  const url = `amqp://${encodeURIComponent(username)}:${encodeURIComponent(password)}@127.0.0.1:${port}`;
  const clients: ChannelModel[] = [];
  const stop = async (): Promise<void> => {
    for (const c of clients.splice(0)) await c.close().catch(() => undefined);
    await server.stop(30_000);
    await epmd.stop();
    removeDir(dir);
  };
  try {
    await server.waitReady(async () => {
      if (!(await isListening(port))) return false;
      const c = await connect(url, { timeout: 2000 });
      await c.close();
      return true;
    }, READY_TIMEOUT_MS);
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    port,
    username,
    password,
    client: async () => {
      const c = await connect(url);
      c.on('error', () => undefined);
      clients.push(c);
      return c;
    },
    stop,
  };
}

/** One broker for the calling test file, started in beforeAll and stopped in afterAll. */
export function useRabbitMq(): { get: () => RabbitMqHandle } {
  let handle: RabbitMqHandle | undefined;
  beforeAll(async () => {
    handle = await startRabbitMq();
  }, READY_TIMEOUT_MS + 30_000);
  afterAll(() => handle?.stop(), 60_000);
  return {
    get: () => {
      if (!handle) throw new Error('rabbitmq-server not started');
      return handle;
    },
  };
}
