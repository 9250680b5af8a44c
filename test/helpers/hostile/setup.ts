// Before a hostile run: an admin token, the buckets (one versioned), a scoped access key for the plain bucket, and
// the large objects that slow readers read and copies copy, all through well-behaved requests that must succeed.

import { adminLogin } from '../admin-session.js';
import type { RunningServer } from '../server.js';
import { makeBody, type Ledger } from './model.js';
import type { Buckets } from './op-context.js';
import { objectPath } from './op-helpers.js';
import { BIG_KEYS } from './plan.js';
import { RawClient, type WireRequest } from './raw-client.js';
import { s3Wire, type Identity } from './s3-wire.js';

const MiB = 1024 * 1024;

export interface Prepared {
  token: string;
  root: Identity;
  scoped: Identity;
  buckets: Buckets;
}

async function mustSucceed(conn: RawClient, wire: WireRequest): Promise<void> {
  const result = await conn.exchange(wire, { timeoutMs: 60_000 });
  const status = result.response?.status ?? 0;
  if (status < 200 || status >= 300) {
    throw new Error(
      `setup ${wire.method} ${wire.path}: ${result.failure ?? status} ${result.response?.body.toString('utf8').slice(0, 300) ?? ''}`,
    );
  }
}

/** Creates the buckets and the scoped key; writes the big objects and records them in the ledger. */
export async function prepareRun(server: RunningServer, opts: { seed: number; ledger: Ledger }): Promise<Prepared> {
  const token = await adminLogin(server);
  const root = { accessKeyId: server.credentials.accessKeyId, secretAccessKey: server.credentials.secretAccessKey };
  const buckets: Buckets = { plain: 'hostile-plain', versioned: 'hostile-versioned', missing: 'hostile-missing' };
  const conn = new RawClient(server.port);
  try {
    for (const bucket of [buckets.plain, buckets.versioned])
      await mustSucceed(conn, s3Wire(server, { method: 'PUT', path: `/${bucket}`, identity: root }));
    await mustSucceed(
      conn,
      s3Wire(server, {
        method: 'PUT',
        path: `/${buckets.versioned}?versioning=`,
        identity: root,
        body: Buffer.from('<VersioningConfiguration><Status>Enabled</Status></VersioningConfiguration>'),
      }),
    );
    const res = await fetch(`${server.url}/api/admin/keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'hostile-scoped', permissions: { scope: { bucket: buckets.plain } } }),
    });
    const key = (await res.json()) as { accessKeyId?: string; secretAccessKey?: string };
    if (res.status !== 201 || !key.accessKeyId || !key.secretAccessKey)
      throw new Error(`setup: scoped key: ${res.status} ${JSON.stringify(key)}`);
    const scoped = { accessKeyId: key.accessKeyId, secretAccessKey: key.secretAccessKey };
    for (let i = 0; i < BIG_KEYS; i++) {
      const key = `big/${i}`;
      const { spec, bytes } = makeBody(opts.seed, [{ id: `big:${i}`, size: 3 * MiB + i * 777_777 }]);
      const path = objectPath(buckets.plain, key);
      await mustSucceed(
        conn,
        s3Wire(server, {
          method: 'PUT',
          path,
          identity: root,
          body: bytes,
          headers: { 'x-amz-meta-sha256': spec.sha256 },
        }),
      );
      opts.ledger.begin({ bucket: buckets.plain, key, bodies: [spec], via: 'setup' }).outcome = 'acked';
    }
    return { token, root, scoped, buckets };
  } finally {
    conn.close();
  }
}
