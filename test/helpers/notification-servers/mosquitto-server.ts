// A real mosquitto broker (Debian package `mosquitto`) for notification tests: loopback, a free port, a temp dir
// with a password file, anonymous clients refused; ready once a real client authenticates.

import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connectAsync, type MqttClient } from 'mqtt';
import { afterAll, beforeAll } from 'vitest';
import { ChildServer, findCommand, freePort, removeDir, tempDir } from './child-server.js';

export interface MosquittoHandle {
  port: number;
  username: string;
  password: string;
  /** A connected client for subscribing; ended when the broker stops. */
  client: () => Promise<MqttClient>;
  stop: () => Promise<void>;
}

/** Starts mosquitto with one user. */
export async function startMosquitto(username = 'store', password = 'mqtt-Secret-3141'): Promise<MosquittoHandle> {
  const port = await freePort();
  const dir = tempDir('mosquitto');
  const passwd = join(dir, 'passwd');
  execFileSync(findCommand('mosquitto_passwd'), ['-b', '-c', passwd, username, password], { stdio: 'ignore' });
  const lines = [
    `listener ${port} 127.0.0.1`,
    'allow_anonymous false',
    `password_file ${passwd}`,
    'persistence false',
    'log_dest stdout',
    // Run as root, mosquitto drops to the `mosquitto` user, which cannot read a root-owned temp dir.
    ...(process.getuid?.() === 0 ? ['user root'] : []),
  ];
  const conf = join(dir, 'mosquitto.conf');
  writeFileSync(conf, `${lines.join('\n')}\n`);
  const server = new ChildServer({ name: 'mosquitto', command: findCommand('mosquitto'), args: ['-c', conf] });
  const url = `mqtt://127.0.0.1:${port}`;
  const clients: MqttClient[] = [];
  const client = async (): Promise<MqttClient> => {
    const c = await connectAsync(url, { username, password, reconnectPeriod: 0 }, false);
    clients.push(c);
    return c;
  };
  await server.waitReady(async () => {
    const c = await connectAsync(url, { username, password, reconnectPeriod: 0, connectTimeout: 1000 }, false);
    await c.endAsync(true);
    return true;
  }, 20_000);
  return {
    port,
    username,
    password,
    client,
    stop: async () => {
      for (const c of clients.splice(0)) await c.endAsync(true);
      await server.stop();
      removeDir(dir);
    },
  };
}

/** One broker for the calling test file, started in beforeAll and stopped in afterAll. */
export function useMosquitto(): { get: () => MosquittoHandle } {
  let handle: MosquittoHandle | undefined;
  beforeAll(async () => {
    handle = await startMosquitto();
  }, 30_000);
  afterAll(() => handle?.stop());
  return {
    get: () => {
      if (!handle) throw new Error('mosquitto not started');
      return handle;
    },
  };
}
