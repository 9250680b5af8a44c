// An access key made in the console with a scope (one bucket, one prefix, no deletes), then used by the AWS SDK:
// allowed inside the scope, AccessDenied outside it. The simulator agrees; rotating in the console stops the old
// secret; revoking stops the key.

import {
  DeleteObjectCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { beforeAll, describe, expect, it } from 'vitest';
import { useStore } from '../../helpers/store.js';
import { settle, useBrowser } from './console-browser.js';

const store = useStore({ env: { STORE_TRUSTED_PROXIES: '127.0.0.1' } });
let keyId = '';
let secret = '';

const client = (accessKeyId: string, secretAccessKey: string): S3Client =>
  new S3Client({
    endpoint: store.server.url,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId, secretAccessKey },
    maxAttempts: 1,
  });

/** The S3 error code of a rejected call, or 'ok'. */
async function outcome(call: Promise<unknown>): Promise<string> {
  try {
    await call;
    return 'ok';
  } catch (err) {
    return err instanceof S3ServiceException ? err.name : String(err);
  }
}

beforeAll(async () => {
  for (const name of ['team-data', 'other-data'])
    expect((await store.adminCall('POST', '/buckets', { name })).status).toBe(201);
  for (const [bucket, key] of [
    ['team-data', 'team/a.txt'],
    ['team-data', 'private/b.txt'],
    ['other-data', 'team/c.txt'],
  ] as const) {
    const res = await fetch(
      `${store.server.url}/api/admin/buckets/${bucket}/objects/content?key=${encodeURIComponent(key)}`,
      {
        method: 'PUT',
        headers: { authorization: `Bearer ${await store.admin()}` },
        body: `contents of ${key}`,
      },
    );
    expect(res.status).toBe(200);
  }
});
const chromium = useBrowser({ signIn: store });

describe('an access key with a scope', () => {
  it('is created in the console, its secret shown once', async () => {
    await chromium.page.getByRole('link', { name: 'Access keys' }).click();
    await chromium.page.getByRole('button', { name: 'Create access key' }).click();
    const dialog = chromium.page.getByRole('dialog', { name: 'Create an access key' });
    await dialog.getByLabel('Name', { exact: true }).fill('team uploader');
    await dialog.getByLabel('Bucket', { exact: true }).selectOption('team-data');
    await dialog.getByLabel('Only keys starting with').fill('team/');
    await dialog.getByLabel(/Delete objects/).uncheck();
    await dialog.getByRole('button', { name: 'Create key' }).click();
    const created = chromium.page.getByRole('dialog', { name: 'Access key created' });
    keyId = await created.getByLabel('Access key ID').inputValue();
    secret = await created.getByLabel('Secret access key').inputValue();
    expect(keyId).toMatch(/^[A-Z0-9]{20}$/);
    expect(secret.length).toBeGreaterThanOrEqual(32);
    await created.getByRole('button', { name: 'Done' }).click();
    await chromium.page.getByRole('link', { name: 'team uploader' }).waitFor();
  });

  it('lets the AWS SDK do what the scope allows and denies the rest', async () => {
    const s3 = client(keyId, secret);
    expect(await outcome(s3.send(new GetObjectCommand({ Bucket: 'team-data', Key: 'team/a.txt' })))).toBe('ok');
    expect(
      await outcome(s3.send(new PutObjectCommand({ Bucket: 'team-data', Key: 'team/new.txt', Body: 'new' }))),
    ).toBe('ok');
    expect(await outcome(s3.send(new ListObjectsV2Command({ Bucket: 'team-data', Prefix: 'team/' })))).toBe('ok');
    // Outside the scope: another prefix, another bucket, an action not granted, a listing beyond the prefix.
    expect(await outcome(s3.send(new GetObjectCommand({ Bucket: 'team-data', Key: 'private/b.txt' })))).toBe(
      'AccessDenied',
    );
    expect(await outcome(s3.send(new PutObjectCommand({ Bucket: 'team-data', Key: 'private/x.txt', Body: 'x' })))).toBe(
      'AccessDenied',
    );
    expect(await outcome(s3.send(new GetObjectCommand({ Bucket: 'other-data', Key: 'team/c.txt' })))).toBe(
      'AccessDenied',
    );
    expect(await outcome(s3.send(new DeleteObjectCommand({ Bucket: 'team-data', Key: 'team/a.txt' })))).toBe(
      'AccessDenied',
    );
    expect(await outcome(s3.send(new ListObjectsV2Command({ Bucket: 'team-data' })))).toBe('AccessDenied');
    s3.destroy();
  });

  it('answers the simulator the same way', async () => {
    await chromium.page.getByRole('link', { name: 'team uploader' }).click();
    await settle(chromium.page);
    const sim = chromium.page.getByRole('region', { name: 'Simulator' });
    await sim.getByLabel('Key (or listing prefix)').fill('team/a.txt');
    await sim.getByRole('button', { name: 'Simulate' }).click();
    await sim.getByText('Allowed').waitFor();
    await sim.getByLabel('Key (or listing prefix)').fill('private/b.txt');
    await sim.getByRole('button', { name: 'Simulate' }).click();
    await sim.getByText('Denied').waitFor();
  });

  it('stops the old secret when rotated, and the whole key when revoked', async () => {
    await chromium.page.getByRole('button', { name: 'Rotate secret' }).click();
    await chromium.page
      .getByRole('dialog', { name: 'Rotate the secret?' })
      .getByRole('button', { name: 'Rotate secret' })
      .click();
    const shown = chromium.page.getByRole('dialog', { name: 'New secret' });
    const fresh = await shown.getByLabel('Secret access key').inputValue();
    await shown.getByRole('button', { name: 'Done' }).click();
    expect(fresh).not.toBe(secret);
    const old = client(keyId, secret);
    expect(await outcome(old.send(new GetObjectCommand({ Bucket: 'team-data', Key: 'team/a.txt' })))).toBe(
      'SignatureDoesNotMatch',
    );
    const rotated = client(keyId, fresh);
    expect(await outcome(rotated.send(new GetObjectCommand({ Bucket: 'team-data', Key: 'team/a.txt' })))).toBe('ok');

    await chromium.page.getByRole('button', { name: 'Revoke' }).click();
    const confirm = chromium.page.getByRole('dialog', { name: 'Revoke this key?' });
    await confirm.getByLabel(/Type/).fill('team uploader');
    await confirm.getByRole('button', { name: 'Revoke key' }).click();
    await chromium.page.getByRole('heading', { name: 'Access keys' }).waitFor();
    expect(await outcome(rotated.send(new GetObjectCommand({ Bucket: 'team-data', Key: 'team/a.txt' })))).toBe(
      'InvalidAccessKeyId',
    );
    old.destroy();
    rotated.destroy();
    expect(chromium.problems).toEqual([]);
  });
});
