// s3rver (npm), a third-party S3 server that does not decode aws-chunked bodies, as the target: the remote client
// computes checksums only when required, so writes, overwrites, tags, deletes and streamed multipart uploads all
// arrive; tiering offloads to it and reads back both inline and through its presigned URL.

import { randomBytes } from 'node:crypto';
import {
  CreateBucketCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  GetObjectTaggingCommand,
  PutBucketLifecycleConfigurationCommand,
  PutObjectCommand,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  remoteObject,
  replicationEnv,
  replicationStatus,
  sha256,
  startS3rverTarget,
  waitFor,
} from '../helpers/replication.js';
import { useStore } from '../helpers/store.js';

const MIB = 1024 * 1024;
let s3rver: Awaited<ReturnType<typeof startS3rverTarget>>;
beforeAll(async () => {
  s3rver = await startS3rverTarget();
});
afterAll(() => s3rver?.stop());
const source = useStore(() => ({
  env: replicationEnv(s3rver.target, {
    STORE_REPLICATION_LARGE_OBJECT_THRESHOLD_BYTES: String(5 * MIB),
    STORE_REPLICATION_MAX_ATTEMPTS: '3',
    STORE_TIER_ENABLED: 'true',
    STORE_LIFECYCLE_INTERVAL_MS: '200',
    STORE_TIER_INLINE_MAX_BYTES: String(300 * 1024),
  }),
}));

async function drained(): Promise<void> {
  await waitFor('the outbox to drain', async () => {
    const st = await replicationStatus(source.server, await source.admin());
    return st.outbox.pending + st.outbox.inflight + st.outbox.failed === 0;
  });
}

beforeAll(async () => {
  await source.s3.send(new CreateBucketCommand({ Bucket: 'data' }));
});

describe('replication to s3rver', () => {
  it('mirrors writes with metadata and tags, overwrites, tag changes and deletes', async () => {
    await source.s3.send(
      new PutObjectCommand({
        Bucket: 'data',
        Key: 'a.json',
        Body: '{"v":1}',
        ContentType: 'application/json',
        Metadata: { origin: 'test' },
        Tagging: 'env=dev',
      }),
    );
    await source.s3.send(new PutObjectCommand({ Bucket: 'data', Key: 'b', Body: 'bee' }));
    await drained();
    expect(await remoteObject(s3rver.target, 'data/a.json')).toMatchObject({
      sha256: sha256('{"v":1}'),
      contentType: 'application/json',
      metadata: { origin: 'test' },
    });
    expect(
      (await s3rver.target.client.send(new GetObjectTaggingCommand({ Bucket: 'mirror', Key: 'data/a.json' }))).TagSet,
    ).toEqual([{ Key: 'env', Value: 'dev' }]);
    await source.s3.send(new PutObjectCommand({ Bucket: 'data', Key: 'a.json', Body: '{"v":2}' }));
    await source.s3.send(new DeleteObjectCommand({ Bucket: 'data', Key: 'b' }));
    await drained();
    expect((await remoteObject(s3rver.target, 'data/a.json'))?.sha256).toBe(sha256('{"v":2}'));
    expect(await remoteObject(s3rver.target, 'data/b')).toBeUndefined();
    expect((await replicationStatus(source.server, await source.admin())).targetBucket).toBe('ok');
  });

  it('streams an object above the threshold as a multipart upload', async () => {
    const body = randomBytes(11 * MIB);
    await source.s3.send(new PutObjectCommand({ Bucket: 'data', Key: 'big', Body: body }));
    await drained();
    const remote = await remoteObject(s3rver.target, 'data/big');
    expect(remote?.size).toBe(body.length);
    expect(remote?.sha256).toBe(sha256(body));
  });

  it('tiers to s3rver and reads back inline and through its presigned URL', async () => {
    await source.s3.send(new CreateBucketCommand({ Bucket: 'cold' }));
    const small = randomBytes(200 * 1024);
    const large = randomBytes(400 * 1024);
    await source.s3.send(new PutObjectCommand({ Bucket: 'cold', Key: 'small', Body: small }));
    await source.s3.send(new PutObjectCommand({ Bucket: 'cold', Key: 'large', Body: large }));
    await source.s3.send(
      new PutBucketLifecycleConfigurationCommand({
        Bucket: 'cold',
        LifecycleConfiguration: {
          Rules: [
            {
              ID: 'x',
              Status: 'Enabled',
              Filter: { Prefix: '' },
              Transitions: [{ Date: new Date('2020-01-01T00:00:00Z'), StorageClass: 'STANDARD_IA' }],
            },
          ],
        },
      }),
    );
    await waitFor(
      'two stubs',
      async () => ((await source.adminCall('GET', '/tiering/status')).body as { stubs: number }).stubs === 2,
    );
    const got = await source.s3.send(new GetObjectCommand({ Bucket: 'cold', Key: 'small' }));
    expect(got.StorageClass).toBe('STANDARD_IA');
    expect(
      sha256(Buffer.from(await (got.Body as { transformToByteArray(): Promise<Uint8Array> }).transformToByteArray())),
    ).toBe(sha256(small));
    const res = await fetch(
      await getSignedUrl(source.s3, new GetObjectCommand({ Bucket: 'cold', Key: 'large' }), { expiresIn: 60 }),
      { redirect: 'manual' },
    );
    expect(res.status).toBe(307);
    const remote = await fetch(res.headers.get('location') as string);
    expect(remote.status).toBe(200);
    expect(sha256(Buffer.from(await remote.arrayBuffer()))).toBe(sha256(large));
  });
});
