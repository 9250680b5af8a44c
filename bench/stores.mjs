// @ts-check
// The servers each mode compares, started with fresh credentials: Store with the floor (and s3rver), two Stores
// (--webhooks-ab), or Store alone (the soak and the cost modes), and the signer their requests use.

import argon2 from 'argon2';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { BenchClient, createSigner, loadSignRequest, stubSignRequest } from './client.mjs';
import { cpuSeconds } from './proc-stats.mjs';
import {
  accessKeyId20,
  base64url40,
  DEFAULT_STORE_CMD,
  FLOOR_CMD,
  log,
  makeTempRoot,
  S3RVER_CMD,
  startServer,
} from './servers.mjs';
import { BUCKET, LIST_BUCKET } from './workloads.mjs';

/**
 * @typedef {import('./workloads.mjs').Target} Target
 * @typedef {import('./servers.mjs').Server} Server
 * @typedef {import('./options.mjs').Options} Options
 */

/** The real signer from dist/, or the stub where that is allowed. @param {{ signer: string, storeCmd: string }} opts */
export async function chooseSignRequest({ signer, storeCmd }) {
  const real = signer === 'stub' ? undefined : await loadSignRequest();
  if (real) return real;
  if (signer === 'real' || (signer === 'auto' && storeCmd === DEFAULT_STORE_CMD)) {
    throw new Error('dist/sigv4/sign.js is missing: run `npm run build` first (Store needs valid SigV4)');
  }
  log('note: using the stub signer (not valid SigV4): fine for floor-vs-floor, not for Store');
  return stubSignRequest;
}

/**
 * Store's environment besides PORT and DATA_DIR: fresh admin secrets and the given root credentials; the admin
 * password is `adminPassword` when a mode logs in to the admin API, else a fresh one nobody knows.
 * @param {string} accessKeyId @param {string} secretAccessKey @param {string} [adminPassword]
 */
export async function storeSecrets(accessKeyId, secretAccessKey, adminPassword = base64url40()) {
  return {
    JWT_SECRET: base64url40(),
    ROOT_ACCESS_KEY_ID: accessKeyId,
    ROOT_SECRET_ACCESS_KEY: secretAccessKey,
    ADMIN_PASSWORD_HASH: await argon2.hash(adminPassword, { type: argon2.argon2id }),
  };
}

/**
 * Starts Store (with fresh root credentials and admin secrets), the floor and optionally s3rver, each on its own data
 * dir.
 * @param {{ storeCmd: string, tmpDir: string, accessKeyId: string, secretAccessKey: string, withS3rver: boolean,
 * storeEnv?: Record<string, string> }} opts
 */
export async function startServers({ storeCmd, tmpDir, accessKeyId, secretAccessKey, withS3rver, storeEnv = {} }) {
  const tempRoot = await makeTempRoot(tmpDir);
  const env = async (/** @type {string} */ name) => {
    const dataDir = path.join(tempRoot, name);
    await mkdir(dataDir);
    return { DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
  };
  const store = await startServer({
    label: 'Store',
    cmd: storeCmd,
    env: {
      ...(await env('store')),
      ...(await storeSecrets(accessKeyId, secretAccessKey)),
      ...storeEnv,
    },
  });
  const floor = await startServer({ label: 'floor', cmd: FLOOR_CMD, env: await env('floor') });
  log(
    `Store pid ${store.pid} at ${store.baseUrl} (${storeCmd}); floor pid ${floor.pid} at ${floor.baseUrl}; data in ${tempRoot}`,
  );
  if (!withS3rver) return { store, floor, s3rver: undefined, tempRoot };
  const { DATA_DIR } = await env('s3rver');
  const s3rver = await startServer({
    label: 's3rver',
    cmd: S3RVER_CMD.replace('{dir}', DATA_DIR),
    env: {},
    readyPath: '/',
    anyAnswer: true,
  });
  log(`s3rver pid ${s3rver.pid} at ${s3rver.baseUrl}`);
  return { store, floor, s3rver, tempRoot };
}

/**
 * `--webhooks-ab`: two Stores from the same build, one with `storeEnv` (webhooks on) and one without, in the places
 * of Store and the floor, so each scenario's rounds alternate between them and the ratio is on/off.
 * @param {{ storeCmd: string, tmpDir: string, accessKeyId: string, secretAccessKey: string, storeEnv: Record<string,
 * string> }} opts
 */
export async function startStorePair({ storeCmd, tmpDir, accessKeyId, secretAccessKey, storeEnv }) {
  const tempRoot = await makeTempRoot(tmpDir);
  const env = async (/** @type {string} */ name) => {
    const dataDir = path.join(tempRoot, name);
    await mkdir(dataDir);
    return { DATA_DIR: dataDir, LOG_LEVEL: 'warn', ...(await storeSecrets(accessKeyId, secretAccessKey)) };
  };
  const store = await startServer({
    label: 'Store+webhooks',
    cmd: storeCmd,
    env: { ...(await env('store')), ...storeEnv },
  });
  const floor = await startServer({ label: 'Store-plain', cmd: storeCmd, env: await env('store-plain') });
  log(
    `Store with webhooks pid ${store.pid} at ${store.baseUrl}; Store without pid ${floor.pid} at ${floor.baseUrl}; data in ${tempRoot}`,
  );
  return { store, floor, s3rver: undefined, tempRoot };
}

/** @param {Server} server @param {import('./client.mjs').Signer} sign @returns {Promise<Target>} */
export async function prepareTarget(server, sign) {
  const client = new BenchClient({ baseUrl: server.baseUrl, concurrency: 1, sign });
  try {
    for (const bucket of [BUCKET, LIST_BUCKET]) await client.request({ method: 'PUT', path: `/${bucket}` });
  } finally {
    client.close();
  }
  return {
    label: server.label,
    baseUrl: server.baseUrl,
    sign,
    cpuSeconds: () => cpuSeconds(server.pid),
    state: { smallKeys: [], largeKeys: [], seq: 0, listSeeded: false, multipartVerified: false },
  };
}

/**
 * One Store (the soak, webhook-cost and read-cost modes) on a fresh data dir, with fresh root credentials and admin
 * secrets plus
 * `storeEnv`, its bench buckets created. @param {Options} opts @param {Record<string, string>} [storeEnv]
 */
export async function startSoloStore(opts, storeEnv = {}) {
  const signRequest = await chooseSignRequest({ ...opts, signer: opts.signer === 'auto' ? 'real' : opts.signer });
  const accessKeyId = accessKeyId20();
  const secretAccessKey = base64url40();
  const sign = createSigner({ signRequest, accessKeyId, secretAccessKey });
  const dataDir = path.join(await makeTempRoot(opts.tmpDir), 'store');
  await mkdir(dataDir);
  const store = await startServer({
    label: 'Store',
    cmd: opts.storeCmd,
    env: {
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      ...(await storeSecrets(accessKeyId, secretAccessKey)),
      ...storeEnv,
    },
  });
  await prepareTarget(store, sign);
  return { store, sign };
}
