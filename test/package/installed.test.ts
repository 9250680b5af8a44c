// The installed npm package (.ci/package.sh: `npm install -g` of the packed tarball into a fresh prefix) as a user
// runs it: `store --version`, `store init` then `store serve` in that directory, `store serve --init` on an empty
// DATA_DIR, with an S3 round trip, the console and the admin API's version each time. Nothing here comes from the
// checkout's own dist/ or node_modules but the test's clients.

import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { CreateBucketCommand, GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, describe, expect, it } from 'vitest';
import { parseDotenv } from '../../src/config/dotenv.js';
import { signIn } from '../helpers/admin-flow.js';
import { sdkClient } from '../helpers/clients.js';
import { spawnServer, tempDir, type RunningServer } from '../helpers/server.js';
import { startZeroConfig } from '../helpers/zero-config.js';

const BIN = process.env['STORE_PACKAGE_BIN'] ?? '';
const COMMIT = process.env['STORE_PACKAGE_COMMIT'] ?? 'unknown';
const root = tempDir('store-pkg-');
afterAll(() => rmSync(root, { recursive: true, force: true }));

function store(args: string[], cwd = root): string {
  return execFileSync(BIN, args, { cwd, encoding: 'utf8', env: { PATH: process.env['PATH'] ?? '', HOME: root } });
}

/** A round trip, the console's page and the version the admin API tells. */
async function exercise(server: RunningServer): Promise<string> {
  const s3 = sdkClient(server);
  try {
    await s3.send(new CreateBucketCommand({ Bucket: 'pkg-check' }));
    await s3.send(new PutObjectCommand({ Bucket: 'pkg-check', Key: 'hello.txt', Body: 'from the package' }));
    const got = await s3.send(new GetObjectCommand({ Bucket: 'pkg-check', Key: 'hello.txt' }));
    expect(await got.Body!.transformToString()).toBe('from the package');
  } finally {
    s3.destroy();
  }
  const page = await fetch(`${server.url}/admin/`);
  expect(page.status).toBe(200);
  expect(await page.text()).toMatch(/<script type="module"[^>]+src="\.\/assets\//);
  const { token } = await signIn(server);
  const version = (await (
    await fetch(`${server.url}/api/admin/version`, { headers: { authorization: `Bearer ${token}` } })
  ).json()) as Record<string, string>;
  return `store ${version['version']} (commit ${version['build']})`;
}

describe('the installed package', () => {
  it('is a global install of production dependencies only, running its own copy', () => {
    if (BIN === '') throw new Error('STORE_PACKAGE_BIN is not set: run this suite through .ci/package.sh');
    const installed = dirname(dirname(realpathSync(BIN)));
    expect(existsSync(join(installed, 'dist', 'web', 'index.html'))).toBe(true);
    for (const dev of ['vitest', 'typescript', 'vite', 'minio'])
      expect(existsSync(join(installed, 'node_modules', dev)), dev).toBe(false);
    expect(
      existsSync(join(installed, 'node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node')),
    ).toBe(true);
  });

  it('tells its version and the commit it was packed from', () => {
    expect(store(['--version']).trim()).toBe(
      `store ${JSON.parse(readFileSync(join(dirname(dirname(realpathSync(BIN))), 'package.json'), 'utf8')).version} (commit ${COMMIT})`,
    );
  });

  it('runs `store init` then `store serve` in that directory', async () => {
    const site = join(root, 'site');
    const printed = store(['init', site]);
    const values = parseDotenv(readFileSync(join(site, '.env'), 'utf8'));
    const credentials = {
      accessKeyId: values['ROOT_ACCESS_KEY_ID'] as string,
      secretAccessKey: values['ROOT_SECRET_ACCESS_KEY'] as string,
      adminPassword: /Admin console login:\s+admin \/ (\S+)/.exec(printed)?.[1] ?? '',
    };
    // PORT and HOST from the environment (it wins over the .env); everything else from the .env in the directory.
    const server = await spawnServer({ PORT: '0', HOST: '127.0.0.1' }, credentials, {
      keepDataDir: true,
      command: [BIN],
      cwd: site,
    });
    try {
      expect(await exercise(server)).toBe(store(['--version']).trim());
      expect(existsSync(join(site, 'data', 'meta.db'))).toBe(true);
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });

  it('starts zero-config with `store serve --init` on an empty DATA_DIR', async () => {
    const server = await startZeroConfig(join(root, 'zero', 'data'), { command: [BIN] });
    try {
      expect(server.announced.secretAccessKey).toBeDefined();
      expect(await exercise(server)).toBe(store(['--version']).trim());
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });
});
