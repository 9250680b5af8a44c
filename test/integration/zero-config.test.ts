// Zero-config starts (`store serve --init`): an empty data directory and no secrets give generated credentials, saved
// in DATA_DIR/secrets.env (0600) and printed once; later starts reuse them and print nothing; given values are used
// as given and a weak one still refuses; without --init, or into a data directory --init did not set up, nothing is
// generated and a missing secret refuses boot as the spec says; deleting a line and restarting replaces that value.

import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { CreateBucketCommand, ListBucketsCommand, type S3Client } from '@aws-sdk/client-s3';
import { afterAll, describe, expect, it } from 'vitest';
import { formatDotenv } from '../../src/config/dotenv.js';
import { randomSecret } from '../../src/cli/init.js';
import { login } from '../helpers/admin-flow.js';
import { sdkClient } from '../helpers/clients.js';
import { runServeExpectingExit, tempDir, testCredentials, type RunningServer } from '../helpers/server.js';
import { secretsFile, startZeroConfig, zeroConfigEnv } from '../helpers/zero-config.js';

const roots: string[] = [];
afterAll(() => {
  for (const dir of roots) rmSync(dir, { recursive: true, force: true });
});

function freshDataDir(): string {
  const root = tempDir('store-zero-');
  roots.push(root);
  return join(root, 'data');
}

async function bucketNames(
  server: RunningServer,
  creds?: { accessKeyId: string; secretAccessKey: string },
): Promise<string[]> {
  const s3: S3Client = sdkClient(server, creds);
  try {
    return ((await s3.send(new ListBucketsCommand({}))).Buckets ?? []).map((b) => b.Name ?? '');
  } finally {
    s3.destroy();
  }
}

/** The JSON log lines of an output (the announcement and the banner are plain text). */
const logLines = (output: string): string =>
  output
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .join('\n');

describe('store serve --init on an empty data directory', () => {
  it('generates credentials, saves them 0600, prints them once, and reuses them on every later start', async () => {
    const dataDir = freshDataDir();
    const first = await startZeroConfig(dataDir);
    let secrets: Record<string, string>;
    try {
      const said = first.announced;
      expect(said.adminPassword).toMatch(/^[A-Za-z0-9_-]{24}$/);
      expect(said.accessKeyId).toMatch(/^[A-Z0-9]{20}$/);
      expect(said.secretAccessKey?.length).toBeGreaterThanOrEqual(40);
      const file = join(dataDir, 'secrets.env');
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(statSync(dataDir).mode & 0o777).toBe(0o700);
      secrets = secretsFile(dataDir);
      expect(Object.keys(secrets).sort()).toEqual([
        'ADMIN_PASSWORD_HASH',
        'JWT_SECRET',
        'KEY_ENCRYPTION_SECRET',
        'ROOT_ACCESS_KEY_ID',
        'ROOT_SECRET_ACCESS_KEY',
      ]);
      expect(secrets['ROOT_SECRET_ACCESS_KEY']).toBe(said.secretAccessKey);
      expect(JSON.stringify(secrets)).not.toContain(said.adminPassword); // only its hash is kept
      // The printed keys work for S3 and the printed password for the console.
      const s3 = sdkClient(first);
      await s3.send(new CreateBucketCommand({ Bucket: 'zero-config' }));
      s3.destroy();
      expect((await login(first)).status).toBe(200);
      // Printed once, as plain text: no JSON log line carries any of them.
      for (const value of [
        said.adminPassword,
        said.secretAccessKey,
        secrets['JWT_SECRET'],
        secrets['KEY_ENCRYPTION_SECRET'],
      ]) {
        expect(logLines(first.output())).not.toContain(value);
      }
      expect(first.output()).not.toContain(secrets['JWT_SECRET']);
    } finally {
      expect(await first.stop()).toBe(0);
    }

    // Later starts, with --init and without: the same credentials, nothing printed, the file unchanged.
    for (const args of [['--init'], []]) {
      const again = await startZeroConfig(dataDir, { args, adminPassword: first.credentials.adminPassword });
      try {
        expect(again.announced).toEqual({});
        expect(again.output()).not.toContain(first.credentials.secretAccessKey);
        expect(await bucketNames(again)).toEqual(['zero-config']);
        expect((await login(again)).status).toBe(200);
        expect(secretsFile(dataDir)).toEqual(secrets);
      } finally {
        await again.stop();
      }
    }
  });

  it("uses the root keys given in the environment (a CI's fixed credentials) and generates only the rest", async () => {
    const dataDir = freshDataDir();
    const given = await testCredentials();
    const env = { ROOT_ACCESS_KEY_ID: given.accessKeyId, ROOT_SECRET_ACCESS_KEY: given.secretAccessKey };
    const server = await startZeroConfig(dataDir, { env });
    try {
      expect(server.announced.accessKeyId).toBeUndefined();
      expect(server.output()).not.toContain(given.secretAccessKey);
      expect(server.announced.adminPassword).toBeDefined();
      expect(Object.keys(secretsFile(dataDir)).sort()).toEqual([
        'ADMIN_PASSWORD_HASH',
        'JWT_SECRET',
        'KEY_ENCRYPTION_SECRET',
      ]);
      expect(await bucketNames(server, given)).toEqual([]);
    } finally {
      await server.stop();
    }
  });

  it('refuses a weak given value as the spec says, and writes nothing', async () => {
    const dataDir = freshDataDir();
    const refused = await runServeExpectingExit(
      zeroConfigEnv(dataDir, { JWT_SECRET: 'changeme-changeme-changeme-changeme' }),
      60_000,
      ['--init'],
    );
    expect(refused.code).toBe(78);
    expect(refused.output).toMatch(/JWT_SECRET .*placeholder/);
    expect(refused.output).not.toMatch(/Admin console login|S3 secret access key/);
    expect(existsSync(dataDir) ? readdirSync(dataDir) : []).toEqual([]);
  });

  it('refuses half a root key pair rather than generating the other half', async () => {
    const dataDir = freshDataDir();
    const given = await testCredentials();
    const refused = await runServeExpectingExit(
      zeroConfigEnv(dataDir, { ROOT_ACCESS_KEY_ID: given.accessKeyId }),
      60_000,
      ['--init'],
    );
    expect(refused.code).toBe(78);
    expect(refused.output).toContain('ROOT_ACCESS_KEY_ID is set but not its pair');
  });
});

describe('where --init generates nothing', () => {
  it('without --init, a missing secret refuses boot even on an empty data directory', async () => {
    const dataDir = freshDataDir();
    const refused = await runServeExpectingExit(zeroConfigEnv(dataDir));
    expect(refused.code).toBe(78);
    expect(refused.output).toContain('JWT_SECRET is required but not set');
    expect(existsSync(join(dataDir, 'secrets.env'))).toBe(false);
  });

  it('into a data directory it did not set up, a missing secret refuses boot and says why', async () => {
    const dataDir = freshDataDir();
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(join(dataDir, 'meta.db'), '');
    const refused = await runServeExpectingExit(zeroConfigEnv(dataDir), 20_000, ['--init']);
    expect(refused.code).toBe(78);
    expect(refused.output).toContain('ROOT_SECRET_ACCESS_KEY is required but not set');
    expect(refused.output).toContain('--init generates missing values only into an empty DATA_DIR');
    expect(existsSync(join(dataDir, 'secrets.env'))).toBe(false);
  });
});

describe('rotating a generated value', () => {
  it('deleting its line and restarting with --init replaces it, prints the new one, and keeps the rest', async () => {
    const dataDir = freshDataDir();
    const first = await startZeroConfig(dataDir);
    await first.stop();
    const before = secretsFile(dataDir);
    const { ROOT_SECRET_ACCESS_KEY: oldSecret, ADMIN_PASSWORD_HASH: _hash, ...kept } = before;
    writeFileSync(join(dataDir, 'secrets.env'), formatDotenv(kept, '# edited'), { mode: 0o600 });

    const second = await startZeroConfig(dataDir);
    try {
      expect(second.announced.accessKeyId).toBeUndefined();
      expect(second.announced.secretAccessKey).toBeDefined();
      expect(second.announced.secretAccessKey).not.toBe(oldSecret);
      expect(second.announced.adminPassword).toBeDefined();
      const after = secretsFile(dataDir);
      expect(after['ROOT_SECRET_ACCESS_KEY']).toBe(second.announced.secretAccessKey);
      for (const key of Object.keys(kept)) expect(after[key], key).toBe(kept[key]);
      // The new secret and password work; the old ones no longer do.
      expect(await bucketNames(second)).toEqual([]);
      await expect(
        bucketNames(second, {
          accessKeyId: kept['ROOT_ACCESS_KEY_ID'] as string,
          secretAccessKey: oldSecret as string,
        }),
      ).rejects.toThrow();
      expect((await login(second)).status).toBe(200);
      expect((await login(second, { password: first.credentials.adminPassword })).status).toBe(401);
    } finally {
      await second.stop();
    }
  });

  it('a value given in the environment wins over the file', async () => {
    const dataDir = freshDataDir();
    const first = await startZeroConfig(dataDir);
    await first.stop();
    const jwt = randomSecret(40);
    const server = await startZeroConfig(dataDir, {
      env: { JWT_SECRET: jwt },
      adminPassword: first.credentials.adminPassword,
    });
    try {
      expect(server.announced).toEqual({});
      expect((await login(server)).status).toBe(200);
      expect(readFileSync(join(dataDir, 'secrets.env'), 'utf8')).not.toContain(jwt);
    } finally {
      await server.stop();
    }
  });
});
