// Access-key expiry (docs/access-keys.md "Expiry"): set at creation, changed or removed by a full admin, shown by the
// admin API, and enforced on the S3 plane with the clock the app was given (BuildOptions.keyClock), never a sleep:
// header-signed requests and presigned URLs signed with the key both fail with 403 InvalidAccessKeyId at expiry. Also
// GET /connection, what the console builds its client snippets from.

import { CreateBucketCommand, GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { beforeAll, describe, expect, it } from 'vitest';
import { adminCall, adminLogin } from '../helpers/admin-session.js';
import { sdkClient, uniqueBucket } from '../helpers/clients.js';
import { useInProcess } from '../helpers/in-process.js';
import { expectS3Error } from './s3-assert.js';

const HOUR = 3_600_000;
/** The app's key clock: starts at the real time (signatures are checked against it) and only moves forward. */
let offset = 0;
const keyClock = (): number => Date.now() + offset;
const store = useInProcess({}, { keyClock });

let token: string;
const call = (method: string, path: string, body?: unknown) => adminCall(store.server, token, { method, path, body });

interface Issued {
  accessKeyId: string;
  secretAccessKey: string;
  expiresAt: string | null;
}

async function createKey(expiresAt: string | null | undefined, bucket: string): Promise<Issued> {
  const res = await call('POST', '/keys', {
    name: 'expiring',
    permissions: { scope: { bucket } },
    ...(expiresAt === undefined ? {} : { expiresAt }),
  });
  expect(res.status).toBe(201);
  return res.body as Issued;
}

let bucket: string;
beforeAll(async () => {
  token = await adminLogin(store.server);
  bucket = uniqueBucket('expiry');
  const root = sdkClient(store.server);
  await root.send(new CreateBucketCommand({ Bucket: bucket }));
  await root.send(new PutObjectCommand({ Bucket: bucket, Key: 'a.txt', Body: 'hello' }));
  root.destroy();
});

const read = (s3: S3Client) => s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'a.txt' }));

describe('a key with an expiry', () => {
  it('works until it expires, then gets 403 InvalidAccessKeyId for signed requests and presigned URLs alike', async () => {
    offset = 0;
    const expiresAt = new Date(keyClock() + 3 * 24 * HOUR).toISOString();
    const key = await createKey(expiresAt, bucket);
    expect(key.expiresAt).toBe(expiresAt);
    const listed = (await call('GET', '/keys')).body as { items: Issued[] };
    expect(listed.items.find((k) => k.accessKeyId === key.accessKeyId)?.expiresAt).toBe(expiresAt);
    const s3 = sdkClient(store.server, key);
    expect((await read(s3)).$metadata.httpStatusCode).toBe(200);
    const presigned = await getSignedUrl(s3, new GetObjectCommand({ Bucket: bucket, Key: 'a.txt' }), {
      expiresIn: 7 * 24 * 3600,
    });
    expect((await fetch(presigned)).status).toBe(200);

    offset = 3 * 24 * HOUR - 1_000; // a second before: still valid
    expect((await read(s3)).$metadata.httpStatusCode).toBe(200);
    offset = 3 * 24 * HOUR; // at the expiry instant
    await expectS3Error(read(s3), 'InvalidAccessKeyId', 403);
    const refused = await fetch(presigned);
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain('<Code>InvalidAccessKeyId</Code>');
    s3.destroy();
  });

  it('is extended or cleared by a full admin, which makes an expired key work again', async () => {
    offset = 0;
    const key = await createKey(new Date(keyClock() + HOUR).toISOString(), bucket);
    const s3 = sdkClient(store.server, key);
    offset = 2 * HOUR;
    await expectS3Error(read(s3), 'InvalidAccessKeyId', 403);
    const later = new Date(keyClock() + HOUR).toISOString();
    const extended = await call('PATCH', `/keys/${key.accessKeyId}`, { expiresAt: later });
    expect([extended.status, (extended.body as Issued).expiresAt]).toEqual([200, later]);
    expect((await read(s3)).$metadata.httpStatusCode).toBe(200);
    offset = 10 * HOUR;
    await expectS3Error(read(s3), 'InvalidAccessKeyId', 403);
    const cleared = await call('PATCH', `/keys/${key.accessKeyId}`, { expiresAt: null });
    expect((cleared.body as Issued).expiresAt).toBeNull();
    expect((await read(s3)).$metadata.httpStatusCode).toBe(200);
    s3.destroy();
  });

  it('refuses an expiry in the past or not a date-time, at creation and on update, naming the field', async () => {
    offset = 0;
    const past = await call('POST', '/keys', { name: 'x', expiresAt: new Date(keyClock() - 1000).toISOString() });
    expect([past.status, (past.body as { error: string }).error]).toEqual([400, 'ValidationError']);
    expect((past.body as { message: string }).message).toContain('expiresAt');
    const garbage = await call('POST', '/keys', { name: 'x', expiresAt: 'next tuesday' });
    expect([garbage.status, (garbage.body as { message: string }).message]).toEqual([
      400,
      expect.stringContaining('expiresAt'),
    ]);
    const key = await createKey(undefined, bucket);
    expect(key.expiresAt).toBeNull();
    const update = await call('PATCH', `/keys/${key.accessKeyId}`, { expiresAt: new Date(0).toISOString() });
    expect(update.status).toBe(400);
  });
});

describe('GET /connection', () => {
  it('answers what S3 clients are configured with besides a key: no STORE_ENDPOINT here, the region, MOUNT_PATH', async () => {
    const res = await call('GET', '/connection');
    expect([res.status, res.body]).toEqual([200, { endpoint: null, region: 'us-east-1', mountPath: '' }]);
  });
});
