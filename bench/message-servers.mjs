// @ts-check
// The message servers bucket notifications are delivered to (`--notify-ab`, `--notify-cost`): redis-server,
// nats-server, mosquitto, rabbitmq-server and postgres from the Debian packages, each a child process on a free
// 127.0.0.1 port with a temp dir, ready once a real client handshakes, and stopped and removed by the bench's
// cleanup() (also on Ctrl-C and on failure). Settings as test/helpers/notification-servers/*.ts.

import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { accessSync, chownSync, constants, existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { freePort, onCleanup } from './servers.mjs';

/**
 * A running message server: its pid (the CPU of its process tree is its cost), the notification target settings
 * that reach it (docs/notifications.md, "Target kinds"), and how many messages it holds (undefined where it keeps
 * none to count: MQTT without a subscriber).
 * @typedef {{ kind: string, pid: number, config: Record<string, unknown>, count: () => Promise<number | undefined> }}
 *   MessageServer
 */

export const MESSAGE_KINDS = /** @type {const} */ (['redis', 'nats', 'amqp', 'mqtt', 'postgres']);
const USER = 'store';
const PASSWORD = `bench-${randomBytes(12).toString('hex')}`;
const READY_MS = { default: 30_000, amqp: 150_000 };

/** An installed command; Debian puts nats-server and mosquitto in /usr/sbin. @param {string} name */
function findCommand(name) {
  for (const dir of [...(process.env.PATH ?? '').split(':'), '/usr/sbin', '/sbin'].filter(Boolean)) {
    try {
      accessSync(path.join(dir, name), constants.X_OK);
      return path.join(dir, name);
    } catch {
      /* not here */
    }
  }
  throw new Error(`${name} is not installed (see system_packages in .ci/run)`);
}

/**
 * Spawns one server process (its dir removed when it stops) and waits until `probe` resolves; cleanup() stops it.
 * @param {{ name: string, command: string, args: string[], dir: string, env?: NodeJS.ProcessEnv, uid?: number,
 *   gid?: number, probe: () => Promise<unknown>, readyMs?: number, graceMs?: number }} o
 */
async function spawnServer({ name, command, args, dir, env, uid, gid, probe, readyMs = READY_MS.default, graceMs }) {
  const child = spawn(command, args, {
    cwd: dir,
    env: env ?? process.env,
    uid,
    gid,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let tail = '';
  /** @type {string | undefined} */ let exit;
  const keep = (/** @type {Buffer} */ b) => void (tail = (tail + b.toString('utf8')).slice(-4000));
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise((resolve) => {
    child.once('error', (err) => resolve((exit = `failed to start: ${err.message}`)));
    child.once('exit', (code, signal) => resolve((exit = signal ? `killed by ${signal}` : `exited with ${code}`)));
  });
  const stop = async () => {
    if (!exit) {
      // PostgreSQL's SIGTERM waits for clients to leave; SIGINT is its fast shutdown.
      child.kill(name === 'postgres' ? 'SIGINT' : 'SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs ?? 10_000);
      await exited;
      clearTimeout(timer);
    }
    await rm(dir, { recursive: true, force: true });
  };
  onCleanup({
    stop,
    killNow: () => {
      if (!exit) child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  });
  const deadline = Date.now() + readyMs;
  for (let last = 'not probed'; ; await new Promise((r) => setTimeout(r, 100))) {
    if (exit) throw new Error(`${name} ${exit} before it was ready:\n${tail}`);
    if (Date.now() > deadline) throw new Error(`${name} not ready after ${readyMs} ms (${last}):\n${tail}`);
    try {
      await probe();
      return /** @type {number} */ (child.pid);
    } catch (err) {
      last = err instanceof Error ? err.message : String(err);
    }
  }
}

/** Whether something accepts connections on 127.0.0.1:port. @param {number} port */
const listening = (port) =>
  new Promise((resolve, reject) => {
    const s = net.connect({ host: '127.0.0.1', port }, () => resolve(s.destroy()));
    s.once('error', reject);
  });

/** @param {string} tmpDir @param {string} dir */
async function redis(tmpDir, dir) {
  const { createClient } = await import('@redis/client');
  const port = await freePort();
  const conf = path.join(dir, 'redis.conf');
  const lines = [`port ${port}`, 'bind 127.0.0.1', `dir ${dir}`, 'save ""', 'appendonly no', `requirepass ${PASSWORD}`];
  writeFileSync(conf, `${lines.join('\n')}\n`);
  /** @param {(c: { ping: () => Promise<string>, lLen: (key: string) => Promise<number> }) => Promise<unknown>} use */
  const withClient = async (use) => {
    const c = createClient({ socket: { host: '127.0.0.1', port, reconnectStrategy: false }, password: PASSWORD });
    c.on('error', () => undefined);
    await c.connect();
    try {
      return await use(c);
    } finally {
      c.destroy();
    }
  };
  const pid = await spawnServer({
    name: 'redis-server',
    command: findCommand('redis-server'),
    args: [conf],
    dir,
    probe: () => withClient(async (c) => ((await c.ping()) === 'PONG' ? true : Promise.reject(new Error('no PONG')))),
  });
  const config = { url: `redis://127.0.0.1:${port}/0`, key: 'store:events', format: 'list', password: PASSWORD };
  return { pid, config, count: async () => Number(await withClient((c) => c.lLen('store:events'))) };
}

/** nats-server with JetStream; a file stream captures the subject, so every delivery is acknowledged and counted. */
async function nats(/** @type {string} */ tmpDir, /** @type {string} */ dir) {
  const { connect } = await import('@nats-io/transport-node');
  const { jetstreamManager } = await import('@nats-io/jetstream');
  const port = await freePort();
  const conf = path.join(dir, 'nats.conf');
  const auth = `authorization { user: ${USER}, password: ${JSON.stringify(PASSWORD)} }`;
  writeFileSync(
    conf,
    [`listen: "127.0.0.1:${port}"`, `jetstream { store_dir: ${JSON.stringify(dir)} }`, auth].join('\n'),
  );
  /** @param {(nc: import('@nats-io/transport-node').NatsConnection) => Promise<unknown>} use */
  const withClient = async (use) => {
    const nc = await connect({
      servers: `127.0.0.1:${port}`,
      reconnect: false,
      timeout: 2000,
      user: USER,
      pass: PASSWORD,
    });
    try {
      return await use(nc);
    } finally {
      await nc.close();
    }
  };
  const pid = await spawnServer({
    name: 'nats-server',
    command: findCommand('nats-server'),
    args: ['-c', conf],
    dir,
    probe: () => withClient((nc) => nc.flush()),
  });
  await withClient(async (nc) =>
    (await jetstreamManager(nc)).streams.add({ name: 'STORE_EVENTS', subjects: ['store.events'] }),
  );
  const config = { url: `nats://127.0.0.1:${port}`, subject: 'store.events', username: USER, password: PASSWORD };
  const count = async () =>
    Number(
      await withClient(async (nc) => (await (await jetstreamManager(nc)).streams.info('STORE_EVENTS')).state.messages),
    );
  return { pid, config, count };
}

/** mosquitto with one user; QoS 1, so a delivery succeeds on the broker's PUBACK. Nothing to count. */
async function mqtt(/** @type {string} */ tmpDir, /** @type {string} */ dir) {
  const { connectAsync } = await import('mqtt');
  const port = await freePort();
  const passwd = path.join(dir, 'passwd');
  execFileSync(findCommand('mosquitto_passwd'), ['-b', '-c', passwd, USER, PASSWORD], { stdio: 'ignore' });
  const lines = [`listener ${port} 127.0.0.1`, 'allow_anonymous false', `password_file ${passwd}`, 'persistence false'];
  // As root mosquitto drops to the `mosquitto` user, which cannot read a root-owned temp dir.
  if (process.getuid?.() === 0) lines.push('user root');
  writeFileSync(path.join(dir, 'mosquitto.conf'), `${lines.join('\n')}\n`);
  const url = `mqtt://127.0.0.1:${port}`;
  const pid = await spawnServer({
    name: 'mosquitto',
    command: findCommand('mosquitto'),
    args: ['-c', path.join(dir, 'mosquitto.conf')],
    dir,
    probe: async () =>
      (
        await connectAsync(url, { username: USER, password: PASSWORD, reconnectPeriod: 0, connectTimeout: 1000 }, false)
      ).endAsync(true),
  });
  return {
    pid,
    config: { url, topic: 'store/events', username: USER, password: PASSWORD },
    count: async () => undefined,
  };
}

/** RabbitMQ with its own epmd, node name and cookie (HOME) in the temp dir; the exchange and a bound queue declared. */
async function amqp(/** @type {string} */ tmpDir, /** @type {string} */ dir) {
  const amqplib = await import('amqplib');
  const [port, distPort, epmdPort] = [await freePort(), await freePort(), await freePort()];
  const conf = path.join(dir, 'rabbitmq.conf');
  const lines = [`listeners.tcp.default = 127.0.0.1:${port}`, `default_user = ${USER}`, `default_pass = ${PASSWORD}`];
  writeFileSync(conf, `${[...lines, 'loopback_users = none', 'log.console = true', 'log.file = false'].join('\n')}\n`);
  writeFileSync(path.join(dir, 'enabled_plugins'), '[].\n');
  const epmdDir = await mkdtemp(path.join(tmpDir, 'store-bench-epmd-'));
  await spawnServer({
    name: 'epmd',
    command: findCommand('epmd'),
    args: ['-port', String(epmdPort), '-address', '127.0.0.1'],
    dir: epmdDir,
    probe: () => listening(epmdPort),
  });
  const env = {
    ...process.env,
    HOME: dir,
    ERL_EPMD_PORT: String(epmdPort),
    RABBITMQ_NODENAME: `rabbit-${randomBytes(4).toString('hex')}@localhost`,
    RABBITMQ_NODE_IP_ADDRESS: '127.0.0.1',
    RABBITMQ_NODE_PORT: String(port),
    RABBITMQ_DIST_PORT: String(distPort),
    RABBITMQ_CONFIG_FILE: conf,
    RABBITMQ_CONF_ENV_FILE: path.join(dir, 'rabbitmq-env.conf'),
    RABBITMQ_ENABLED_PLUGINS_FILE: path.join(dir, 'enabled_plugins'),
    RABBITMQ_PLUGINS_EXPAND_DIR: path.join(dir, 'plugins-expand'),
    RABBITMQ_MNESIA_BASE: path.join(dir, 'mnesia'),
    RABBITMQ_LOG_BASE: path.join(dir, 'log'),
  };
  const url = `amqp://${USER}:${encodeURIComponent(PASSWORD)}@127.0.0.1:${port}`;
  /** @param {(ch: import('amqplib').Channel) => Promise<unknown>} use */
  const withChannel = async (use) => {
    const c = await amqplib.connect(url, { timeout: 2000 });
    try {
      return await use(await c.createChannel());
    } finally {
      await c.close().catch(() => undefined);
    }
  };
  const pid = await spawnServer({
    name: 'rabbitmq-server',
    command: '/usr/lib/rabbitmq/bin/rabbitmq-server',
    args: [],
    dir,
    env,
    readyMs: READY_MS.amqp,
    graceMs: 30_000,
    probe: () => withChannel(async () => true),
  });
  // Store declares nothing and an unroutable message fails its delivery (docs/notifications.md, "AMQP").
  await withChannel(async (ch) => {
    await ch.assertExchange('store-events', 'topic', { durable: true });
    await ch.assertQueue('bench-events', { durable: true });
    await ch.bindQueue('bench-events', 'store-events', '#');
  });
  const config = { url: `amqp://127.0.0.1:${port}/`, exchange: 'store-events', routingKey: 'bench.objects' };
  const count = async () => Number(await withChannel(async (ch) => (await ch.checkQueue('bench-events')).messageCount));
  return { pid, config: { ...config, username: USER, password: PASSWORD }, count };
}

/** initdb + postgres (as the `postgres` user when root), scram over TCP, a database `events` owned by the user. */
async function postgres(/** @type {string} */ tmpDir, /** @type {string} */ dir) {
  const { default: pg } = await import('pg');
  const root = '/usr/lib/postgresql';
  const major = (existsSync(root) ? readdirSync(root) : []).filter((d) => /^\d+$/.test(d)).sort((a, b) => +b - +a)[0];
  if (!major) throw new Error('PostgreSQL is not installed (apt-get install postgresql)');
  const bin = path.join(root, major, 'bin');
  const id = (/** @type {string} */ flag) =>
    Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  const owner = process.getuid?.() === 0 ? { uid: id('-u'), gid: id('-g') } : {};
  if (owner.uid !== undefined) chownSync(dir, owner.uid, /** @type {number} */ (owner.gid));
  const pwfile = path.join(dir, 'pwfile');
  writeFileSync(pwfile, `${PASSWORD}\n`, { mode: 0o600 });
  if (owner.uid !== undefined) chownSync(pwfile, owner.uid, /** @type {number} */ (owner.gid));
  const data = path.join(dir, 'data');
  const initArgs = ['-D', data, '-U', USER, `--pwfile=${pwfile}`, '--auth-local=trust', '--auth-host=scram-sha-256'];
  execFileSync(path.join(bin, 'initdb'), [...initArgs, '--no-sync'], { ...owner, stdio: 'pipe', cwd: dir });
  const port = await freePort();
  /** @param {string} database @param {(c: import('pg').Client) => Promise<unknown>} use */
  const withClient = async (database, use) => {
    const c = new pg.Client({ host: '127.0.0.1', port, user: USER, password: PASSWORD, database });
    c.on('error', () => undefined);
    try {
      await c.connect();
      return await use(c);
    } finally {
      await c.end().catch(() => undefined);
    }
  };
  const pid = await spawnServer({
    name: 'postgres',
    command: path.join(bin, 'postgres'),
    // Durable as shipped (fsync on): a delivery succeeds once its statement committed.
    args: ['-D', data, '-p', String(port), '-h', '127.0.0.1', '-k', dir],
    dir,
    ...owner,
    probe: () => withClient('postgres', (c) => c.query('SELECT 1')),
  });
  await withClient('postgres', (c) => c.query(`CREATE DATABASE events OWNER ${USER}`));
  const table = 'store_events';
  const config = { host: '127.0.0.1', port, database: 'events', user: USER, password: PASSWORD, table };
  const count = async () =>
    Number(
      await withClient('events', async (c) => {
        const { rows } = await c.query(`SELECT to_regclass('${table}') IS NOT NULL AS e`);
        return rows[0]?.e ? (await c.query(`SELECT count(*)::int AS n FROM ${table}`)).rows[0]?.n : 0;
      }),
    );
  return { pid, config: { ...config, format: 'access' }, count };
}

const STARTERS = { redis, nats, amqp, mqtt, postgres };

/**
 * Starts one message server of `kind` under `tmpDir`; cleanup() stops it and removes its dir.
 * @param {typeof MESSAGE_KINDS[number]} kind @param {string} tmpDir @returns {Promise<MessageServer>}
 */
export async function startMessageServer(kind, tmpDir) {
  const dir = await mkdtemp(path.join(tmpDir, `store-bench-${kind}-`));
  return { kind, ...(await STARTERS[kind](tmpDir, dir)) };
}
