// Replication at boot: a partial configuration and tiering without a target refuse to start (exit 78, keys named,
// no value echoed); a plaintext http endpoint starts with a warning even when the target is down; with no
// configuration the outbox stays empty, status says disabled, tiering is inert and RestoreObject is refused.

import { randomBytes } from 'node:crypto';
import { CreateBucketCommand, PutObjectCommand, RestoreObjectCommand } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { adminCall } from '../helpers/admin-session.js';
import { freePort, replicationStatus } from '../helpers/replication.js';
import { baseEnv, runServeExpectingExit, tempDir } from '../helpers/server.js';
import { startStore } from '../helpers/store.js';

describe('replication at boot', () => {
  it('refuses a partial configuration and tiering without a target, naming keys but no value', async () => {
    const secret = randomBytes(30).toString('base64url');
    const { env } = await baseEnv(`${tempDir()}/data`);
    const partial = await runServeExpectingExit({
      ...env,
      STORE_REPLICATION_ENABLED: 'true',
      STORE_REPLICATION_SECRET_ACCESS_KEY: secret,
    });
    expect(partial.code).toBe(78);
    expect(partial.output).toContain(
      'STORE_REPLICATION_BUCKET, STORE_REPLICATION_ACCESS_KEY_ID are required when STORE_REPLICATION_ENABLED is true',
    );
    expect(partial.output).not.toContain(secret);
    const tier = await runServeExpectingExit({ ...env, STORE_TIER_ENABLED: 'true' });
    expect(tier.code).toBe(78);
    expect(tier.output).toContain('required when STORE_TIER_ENABLED');
  });

  it('starts with a warning for a plaintext http endpoint, and reports the unreachable target in status', async () => {
    const port = await freePort();
    const secret = randomBytes(30).toString('base64url');
    const store = await startStore({
      env: {
        STORE_REPLICATION_ENABLED: 'true',
        STORE_REPLICATION_BUCKET: 'mirror',
        STORE_REPLICATION_ACCESS_KEY_ID: 'AKIADOWNTARGET0001',
        STORE_REPLICATION_SECRET_ACCESS_KEY: secret,
        STORE_REPLICATION_ENDPOINT: `http://127.0.0.1:${port}`,
      },
    });
    const server = store.server;
    expect(server.output()).toContain('STORE_REPLICATION_ENDPOINT is plaintext http');
    const token = await store.admin();
    const deadline = Date.now() + 10_000;
    let st = await replicationStatus(server, token);
    while (st.targetBucket === 'unchecked' && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      st = await replicationStatus(server, token);
    }
    expect(st).toMatchObject({ enabled: true, targetBucket: 'unreachable' });
    expect(server.output()).not.toContain(secret);
    expect(server.output()).not.toContain(`127.0.0.1:${port}`);
  });

  it('with no configuration: outbox empty, status disabled, tiering inert, RestoreObject refused', async () => {
    const store = await startStore({ env: { METRICS_MODE: 'public' } });
    const { server, s3 } = store;
    await s3.send(new CreateBucketCommand({ Bucket: 'plain' }));
    for (let i = 0; i < 5; i++) await s3.send(new PutObjectCommand({ Bucket: 'plain', Key: `k${i}`, Body: 'x' }));
    const token = await store.admin();
    const st = await replicationStatus(server, token);
    expect(st).toMatchObject({
      enabled: false,
      targetBucket: 'not-configured',
      outbox: { pending: 0, inflight: 0, failed: 0 },
      lastDrain: null,
      tiering: { enabled: false, stubs: 0, restored: 0 },
    });
    expect((await adminCall(server, token, { method: 'GET', path: '/tiering/status' })).body).toMatchObject({
      enabled: false,
    });
    const reconcile = await adminCall(server, token, { method: 'POST', path: '/replication/reconcile', body: {} });
    expect(reconcile.status).toBe(409);
    const err = await s3
      .send(new RestoreObjectCommand({ Bucket: 'plain', Key: 'k0', RestoreRequest: { Days: 1 } }))
      .catch((e: unknown) => e);
    expect((err as { name?: string }).name).toBe('InvalidObjectState');
    expect(await (await fetch(`${server.url}/metrics`)).text()).toMatch(
      /store_replication_outbox_depth\{status="pending"\} 0/,
    );
  });
});
