// s3rver (npm), a third-party S3 server that does not decode aws-chunked bodies, as the target: the remote client
// computes checksums only when required, so writes, overwrites, tags, deletes and streamed multipart uploads all
// arrive; tiering offloads to it and reads back both inline and through its presigned URL.

import { randomBytes } from 'node:crypto';
import {
  CreateBucketCommand, DeleteObjectCommand, GetObjectCommand, GetObjectTaggingCommand, PutBucketLifecycleConfigurationCommand,
  PutObjectCommand, type S3Client,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminCall, adminLogin } from '../helpers/admin-session.js';
import { sdkClient } from '../helpers/clients.js';
import { remoteObject, replicationEnv, replicationStatus, sha256, startS3rverTarget, waitFor } from '../helpers/replication.js';
import { startServer, type RunningServer } from '../helpers/server.js';

const MIB = 1024 * 1024;
let s3rver: Awaited<ReturnType<typeof startS3rverTarget>>;
let source: RunningServer;
let s3: S3Client;
let token: string;

async function drained(): Promise<void> {
  await waitFor('the outbox to drain', async () => {
    const st = await replicationStatus(source, token);
    return st.outbox.pending + st.outbox.inflight + st.outbox.failed === 0;
  });
}

beforeAll(async () => {
  s3rver = await startS3rverTarget();
  source = await startServer({
    env: replicationEnv(s3rver.target, {
      STORE_REPLICATION_LARGE_OBJECT_THRESHOLD_BYTES: String(5 * MIB), STORE_REPLICATION_MAX_ATTEMPTS: '3',
      STORE_TIER_ENABLED: 'true', STORE_LIFECYCLE_INTERVAL_MS: '200', STORE_TIER_INLINE_MAX_BYTES: String(300 * 1024),
    }),
  });
  s3 = sdkClient(source);
  token = await adminLogin(source);
  await s3.send(new CreateBucketCommand({ Bucket: 'data' }));
}, 60_000);

afterAll(async () => {
  s3?.destroy();
  await source?.stop();
  await s3rver?.stop();
});

describe('replication to s3rver', () => {
  it('mirrors writes with metadata and tags, overwrites, tag changes and deletes', async () => {
    await s3.send(new PutObjectCommand({ Bucket: 'data', Key: 'a.json', Body: '{"v":1}', ContentType: 'application/json', Metadata: { origin: 'test' }, Tagging: 'env=dev' }));
    await s3.send(new PutObjectCommand({ Bucket: 'data', Key: 'b', Body: 'bee' }));
    await drained();
    expect(await remoteObject(s3rver.target, 'data/a.json')).toMatchObject({ sha256: sha256('{"v":1}'), contentType: 'application/json', metadata: { origin: 'test' } });
    expect((await s3rver.target.client.send(new GetObjectTaggingCommand({ Bucket: 'mirror', Key: 'data/a.json' }))).TagSet).toEqual([{ Key: 'env', Value: 'dev' }]);
    await s3.send(new PutObjectCommand({ Bucket: 'data', Key: 'a.json', Body: '{"v":2}' }));
    await s3.send(new DeleteObjectCommand({ Bucket: 'data', Key: 'b' }));
    await drained();
    expect((await remoteObject(s3rver.target, 'data/a.json'))?.sha256).toBe(sha256('{"v":2}'));
    expect(await remoteObject(s3rver.target, 'data/b')).toBeUndefined();
    expect((await replicationStatus(source, token)).targetBucket).toBe('ok');
  });

  it('streams an object above the threshold as a multipart upload', async () => {
    const body = randomBytes(11 * MIB);
    await s3.send(new PutObjectCommand({ Bucket: 'data', Key: 'big', Body: body }));
    await drained();
    const remote = await remoteObject(s3rver.target, 'data/big');
    expect(remote?.size).toBe(body.length);
    expect(remote?.sha256).toBe(sha256(body));
  });

  it('tiers to s3rver and reads back inline and through its presigned URL', async () => {
    await s3.send(new CreateBucketCommand({ Bucket: 'cold' }));
    const small = randomBytes(200 * 1024);
    const large = randomBytes(400 * 1024);
    await s3.send(new PutObjectCommand({ Bucket: 'cold', Key: 'small', Body: small }));
    await s3.send(new PutObjectCommand({ Bucket: 'cold', Key: 'large', Body: large }));
    await s3.send(new PutBucketLifecycleConfigurationCommand({
      Bucket: 'cold',
      LifecycleConfiguration: { Rules: [{ ID: 'x', Status: 'Enabled', Filter: { Prefix: '' }, Transitions: [{ Date: new Date('2020-01-01T00:00:00Z'), StorageClass: 'STANDARD_IA' }] }] },
    }));
    await waitFor('two stubs', async () => ((await adminCall(source, token, 'GET', '/tiering/status')).body as { stubs: number }).stubs === 2);
    const got = await s3.send(new GetObjectCommand({ Bucket: 'cold', Key: 'small' }));
    expect(got.StorageClass).toBe('STANDARD_IA');
    expect(sha256(Buffer.from(await (got.Body as { transformToByteArray(): Promise<Uint8Array> }).transformToByteArray()))).toBe(sha256(small));
    const res = await fetch(await getSignedUrl(s3, new GetObjectCommand({ Bucket: 'cold', Key: 'large' }), { expiresIn: 60 }), { redirect: 'manual' });
    expect(res.status).toBe(307);
    const remote = await fetch(res.headers.get('location') as string);
    expect(remote.status).toBe(200);
    expect(sha256(Buffer.from(await remote.arrayBuffer()))).toBe(sha256(large));
  });
});
