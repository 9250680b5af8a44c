// Zero-config starts for tests: `store serve --init` with no secrets in the environment, the credentials it prints
// once read back from its output.

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDotenv } from '../../src/config/dotenv.js';
import { spawnServer, type RunningServer } from './server.js';

/** What a first start printed (each only when it was generated). */
export interface Announced {
  adminPassword?: string;
  accessKeyId?: string;
  secretAccessKey?: string;
}

export function announced(output: string): Announced {
  const password = /Admin console login:\s+\S+ \/ (\S+)/.exec(output)?.[1];
  const keyId = /S3 access key id:\s+(\S+)/.exec(output)?.[1];
  const secret = /S3 secret access key:\s+(\S+)/.exec(output)?.[1];
  return {
    ...(password ? { adminPassword: password } : {}),
    ...(keyId ? { accessKeyId: keyId } : {}),
    ...(secret ? { secretAccessKey: secret } : {}),
  };
}

/** DATA_DIR/secrets.env as key/value pairs ({} when there is none). */
export function secretsFile(dataDir: string): Record<string, string> {
  const file = join(dataDir, 'secrets.env');
  return existsSync(file) ? parseDotenv(readFileSync(file, 'utf8')) : {};
}

/** The environment of a zero-config start: where and how to listen, no credentials. */
export function zeroConfigEnv(dataDir: string, extra: Record<string, string> = {}): Record<string, string> {
  return { DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', SHUTDOWN_DRAIN_MS: '10000', ...extra };
}

/**
 * `store serve --init` (or `args`) on `dataDir`, keeping it when stopped. Its credentials are what it printed, else
 * what the environment gave, else what secrets.env holds (the password only if printed or `adminPassword` is given).
 */
export async function startZeroConfig(
  dataDir: string,
  opts: { env?: Record<string, string>; args?: string[]; adminPassword?: string; command?: string[] } = {},
): Promise<RunningServer & { announced: Announced }> {
  const env = zeroConfigEnv(dataDir, opts.env);
  let said: Announced = {};
  const credentials = { accessKeyId: '', secretAccessKey: '', adminPassword: opts.adminPassword ?? '' };
  const server = await spawnServer(env, credentials, {
    keepDataDir: true,
    args: opts.args ?? ['--init'],
    ...(opts.command ? { command: opts.command } : {}),
  });
  said = announced(server.output());
  const file = secretsFile(dataDir);
  credentials.accessKeyId = said.accessKeyId ?? env['ROOT_ACCESS_KEY_ID'] ?? file['ROOT_ACCESS_KEY_ID'] ?? '';
  credentials.secretAccessKey =
    said.secretAccessKey ?? env['ROOT_SECRET_ACCESS_KEY'] ?? file['ROOT_SECRET_ACCESS_KEY'] ?? '';
  credentials.adminPassword = said.adminPassword ?? credentials.adminPassword;
  return Object.assign(server, { announced: said });
}
