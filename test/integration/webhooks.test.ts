// Signed webhooks end to end against the real server and a real receiver on loopback that verifies every signature
// and dedupes on X-Store-Delivery: every emission point, the request shape, the status route, kill -9 between
// commit and delivery, a 1,000-PUT burst, and the boot refusals.

import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import {
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  PutBucketVersioningCommand,
  PutObjectCommand,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { adminCall } from '../helpers/admin-session.js';
import { uniqueBucket } from '../helpers/clients.js';
import { putBurst } from '../helpers/put-burst.js';
import { baseEnv, runServeExpectingExit, tempDir } from '../helpers/server.js';
import { startStore, useStore } from '../helpers/store.js';
import { useWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

const SECRET = randomBytes(36).toString('base64url');
/** Credentials in the URL: sent as Basic auth, never shown or logged. */
const withCredentials = (url: string): string => url.replace('http://', 'http://hook-user:hook-pass-9f2@');
const webhookEnv = (receiver: WebhookReceiver): Record<string, string> => ({
  WEBHOOK_URL: withCredentials(receiver.url),
  WEBHOOK_SECRET: SECRET,
  WEBHOOK_POLL_MS: '200',
  WEBHOOK_TIMEOUT_MS: '1000',
});
const MD5_HELLO = '5d41402abc4b2a76b9719d911017c592';

describe('webhooks against a running server', () => {
  const receiver = useWebhookReceiver(SECRET);
  const store = useStore(() => ({ env: webhookEnv(receiver) }));

  it('delivers one signed event per committed change, from every emission point', async () => {
    const plain = uniqueBucket('wh');
    const versioned = uniqueBucket('whv');
    await store.s3.send(new CreateBucketCommand({ Bucket: plain }));
    await store.s3.send(new CreateBucketCommand({ Bucket: versioned }));
    await store.s3.send(
      new PutBucketVersioningCommand({ Bucket: versioned, VersioningConfiguration: { Status: 'Enabled' } }),
    );

    await store.s3.send(new PutObjectCommand({ Bucket: plain, Key: 'a.txt', Body: 'hello' }));
    await store.s3.send(new CopyObjectCommand({ Bucket: plain, Key: 'copy.txt', CopySource: `${plain}/a.txt` }));
    await store.s3.send(new DeleteObjectCommand({ Bucket: plain, Key: 'copy.txt' }));
    await store.s3.send(new PutObjectCommand({ Bucket: plain, Key: 'bulk/1', Body: 'x' }));
    await store.s3.send(new PutObjectCommand({ Bucket: plain, Key: 'bulk/2', Body: 'y' }));
    await store.s3.send(
      new DeleteObjectsCommand({
        Bucket: plain,
        Delete: { Objects: [{ Key: 'bulk/1' }, { Key: 'bulk/2' }, { Key: 'bulk/never' }] },
      }),
    );
    const mpu = await store.s3.send(new CreateMultipartUploadCommand({ Bucket: plain, Key: 'multi' }));
    const part = await store.s3.send(
      new UploadPartCommand({ Bucket: plain, Key: 'multi', UploadId: mpu.UploadId, PartNumber: 1, Body: 'only part' }),
    );
    const done = await store.s3.send(
      new CompleteMultipartUploadCommand({
        Bucket: plain,
        Key: 'multi',
        UploadId: mpu.UploadId,
        MultipartUpload: { Parts: [{ PartNumber: 1, ETag: part.ETag }] },
      }),
    );
    const v1 = await store.s3.send(new PutObjectCommand({ Bucket: versioned, Key: 'k', Body: 'hello' }));
    const marker = await store.s3.send(new DeleteObjectCommand({ Bucket: versioned, Key: 'k' }));

    await receiver.waitForAccepted(10);
    await new Promise((r) => setTimeout(r, 300)); // nothing more may come
    const events = receiver.events().map(({ eventTime, ...rest }) => {
      expect(Math.abs(Date.parse(eventTime as string) - Date.now())).toBeLessThan(60_000);
      return rest;
    });
    const expected = [
      { type: 'object.created', bucket: plain, key: 'a.txt', size: 5, etag: MD5_HELLO },
      { type: 'object.created', bucket: plain, key: 'copy.txt', size: 5, etag: MD5_HELLO },
      { type: 'object.deleted', bucket: plain, key: 'copy.txt', size: 0, etag: MD5_HELLO },
      { type: 'object.created', bucket: plain, key: 'bulk/1', size: 1, etag: expect.any(String) },
      { type: 'object.created', bucket: plain, key: 'bulk/2', size: 1, etag: expect.any(String) },
      { type: 'object.deleted', bucket: plain, key: 'bulk/1', size: 0, etag: expect.any(String) },
      { type: 'object.deleted', bucket: plain, key: 'bulk/2', size: 0, etag: expect.any(String) },
      {
        type: 'multipart.completed',
        bucket: plain,
        key: 'multi',
        size: 9,
        etag: (done.ETag as string).replace(/"/g, ''),
      },
      { type: 'object.created', bucket: versioned, key: 'k', size: 5, etag: MD5_HELLO, versionId: v1.VersionId },
      { type: 'object.deleted', bucket: versioned, key: 'k', size: 0, etag: '', versionId: marker.VersionId },
    ];
    // Due-time order is not strict per-key order across concurrent deliveries: compare as sets.
    expect(events).toHaveLength(expected.length);
    expect(events).toEqual(expect.arrayContaining(expected));
    expect(receiver.badSignatures).toBe(0);
  });

  it('sends the spec request shape: headers, raw body field order, Basic auth from the URL, a stable delivery id', () => {
    expect(receiver.requests.length).toBeGreaterThan(0);
    for (const req of receiver.requests) {
      expect(req.method).toBe('POST');
      expect(req.path).toBe('/hook');
      expect(req.signatureOk).toBe(true);
      expect(req.headers['content-type']).toBe('application/json');
      expect(req.headers['user-agent']).toBe('store-webhooks/0.1.0');
      expect(req.headers['x-store-event']).toBe(req.event?.['type']);
      expect(req.deliveryId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      expect(req.headers['authorization']).toBe(`Basic ${Buffer.from('hook-user:hook-pass-9f2').toString('base64')}`);
      const keys = Object.keys(req.event ?? {});
      expect(keys).toEqual([
        'type',
        'bucket',
        'key',
        'size',
        'etag',
        ...(keys.includes('versionId') ? ['versionId'] : []),
        'eventTime',
      ]);
      expect(req.body.toString()).toBe(JSON.stringify(req.event));
    }
  });

  it('reports status without the URL, its credentials or the secret', async () => {
    let res = await store.adminCall('GET', '/webhooks/status');
    // Outcomes are written in batches a few milliseconds after the receiver's answer.
    for (let i = 0; i < 50 && (res.body as { counts: { pending: number } }).counts.pending > 0; i++) {
      await new Promise((r) => setTimeout(r, 20));
      res = await store.adminCall('GET', '/webhooks/status');
    }
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      enabled: true,
      counts: { pending: 0, delivered: receiver.accepted.size, failed: 0 },
      oldestPendingAgeSeconds: null,
      lastError: null,
    });
    const text = JSON.stringify(res.body);
    for (const hidden of ['hook-user', 'hook-pass-9f2', SECRET, '127.0.0.1']) expect(text).not.toContain(hidden);
    expect((await adminCall(store.server, undefined, { method: 'GET', path: '/webhooks/status' })).status).toBe(401);
    for (const hidden of ['hook-pass-9f2', SECRET]) expect(store.server.output()).not.toContain(hidden);
  });

  it('delivers every event of a 1,000-PUT burst exactly once after dedupe', async () => {
    const bucket = uniqueBucket('burst');
    await store.s3.send(new CreateBucketCommand({ Bucket: bucket }));
    const before = receiver.accepted.size;
    const keys = Array.from({ length: 1000 }, (_, i) => `k/${String(i).padStart(4, '0')}`);
    await putBurst(store.server, bucket, { keys: keys, concurrency: 32 });
    await receiver.waitForAccepted(before + keys.length, 60_000);
    const got = receiver
      .events()
      .filter((e) => e['bucket'] === bucket)
      .map((e) => e['key'] as string);
    expect(got.length).toBe(keys.length);
    expect(new Set(got)).toEqual(new Set(keys));
    expect(receiver.badSignatures).toBe(0);
  });
});

describe('a crash between commit and delivery', () => {
  const receiver = useWebhookReceiver(SECRET);
  it('delivers the committed events after kill -9 and a restart', async () => {
    // The receiver holds the first delivery open: the process dies with it in flight and nothing marked delivered.
    receiver.respond = () => 'hang';
    const store = await startStore({ env: { ...webhookEnv(receiver), WEBHOOK_TIMEOUT_MS: '30000' } });
    const bucket = await store.bucket('crash');
    const keys = ['one', 'two', 'three'];
    for (const key of keys) await store.s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: key }));
    const deadline = Date.now() + 10_000;
    while (receiver.requests.length < keys.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(receiver.accepted.size).toBe(0);
    await store.kill();

    receiver.respond = () => ({ status: 200 });
    await store.restart();
    await receiver.waitForAccepted(keys.length);
    expect(
      receiver
        .events()
        .map((e) => e['key'])
        .sort(),
    ).toEqual([...keys].sort());
    // The re-sent requests carry the delivery ids of the ones the crash cut off.
    const firstIds = new Set(receiver.requests.slice(0, keys.length).map((r) => r.deliveryId));
    expect(new Set(receiver.accepted.keys())).toEqual(firstIds);
    expect(receiver.badSignatures).toBe(0);
  });
});

describe('boot refusals', () => {
  it('refuses an http URL that is not loopback, and a short secret, without printing either', async () => {
    const { env } = await baseEnv(join(tempDir(), 'data'));
    const plain = await runServeExpectingExit({
      ...env,
      WEBHOOK_URL: 'http://user:pw-7731@hooks.example.net/in',
      WEBHOOK_SECRET: SECRET,
    });
    expect(plain.code).toBe(78);
    expect(plain.output).toContain('WEBHOOK_URL must be https, or http to a loopback host');
    expect(plain.output).not.toContain('pw-7731');
    const short = await runServeExpectingExit({
      ...env,
      WEBHOOK_URL: 'https://hooks.example.net/in',
      WEBHOOK_SECRET: 'Sh0rt-but-random-9x',
    });
    expect(short.code).toBe(78);
    expect(short.output).toContain('WEBHOOK_SECRET must be at least 32 characters');
    expect(short.output).not.toContain('Sh0rt-but-random-9x');
  });
});
