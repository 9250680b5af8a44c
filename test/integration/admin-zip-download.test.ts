// Zip downloads from the admin API (docs/admin-api.md, "Zip downloads"): a selection of keys and folders becomes a
// one-time link whose .zip holds the current versions, named relative to the folder, with an exact Content-Length;
// hostile keys get safe, distinct entry names; the link works once; bad selections are refused in words; read-only
// admins may download; a key deleted between the link and the download is left out.

import {
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  PutObjectCommand,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { beforeAll, describe, expect, it } from 'vitest';
import { adminCall, adminLogin } from '../helpers/admin-session.js';
import { sdkClient, uniqueBucket } from '../helpers/clients.js';
import { useInProcess } from '../helpers/in-process.js';
import { unzip } from '../helpers/zip-craft.js';

const app = useInProcess({ AUDIT_FLUSH_MS: '250' });
let admin: string;
let reader: string;

beforeAll(async () => {
  admin = await adminLogin(app.server);
  const created = await adminCall(app.server, admin, {
    method: 'POST',
    path: '/users',
    body: { username: 'zip-reader', role: 'read-only', password: 'quiet-observer-42' },
  });
  expect(created.status).toBe(201);
  reader = await adminLogin(app.server, 'zip-reader', 'quiet-observer-42');
});

interface Link {
  url: string;
  expiresAt: string;
  objects: number;
  bytes: number;
}

async function bucketWith(objects: Record<string, string | Buffer>, { versioned = false } = {}): Promise<string> {
  const bucket = uniqueBucket('zip');
  const made = await adminCall(app.server, admin, { method: 'POST', path: '/buckets', body: { name: bucket } });
  expect(made.status).toBe(201);
  const s3 = sdkClient(app.server);
  if (versioned) {
    const body = { status: 'Enabled' };
    expect(
      (await adminCall(app.server, admin, { method: 'PUT', path: `/buckets/${bucket}/versioning`, body })).status,
    ).toBeLessThan(300);
  }
  for (const [key, body] of Object.entries(objects))
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body }));
  return bucket;
}

const askZip = (bucket: string, body: unknown, token = admin) =>
  adminCall(app.server, token, { method: 'POST', path: `/buckets/${bucket}/objects/zip`, body });

async function fetchZip(link: Link): Promise<{ res: Response; bytes: Buffer }> {
  const res = await fetch(`${app.server.url}${link.url}`);
  return { res, bytes: Buffer.from(await res.arrayBuffer()) };
}

const text = (entries: Map<string, Buffer>): Record<string, string> =>
  Object.fromEntries([...entries].map(([name, bytes]) => [name, bytes.toString()]));

describe('zip downloads', () => {
  it('zips keys and folders relative to the base, with an exact length, once', async () => {
    const bucket = await bucketWith({
      'photos/2024/a.txt': 'alpha',
      'photos/2024/deep/b.txt': 'bravo',
      'photos/2024/empty/': '',
      'photos/2024x/not-in-folder.txt': 'no',
      'photos/c.txt': 'charlie',
      'photos/zero.txt': '',
      'elsewhere.txt': 'no',
    });
    const asked = await askZip(bucket, { base: 'photos/', items: ['photos/2024/', 'photos/c.txt', 'photos/zero.txt'] });
    expect(asked.status).toBe(200);
    const link = asked.body as Link;
    expect(link).toMatchObject({ objects: 5, bytes: 'alphabravocharlie'.length });
    expect(link.url).toMatch(/^\/api\/admin\/downloads\/[A-Za-z0-9_-]{43}$/);
    expect(Math.abs(Date.parse(link.expiresAt) - Date.now() - 60_000)).toBeLessThan(15_000);

    const { res, bytes } = await fetchZip(link);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/zip');
    expect(res.headers.get('content-disposition')).toBe(
      `attachment; filename="photos.zip"; filename*=UTF-8''photos.zip`,
    );
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(Number(res.headers.get('content-length'))).toBe(bytes.length);
    expect(text(await unzip(bytes))).toEqual({
      '2024/a.txt': 'alpha',
      '2024/deep/b.txt': 'bravo',
      '2024/empty/': '',
      'c.txt': 'charlie',
      'zero.txt': '',
    });
    // Spent: the same link opens nothing, and says so in the admin error envelope.
    const again = await fetch(`${app.server.url}${link.url}`);
    expect(again.status).toBe(401);
    expect(((await again.json()) as { error: string }).error).toBe('Unauthorized');
    expect((await fetch(`${app.server.url}/api/admin/downloads/${'x'.repeat(43)}`)).status).toBe(401);
  });

  it('zips a whole folder, or the whole bucket, when no items are given', async () => {
    const bucket = await bucketWith({ 'top.txt': 'top', 'dir/': '', 'dir/in.txt': 'in', 'dir/sub/deep.txt': 'deep' });
    const folder = (await askZip(bucket, { base: 'dir/' })).body as Link;
    expect(folder).toMatchObject({ objects: 2, bytes: 6 });
    expect(text(await unzip((await fetchZip(folder)).bytes))).toEqual({ 'in.txt': 'in', 'sub/deep.txt': 'deep' });
    const whole = (await askZip(bucket, {})).body as Link;
    expect(text(await unzip((await fetchZip(whole)).bytes))).toEqual({
      'top.txt': 'top',
      'dir/': '',
      'dir/in.txt': 'in',
      'dir/sub/deep.txt': 'deep',
    });
  });

  it('streams multipart objects whole and names a root selection after the bucket', async () => {
    const bucket = await bucketWith({ 'small.txt': 'small' });
    const s3 = sdkClient(app.server);
    const upload = await s3.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: 'big.bin' }));
    const parts = [Buffer.alloc(5 * 1024 * 1024, 1), Buffer.from('tail')];
    const done = [];
    for (const [i, body] of parts.entries()) {
      const part = await s3.send(
        new UploadPartCommand({
          Bucket: bucket,
          Key: 'big.bin',
          UploadId: upload.UploadId,
          PartNumber: i + 1,
          Body: body,
        }),
      );
      done.push({ PartNumber: i + 1, ETag: part.ETag });
    }
    await s3.send(
      new CompleteMultipartUploadCommand({
        Bucket: bucket,
        Key: 'big.bin',
        UploadId: upload.UploadId,
        MultipartUpload: { Parts: done },
      }),
    );
    const link = (await askZip(bucket, { items: ['big.bin', 'small.txt'] })).body as Link;
    const { res, bytes } = await fetchZip(link);
    expect(res.headers.get('content-disposition')).toContain(`filename="${bucket}.zip"`);
    const entries = await unzip(bytes);
    expect(entries.get('big.bin')?.equals(Buffer.concat(parts))).toBe(true);
    expect(entries.get('small.txt')?.toString()).toBe('small');
  });

  it('gives hostile keys safe, distinct names that stay inside the folder', async () => {
    const keys = ['../up.txt', 'a//b.txt', '/abs.txt', 'C:drive.txt', 'back\\slash.txt', '%2E%2E/lit.txt', './dot.txt'];
    const bucket = await bucketWith(Object.fromEntries(keys.map((k) => [k, `body of ${k}`])));
    const link = (await askZip(bucket, { items: keys })).body as Link;
    const entries = text(await unzip((await fetchZip(link)).bytes));
    expect(entries).toEqual({
      '%2E%2E/up.txt': 'body of ../up.txt',
      'a/%2F/b.txt': 'body of a//b.txt',
      '%2F/abs.txt': 'body of /abs.txt',
      'C%3Adrive.txt': 'body of C:drive.txt',
      'back%5Cslash.txt': 'body of back\\slash.txt',
      '%252E%252E/lit.txt': 'body of %2E%2E/lit.txt',
      '%2E/dot.txt': 'body of ./dot.txt',
    });
  });

  it('leaves out a key deleted after the link was made, and zips only current versions', async () => {
    const bucket = await bucketWith({ 'keep.txt': 'v1', 'gone.txt': 'bye' }, { versioned: true });
    const s3 = sdkClient(app.server);
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'keep.txt', Body: 'v2' }));
    const link = (await askZip(bucket, { items: ['keep.txt', 'gone.txt'] })).body as Link;
    expect(link.objects).toBe(2);
    await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: 'gone.txt' }));
    expect(text(await unzip((await fetchZip(link)).bytes))).toEqual({ 'keep.txt': 'v2' });
    // Deleted (a delete marker is current): selecting it now is refused.
    const refused = await askZip(bucket, { items: ['gone.txt'] });
    expect([refused.status, (refused.body as { error: string }).error]).toEqual([404, 'NoSuchKey']);
  });

  it('refuses bad selections in words', async () => {
    const bucket = await bucketWith({ 'dir/a.txt': 'a' });
    const refusal = async (body: unknown, b = bucket) => {
      const res = await askZip(b, body);
      const { error, message } = res.body as { error: string; message: string };
      return [res.status, error, message];
    };
    expect(await refusal({ items: [] })).toEqual([400, 'ValidationError', expect.stringContaining('items')]);
    expect(await refusal({ items: ['x'.repeat(10)], extra: 1 })).toEqual([400, 'ValidationError', expect.any(String)]);
    expect(await refusal({ items: Array.from({ length: 1001 }, (_, i) => `k${i}`) })).toEqual([
      400,
      'ValidationError',
      expect.stringContaining('items'),
    ]);
    expect(await refusal({ base: 'dir/', items: ['other.txt'] })).toEqual([
      400,
      'InvalidRequest',
      '"other.txt" is not inside the folder "dir/".',
    ]);
    expect(await refusal({ base: 'dir', items: ['dir/a.txt'] })).toEqual([
      400,
      'InvalidRequest',
      expect.stringContaining('folder'),
    ]);
    expect(await refusal({ items: ['missing.txt'] })).toEqual([404, 'NoSuchKey', expect.stringContaining('missing')]);
    expect(await refusal({ items: ['a'] }, uniqueBucket('nope'))).toEqual([404, 'NoSuchBucket', expect.any(String)]);
    const noToken = await adminCall(app.server, undefined, {
      method: 'POST',
      path: `/buckets/${bucket}/objects/zip`,
      body: { items: ['dir/a.txt'] },
    });
    expect(noToken.status).toBe(401);
  });

  it('lets a read-only admin download, and audits who asked', async () => {
    const bucket = await bucketWith({ 'r.txt': 'readable' });
    const asked = await askZip(bucket, { items: ['r.txt'] }, reader);
    expect(asked.status).toBe(200);
    expect(text(await unzip((await fetchZip(asked.body as Link)).bytes))).toEqual({ 'r.txt': 'readable' });
    await expect
      .poll(async () => {
        const res = await adminCall(app.server, admin, { method: 'GET', path: `/audit?event=object.zip_downloaded` });
        return (res.body as { items: { subject: string; bucket?: string; details?: unknown }[] }).items.find(
          (e) => e.bucket === bucket,
        );
      })
      .toMatchObject({ subject: 'zip-reader', details: { base: '', items: 1, objects: 1, bytes: 8 } });
  });
});
