// Tiering to a second Store (through a pass-through proxy the test controls): a lifecycle Transition offloads a
// set of objects (HEAD reports GLACIER, the local blobs go, the remote holds them under the reserved tier prefix);
// reads come back inline (rehydrated, verified, restored) or as a 307 to a presigned remote URL; 20 concurrent
// readers of one key cause one remote fetch; a read-through past its timeout is 503 SlowDown with the stub intact;
// RestoreObject rehydrates; a copy of a stub streams from the remote; deleting a stub deletes its remote copy.

import { randomBytes } from 'node:crypto';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import {
  CopyObjectCommand,
  CreateBucketCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutBucketLifecycleConfigurationCommand,
  PutObjectCommand,
  RestoreObjectCommand,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  remoteListing,
  replicationEnv,
  sha256,
  startDelayProxy,
  useStoreTarget,
  waitFor,
} from '../helpers/replication.js';
import { useStore } from '../helpers/store.js';

const KIB = 1024;
/** The S3 error code an SDK call threw. */
const errorCode = (err: unknown): string | undefined => (err as { name?: string }).name;
const target = useStoreTarget();
let proxy: Awaited<ReturnType<typeof startDelayProxy>>;
beforeAll(async () => {
  proxy = await startDelayProxy(target.target.url);
});
afterAll(() => proxy?.stop());
const source = useStore(() => ({
  env: replicationEnv(
    { ...target.target, url: proxy.url },
    {
      STORE_REPLICATION_ENABLED: 'false',
      STORE_TIER_ENABLED: 'true',
      STORE_LIFECYCLE_INTERVAL_MS: '200',
      STORE_TIER_INLINE_MAX_BYTES: String(300 * KIB),
      STORE_TIER_READTHROUGH_TIMEOUT_MS: '1500',
      STORE_TIER_PRESIGN_TTL_SECONDS: '60',
    },
  ),
}));
const bodies = new Map<string, Buffer>();

async function tieringStatus(): Promise<{
  enabled: boolean;
  stubs: number;
  restored: number;
  pendingRemoteDeletes: number;
}> {
  return (await source.adminCall('GET', '/tiering/status')).body as {
    enabled: boolean;
    stubs: number;
    restored: number;
    pendingRemoteDeletes: number;
  };
}

async function getBytes(key: string): Promise<Buffer> {
  const res = await source.s3.send(new GetObjectCommand({ Bucket: 'tiered', Key: key }));
  return Buffer.from(await (res.Body as { transformToByteArray(): Promise<Uint8Array> }).transformToByteArray());
}

function blobFiles(dataDir: string): number {
  let n = 0;
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else n++;
    }
  };
  walk(join(dataDir, 'blobs'));
  return n;
}

beforeAll(async () => {
  await source.s3.send(new CreateBucketCommand({ Bucket: 'tiered' }));
  for (let i = 0; i < 6; i++) bodies.set(`cold/s${i}`, randomBytes(200 * KIB));
  bodies.set('cold/large', randomBytes(400 * KIB));
  bodies.set('warm/keep', randomBytes(200 * KIB));
  for (const [key, body] of bodies)
    await source.s3.send(
      new PutObjectCommand({ Bucket: 'tiered', Key: key, Body: body, ContentType: 'application/x-test' }),
    );
}, 60_000);

describe('tiering', () => {
  it('offloads the objects a Transition rule selects: GLACIER, remote copies under .store/tier/, local blobs released', async () => {
    const before = blobFiles(source.server.dataDir);
    await source.s3.send(
      new PutBucketLifecycleConfigurationCommand({
        Bucket: 'tiered',
        LifecycleConfiguration: {
          Rules: [
            {
              ID: 'cold',
              Status: 'Enabled',
              Filter: { Prefix: 'cold/' },
              Transitions: [{ Date: new Date('2020-01-01T00:00:00Z'), StorageClass: 'GLACIER' }],
            },
          ],
        },
      }),
    );
    await waitFor('seven stubs', async () => (await tieringStatus()).stubs === 7);
    const head = await source.s3.send(new HeadObjectCommand({ Bucket: 'tiered', Key: 'cold/s0' }));
    expect(head.StorageClass).toBe('GLACIER');
    expect(head.ContentLength).toBe(200 * KIB);
    expect(
      (await source.s3.send(new HeadObjectCommand({ Bucket: 'tiered', Key: 'warm/keep' }))).StorageClass,
    ).toBeUndefined();
    const remote = await remoteListing(target.target, '.store/tier/tiered/');
    expect(remote.size).toBe(7);
    expect([...remote.keys()].every((k) => k.startsWith('.store/tier/tiered/'))).toBe(true);
    await waitFor('the local blobs to be collected', () => blobFiles(source.server.dataDir) === before - 7);
  });

  it('leaves stubs out of an integrity scrub: their bytes are on the remote, not missing here', async () => {
    expect((await source.adminCall('POST', '/integrity/scrub')).status).toBe(202);
    const status = await waitFor('the scrub to end', async () => {
      const body = (await source.adminCall('GET', '/integrity')).body as {
        currentPass: unknown;
        counts: Record<string, number>;
      };
      return body.currentPass === null ? body : undefined;
    });
    expect(status.counts).toMatchObject({ ok: 1, corrupt: 0 });
  });

  it('serves a small stub inline: rehydrated, verified, restored, and the bytes are right', async () => {
    const gets = proxy.gets('/.store/tier/');
    expect(sha256(await getBytes('cold/s0'))).toBe(sha256(bodies.get('cold/s0') as Buffer));
    expect(proxy.gets('/.store/tier/')).toBe(gets + 1);
    const head = await source.s3.send(new HeadObjectCommand({ Bucket: 'tiered', Key: 'cold/s0' }));
    expect(head.StorageClass).toBe('GLACIER');
    expect(head.Restore).toMatch(/^ongoing-request="false", expiry-date=".+"$/);
    // Now local: a second read does not go to the remote.
    expect(sha256(await getBytes('cold/s0'))).toBe(sha256(bodies.get('cold/s0') as Buffer));
    expect(proxy.gets('/.store/tier/')).toBe(gets + 1);
    expect((await tieringStatus()).restored).toBe(1);
  });

  it('answers a stub above STORE_TIER_INLINE_MAX_BYTES with a 307 to a presigned remote URL that serves it', async () => {
    const url = await getSignedUrl(source.s3, new GetObjectCommand({ Bucket: 'tiered', Key: 'cold/large' }), {
      expiresIn: 60,
    });
    const res = await fetch(url, { redirect: 'manual' });
    expect(res.status).toBe(307);
    const location = res.headers.get('location') as string;
    expect(location.startsWith(`${proxy.url}/mirror/.store/tier/tiered/`)).toBe(true);
    expect(location).toContain('X-Amz-Signature=');
    expect(location).not.toContain(target.target.secretAccessKey);
    const remote = await fetch(location);
    expect(remote.status).toBe(200);
    expect(remote.headers.get('content-type')).toBe('application/x-test');
    expect(sha256(Buffer.from(await remote.arrayBuffer()))).toBe(sha256(bodies.get('cold/large') as Buffer));
    expect(
      (await source.s3.send(new HeadObjectCommand({ Bucket: 'tiered', Key: 'cold/large' }))).Restore,
    ).toBeUndefined();
  });

  it('lets 20 concurrent readers of one stub share a single remote fetch', async () => {
    const gets = proxy.gets('/.store/tier/');
    const expected = sha256(bodies.get('cold/s1') as Buffer);
    const results = await Promise.all(Array.from({ length: 20 }, () => getBytes('cold/s1')));
    for (const r of results) expect(sha256(r)).toBe(expected);
    expect(proxy.gets('/.store/tier/')).toBe(gets + 1);
  });

  it('answers 503 SlowDown when the read-through times out, and leaves the stub intact', async () => {
    proxy.setDelay('/.store/tier/', 4000);
    try {
      const err = await source.s3
        .send(new GetObjectCommand({ Bucket: 'tiered', Key: 'cold/s2' }))
        .catch((e: unknown) => e);
      expect(errorCode(err)).toBe('SlowDown');
      expect((err as { $metadata: { httpStatusCode: number } }).$metadata.httpStatusCode).toBe(503);
    } finally {
      proxy.setDelay(undefined, 0);
    }
    const head = await source.s3.send(new HeadObjectCommand({ Bucket: 'tiered', Key: 'cold/s2' }));
    expect(head.StorageClass).toBe('GLACIER');
    expect(head.Restore).toBeUndefined();
    expect((await tieringStatus()).stubs).toBe(5);
    await waitFor(
      'the aborted flight to end',
      async () =>
        ((await source.adminCall('GET', '/tiering/status')).body as { rehydrating: number }).rehydrating === 0,
    );
    expect(sha256(await getBytes('cold/s2'))).toBe(sha256(bodies.get('cold/s2') as Buffer));
  });

  it('accepts RestoreObject (202, then 200 once restored) and refuses it for an object that is not tiered', async () => {
    const res = await source.s3.send(
      new RestoreObjectCommand({ Bucket: 'tiered', Key: 'cold/s3', RestoreRequest: { Days: 2 } }),
    );
    expect(res.$metadata.httpStatusCode).toBe(202);
    await waitFor('the restore to finish', async () =>
      (await source.s3.send(new HeadObjectCommand({ Bucket: 'tiered', Key: 'cold/s3' }))).Restore?.includes('"false"'),
    );
    const again = await source.s3.send(
      new RestoreObjectCommand({ Bucket: 'tiered', Key: 'cold/s3', RestoreRequest: { Days: 3 } }),
    );
    expect(again.$metadata.httpStatusCode).toBe(200);
    const err = await source.s3
      .send(new RestoreObjectCommand({ Bucket: 'tiered', Key: 'warm/keep', RestoreRequest: { Days: 1 } }))
      .catch((e: unknown) => e);
    expect(errorCode(err)).toBe('InvalidObjectState');
    const gets = proxy.gets('/.store/tier/');
    expect(sha256(await getBytes('cold/s3'))).toBe(sha256(bodies.get('cold/s3') as Buffer));
    expect(proxy.gets('/.store/tier/')).toBe(gets);
  });

  it('copies a stub by streaming it from the remote (the source stays a stub); deleting a stub deletes its remote copy', async () => {
    await source.s3.send(new CopyObjectCommand({ Bucket: 'tiered', Key: 'copied', CopySource: 'tiered/cold/s4' }));
    expect(sha256(await getBytes('copied'))).toBe(sha256(bodies.get('cold/s4') as Buffer));
    expect((await source.s3.send(new HeadObjectCommand({ Bucket: 'tiered', Key: 'cold/s4' }))).Restore).toBeUndefined();
    const before = (await remoteListing(target.target, '.store/tier/tiered/')).size;
    await source.s3.send(new DeleteObjectCommand({ Bucket: 'tiered', Key: 'cold/s5' }));
    // The remote copy goes first, then its queue row (tier-service collectRemote): wait for both.
    await waitFor(
      'the remote copy to be deleted and its queue row cleared',
      async () =>
        (await remoteListing(target.target, '.store/tier/tiered/')).size === before - 1 &&
        (await tieringStatus()).pendingRemoteDeletes === 0,
    );
  });
});
