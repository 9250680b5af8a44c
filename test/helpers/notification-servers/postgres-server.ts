// A real PostgreSQL (Debian package `postgresql`) for notification tests: initdb into a temp dir, then `postgres -D`
// on loopback with a free port and the unix socket in the temp dir, password (scram) auth over TCP; ready once a real
// client logs in. PostgreSQL refuses to run as root, so as root it runs as the `postgres` system user.

import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { ChildServer, freePort, removeDir, tempDir } from './child-server.js';

export interface PostgresHandle {
  port: number;
  user: string;
  password: string;
  database: string;
  /** A connected client for reading tables back; ended when the server stops. */
  client: () => Promise<pg.Client>;
  stop: () => Promise<void>;
}

/** The newest installed server's bin directory (/usr/lib/postgresql/<major>/bin). */
function pgBin(): string {
  const root = '/usr/lib/postgresql';
  const majors = existsSync(root) ? readdirSync(root).filter((d) => /^\d+$/.test(d)) : [];
  const newest = majors.sort((a, b) => Number(b) - Number(a))[0];
  if (!newest) throw new Error('PostgreSQL is not installed (apt-get install postgresql)');
  return join(root, newest, 'bin');
}

/** uid/gid to run as: the current user, or `postgres` when that is root. */
function runAs(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string): number => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

/** initdb + postgres with one superuser `user`/`password` and its database. */
export async function startPostgres(user = 'store', password = 'pg-Secret-1618'): Promise<PostgresHandle> {
  const bin = pgBin();
  const owner = runAs();
  const port = await freePort();
  const dir = tempDir('postgres', owner);
  const data = join(dir, 'data');
  const pwfile = join(dir, 'pwfile');
  writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
  if (owner) chownSync(pwfile, owner.uid, owner.gid);
  const asOwner = owner ? { uid: owner.uid, gid: owner.gid } : {};
  execFileSync(
    join(bin, 'initdb'),
    ['-D', data, '-U', user, `--pwfile=${pwfile}`, '--auth-local=trust', '--auth-host=scram-sha-256', '--no-sync'],
    { ...asOwner, stdio: 'pipe', cwd: dir },
  );
  const server = new ChildServer({
    name: 'postgres',
    command: join(bin, 'postgres'),
    // fsync off: a throwaway test database; the socket lives in the temp dir, not /var/run/postgresql.
    args: ['-D', data, '-p', String(port), '-h', '127.0.0.1', '-k', dir, '-c', 'fsync=off'],
    cwd: dir,
    ...asOwner,
  });
  const database = 'postgres';
  const connect = async (): Promise<pg.Client> => {
    const c = new pg.Client({ host: '127.0.0.1', port, user, password, database, connectionTimeoutMillis: 2000 });
    c.on('error', () => undefined);
    try {
      await c.connect();
      return c;
    } catch (err) {
      await c.end().catch(() => undefined);
      throw err;
    }
  };
  const clients: pg.Client[] = [];
  await server.waitReady(async () => {
    const c = await connect();
    await c.end();
    return true;
  }, 30_000);
  return {
    port,
    user,
    password,
    database,
    client: async () => {
      const c = await connect();
      clients.push(c);
      return c;
    },
    stop: async () => {
      for (const c of clients.splice(0)) await c.end().catch(() => undefined);
      // SIGTERM is PostgreSQL's "smart" shutdown; SIGINT ("fast") does not wait for clients.
      server.child.kill('SIGINT');
      await server.stop();
      removeDir(dir);
    },
  };
}

/** One PostgreSQL for the calling test file, started in beforeAll and stopped in afterAll. */
export function usePostgres(): { get: () => PostgresHandle } {
  let handle: PostgresHandle | undefined;
  beforeAll(async () => {
    handle = await startPostgres();
  }, 60_000);
  afterAll(() => handle?.stop());
  return {
    get: () => {
      if (!handle) throw new Error('postgres not started');
      return handle;
    },
  };
}
