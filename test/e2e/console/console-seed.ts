// Data for the console's walks (read-only, accessibility, screenshots), made through the admin API so every page
// has something to show: a versioned bucket with folders, text, an image, older versions and a delete marker; a
// bucket with object lock and every configuration set; a scoped access key; a read-only user; audit records; a
// notification target and a bucket configuration naming it.

import { crc32, deflateSync } from 'node:zlib';
import { expect } from 'vitest';
import { adminCall, adminLogin } from '../../helpers/admin-session.js';
import type { RunningServer } from '../../helpers/server.js';

/** A PNG (a 96x64 colour gradient) encoded here with node:zlib, so previews have a real image to decode. */
export function tinyPng(width = 96, height = 64): Buffer {
  const chunk = (type: string, data: Buffer): Buffer => {
    const head = Buffer.alloc(4);
    head.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([head, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8); // 8-bit RGB, no interlace
  const raw = Buffer.alloc((width * 3 + 1) * height);
  for (let y = 0; y < height; y++) {
    const row = y * (width * 3 + 1);
    for (let x = 0; x < width; x++)
      raw.set([Math.round((x / width) * 255), Math.round((y / height) * 255), 160], row + 1 + x * 3);
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

export interface Seeded {
  token: string;
  bucket: string;
  lockedBucket: string;
  keyId: string;
  reader: { username: string; password: string };
}

async function put(
  server: RunningServer,
  token: string,
  { bucket, key, body, type }: { bucket: string; key: string; body: Buffer | string; type: string },
): Promise<void> {
  const res = await fetch(`${server.url}/api/admin/buckets/${bucket}/objects/content?key=${encodeURIComponent(key)}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${token}`, 'content-type': type },
    body: typeof body === 'string' ? body : new Blob([Uint8Array.from(body)]),
  });
  expect(res.status, `PUT ${key}`).toBe(200);
}

async function ok(call: Promise<{ status: number; body: unknown }>, what: string): Promise<unknown> {
  const res = await call;
  expect(res.status, `${what}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
  return res.body;
}

export async function seedConsoleData(server: RunningServer): Promise<Seeded> {
  const token = await adminLogin(server);
  const bucket = 'photos';
  const lockedBucket = 'records';
  await ok(
    adminCall(server, token, { method: 'POST', path: '/buckets', body: { name: bucket, versioning: true } }),
    'create photos',
  );
  await ok(
    adminCall(server, token, { method: 'POST', path: '/buckets', body: { name: lockedBucket, objectLock: true } }),
    'create records',
  );
  await ok(
    adminCall(server, token, { method: 'POST', path: '/buckets', body: { name: 'empty-bucket' } }),
    'create empty-bucket',
  );
  await put(server, token, { bucket, key: 'readme.txt', body: 'first version\n', type: 'text/plain' });
  await put(server, token, { bucket, key: 'readme.txt', body: 'second version\n', type: 'text/plain' });
  await put(server, token, { bucket, key: '2030/beach.png', body: tinyPng(), type: 'image/png' });
  await put(server, token, { bucket, key: '2030/notes.md', body: '# Notes\n\nA trip.\n', type: 'text/markdown' });
  await put(server, token, { bucket, key: 'gone.txt', body: 'deleted soon', type: 'text/plain' });
  await ok(
    adminCall(server, token, { method: 'DELETE', path: `/buckets/${bucket}/objects/content?key=gone.txt` }),
    'delete gone.txt',
  );
  await put(server, token, { bucket: lockedBucket, key: 'contract.txt', body: 'signed', type: 'text/plain' });
  await ok(
    adminCall(server, token, {
      method: 'PUT',
      path: `/buckets/${lockedBucket}/object-lock`,
      body: { enabled: true, defaultRetention: { mode: 'GOVERNANCE', days: 1 } },
    }),
    'object lock',
  );
  await ok(
    adminCall(server, token, {
      method: 'PUT',
      path: `/buckets/${bucket}/lifecycle`,
      body: {
        rules: [
          {
            id: 'expire-tmp',
            status: 'Enabled',
            filter: { prefix: 'tmp/' },
            expiration: { days: 7 },
            noncurrentVersionExpiration: { noncurrentDays: 30 },
          },
        ],
      },
    }),
    'lifecycle',
  );
  await ok(
    adminCall(server, token, {
      method: 'PUT',
      path: `/buckets/${bucket}/cors`,
      body: {
        rules: [
          {
            allowedOrigins: ['https://app.example.com'],
            allowedMethods: ['GET', 'PUT'],
            allowedHeaders: ['*'],
            maxAgeSeconds: 600,
          },
        ],
      },
    }),
    'cors',
  );
  await ok(
    adminCall(server, token, {
      method: 'PUT',
      path: `/buckets/${bucket}/policy`,
      body: {
        Version: '2012-10-17',
        Statement: [
          {
            Sid: 'DenyDelete',
            Effect: 'Deny',
            Principal: '*',
            Action: 's3:DeleteBucket',
            Resource: `arn:aws:s3:::${bucket}`,
          },
        ],
      },
    }),
    'policy',
  );
  await ok(
    adminCall(server, token, {
      method: 'PUT',
      path: `/buckets/${bucket}/tagging`,
      body: { tags: [{ key: 'team', value: 'media' }] },
    }),
    'tags',
  );
  await ok(
    adminCall(server, token, {
      method: 'PUT',
      path: `/buckets/${bucket}/encryption`,
      body: { sseAlgorithm: 'AES256' },
    }),
    'encryption',
  );
  await ok(
    adminCall(server, token, {
      method: 'PUT',
      path: `/buckets/${bucket}/objects/tagging?key=readme.txt`,
      body: { tags: [{ key: 'kind', value: 'doc' }] },
    }),
    'object tags',
  );
  // An unfinished multipart upload, so the uploads tab has a row.
  await ok(
    adminCall(server, token, { method: 'POST', path: `/buckets/${bucket}/uploads`, body: { key: 'tmp/partial.bin' } }),
    'start upload',
  );
  const key = (await ok(
    adminCall(server, token, {
      method: 'POST',
      path: '/keys',
      body: {
        name: 'uploader',
        description: 'The photo uploader',
        permissions: { scope: { bucket, prefix: '2030/', actions: ['GetObject', 'PutObject', 'ListBucket'] } },
      },
    }),
    'create key',
  )) as { accessKeyId: string };
  const password = 'quiet-observer-4821';
  await ok(
    adminCall(server, token, {
      method: 'POST',
      path: '/users',
      body: { username: 'reader', role: 'read-only', password },
    }),
    'create reader',
  );
  // A notification target on a loopback port nothing listens on (the discard port), named by the bucket's event
  // configuration: its test event fails, so the Notifications page shows a failing target.
  const target = (await ok(
    adminCall(server, token, {
      method: 'POST',
      path: '/notification-targets',
      body: { id: 'image-hook', kind: 'webhook', config: { endpoint: 'http://127.0.0.1:9/hook' } },
    }),
    'notification target',
  )) as { arn: string };
  await ok(
    adminCall(server, token, {
      method: 'PUT',
      path: `/buckets/${bucket}/notification`,
      body: { rules: [{ id: 'new-images', arn: target.arn, events: ['s3:ObjectCreated:*'], prefix: '2030/' }] },
    }),
    'notification configuration',
  );
  return { token, bucket, lockedBucket, keyId: key.accessKeyId, reader: { username: 'reader', password } };
}
