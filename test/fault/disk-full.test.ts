// Disk full (issue 11): DATA_DIR on a small tmpfs mounted by the test. With the free-space reserve
// (STORE_MIN_FREE_BYTES) every object write is refused with 507 InsufficientStorage while reads, deletes and tagging
// keep working; with the volume filled to the last byte (reserve off, or space taken by something else) blob writes
// and SQLite commits fail with 507 too, never a 500, a hang-up, a crash, a temp file left or a damaged database, and a
// kill -9 on the full disk boots again. Writes succeed once space is freed. The scheduled-backup directory is in
// disk-full-backup.test.ts.

import { randomBytes } from 'node:crypto';
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import {
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  PutObjectTaggingCommand,
  UploadPartCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { describe, expect, it, onTestFinished } from 'vitest';
import { readDbSnapshot, sha256Hex } from '../helpers/data-dir-inspect.js';
import { waitFor } from '../helpers/replication.js';
import type { RunningServer } from '../helpers/server.js';
import { startStore } from '../helpers/store.js';
import { fill, mountTmpfs, tmpfsUnavailable } from '../helpers/tmpfs.js';

const MiB = 1024 * 1024;
const unavailable = tmpfsUnavailable();
if (unavailable) console.log(`disk-full suite skipped: ${unavailable}`);

/** 'ok', or '<status> <code>' of the failure ('no-response ...' for a hang-up). */
async function outcome(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'ok';
  } catch (err) {
    const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
    return `${e.$metadata?.httpStatusCode ?? 'no-response'} ${e.name}`;
  }
}

async function adminUpload(
  server: RunningServer,
  token: string,
  { bucket, key, body }: { bucket: string; key: string; body: Buffer },
): Promise<string> {
  const res = await fetch(`${server.url}/api/admin/buckets/${bucket}/objects/content?key=${encodeURIComponent(key)}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream' },
    body,
  });
  const text = await res.text();
  return res.status === 200 ? 'ok' : `${res.status} ${(JSON.parse(text) as { error: string }).error}`;
}

async function getHash(s3: S3Client, bucket: string, key: string): Promise<string> {
  const got = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  return sha256Hex(await got.Body!.transformToByteArray());
}

/** Objects stored before the disk fills: key -> SHA-256. */
async function seed(s3: S3Client, bucket: string, objects: Record<string, Buffer>): Promise<Map<string, string>> {
  const hashes = new Map<string, string>();
  for (const [key, body] of Object.entries(objects)) {
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body }));
    hashes.set(key, sha256Hex(body));
  }
  return hashes;
}

async function expectIntact(s3: S3Client, bucket: string, hashes: Map<string, string>): Promise<void> {
  for (const [key, hash] of hashes) expect(await getHash(s3, bucket, key), key).toBe(hash);
}

/** A multipart upload with its first part stored; complete() takes the parts uploaded so far. */
async function openUpload(s3: S3Client, { bucket, key }: { bucket: string; key: string }, first: Buffer) {
  const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: key }));
  const parts = [
    {
      PartNumber: 1,
      ETag: (await s3.send(new UploadPartCommand({ Bucket: bucket, Key: key, UploadId, PartNumber: 1, Body: first })))
        .ETag,
    },
  ];
  return {
    part: (n: number, body: Buffer) =>
      s3.send(new UploadPartCommand({ Bucket: bucket, Key: key, UploadId, PartNumber: n, Body: body })).then((r) => {
        parts.push({ PartNumber: n, ETag: r.ETag });
      }),
    complete: () =>
      s3.send(
        new CompleteMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId, MultipartUpload: { Parts: parts } }),
      ),
  };
}

const tmpFiles = (server: RunningServer): string[] => readdirSync(join(server.dataDir, 'tmp'));

describe.skipIf(unavailable !== undefined)('a full data volume', () => {
  it('refuses every object write with 507 at the free-space reserve, keeps reads, deletes and tagging working, and writes again once space is freed', async () => {
    const volume = mountTmpfs(48 * MiB);
    onTestFinished(() => volume.unmount());
    const store = await startStore({
      dataDir: join(volume.dir, 'data'),
      env: { STORE_MIN_FREE_BYTES: String(12 * MiB) },
    });
    const { server } = store;
    const s3 = store.s3;
    const token = await store.admin();
    try {
      await s3.send(new CreateBucketCommand({ Bucket: 'full' }));
      const stored = await seed(s3, 'full', {
        small: randomBytes(2000),
        medium: randomBytes(300_000),
        large: randomBytes(3 * MiB),
      });
      const upload = await openUpload(s3, { bucket: 'full', key: 'assembled' }, randomBytes(5 * MiB));
      /** Every kind of write, each as its outcome ('ok' or 'status Code'). */
      const everyWrite = async (): Promise<Record<string, string>> => ({
        putLarge: await outcome(
          s3.send(new PutObjectCommand({ Bucket: 'full', Key: 'new-large', Body: randomBytes(MiB) })),
        ),
        putSmall: await outcome(
          s3.send(new PutObjectCommand({ Bucket: 'full', Key: 'new-small', Body: randomBytes(100) })),
        ),
        uploadPart: await outcome(upload.part(2, randomBytes(100_000))),
        complete: await outcome(upload.complete()),
        copy: await outcome(
          s3.send(new CopyObjectCommand({ Bucket: 'full', Key: 'copied', CopySource: 'full/medium' })),
        ),
        adminUpload: await adminUpload(server, token, { bucket: 'full', key: 'admin-new', body: randomBytes(50_000) }),
      });

      // Fill with objects up to the reserve: the last PUT is refused by the reserve, not by the disk.
      let filled = 0;
      for (; ; filled++) {
        const result = await outcome(
          s3.send(new PutObjectCommand({ Bucket: 'full', Key: `fill/${filled}`, Body: randomBytes(MiB) })),
        );
        if (result !== 'ok') {
          expect(result).toBe('507 InsufficientStorage');
          break;
        }
      }
      expect(filled).toBeGreaterThan(5);
      expect(volume.free()).toBeGreaterThan(11 * MiB);
      // Something else takes 2 MiB more (a log file), so the volume is under the reserve for every write.
      fill(join(volume.dir, 'other'), volume.free() - 2 * MiB, volume.free);
      await new Promise((r) => setTimeout(r, 300)); // the reserve's reading is at most 250 ms old

      const refused = await everyWrite();
      console.log(
        `at the reserve (${(volume.free() / MiB).toFixed(1)} MiB free after ${filled} MiB of objects):`,
        refused,
      );
      for (const [op, result] of Object.entries(refused)) expect(result, op).toMatch(/^507 InsufficientStorage$/);

      await expectIntact(s3, 'full', stored);
      expect((await s3.send(new HeadObjectCommand({ Bucket: 'full', Key: 'large' }))).ContentLength).toBe(3 * MiB);
      expect((await s3.send(new ListObjectsV2Command({ Bucket: 'full' }))).KeyCount).toBe(stored.size + filled);
      expect(await outcome(s3.send(new DeleteObjectCommand({ Bucket: 'full', Key: 'fill/0' })))).toBe('ok');
      const batch = await s3.send(
        new DeleteObjectsCommand({ Bucket: 'full', Delete: { Objects: [1, 2, 3].map((i) => ({ Key: `fill/${i}` })) } }),
      );
      expect(batch.Deleted?.length).toBe(3);
      expect(
        await outcome(
          s3.send(
            new PutObjectTaggingCommand({
              Bucket: 'full',
              Key: 'medium',
              Tagging: { TagSet: [{ Key: 'k', Value: 'v' }] },
            }),
          ),
        ),
      ).toBe('ok');
      expect(tmpFiles(server)).toEqual([]);

      // Space freed: the other file goes and the fill objects are deleted; their blobs are unlinked by the GC.
      rmSync(join(volume.dir, 'other'));
      await s3.send(
        new DeleteObjectsCommand({
          Bucket: 'full',
          Delete: { Objects: Array.from({ length: filled - 4 }, (_, i) => ({ Key: `fill/${i + 4}` })) },
        }),
      );
      await waitFor('the freed blobs to be unlinked', () => volume.free() > 30 * MiB, { timeoutMs: 15_000 });
      const accepted = await everyWrite();
      expect(accepted).toEqual({
        putLarge: 'ok',
        putSmall: 'ok',
        uploadPart: 'ok',
        complete: 'ok',
        copy: 'ok',
        adminUpload: 'ok',
      });
      expect(await getHash(s3, 'full', 'copied')).toBe(stored.get('medium'));
      await expectIntact(s3, 'full', stored);
      expect(readDbSnapshot(server.dataDir).integrity).toEqual(['ok']);
    } finally {
      expect(await store.stop()).toBe(0);
    }
  });

  it('answers 507 when the volume is full to the last byte (blob files and SQLite commits), survives a kill -9 there, and comes back', async () => {
    const volume = mountTmpfs(32 * MiB);
    onTestFinished(() => volume.unmount());
    const store = await startStore({ dataDir: join(volume.dir, 'data'), env: { STORE_MIN_FREE_BYTES: '0' } });
    let { server, s3 } = store;
    const token = await store.admin();
    await s3.send(new CreateBucketCommand({ Bucket: 'brim' }));
    const stored = await seed(s3, 'brim', { small: randomBytes(3000), medium: randomBytes(400_000) });
    const upload = await openUpload(s3, { bucket: 'brim', key: 'assembled' }, randomBytes(200_000));
    fill(join(volume.dir, 'filler'), 0, volume.free);
    expect(volume.free()).toBe(0);

    // Writes of bytes always need blocks; metadata-only changes need WAL frames, which may still fit in the WAL file.
    const blobWrites = {
      putLarge: await outcome(
        s3.send(new PutObjectCommand({ Bucket: 'brim', Key: 'new-large', Body: randomBytes(MiB) })),
      ),
      uploadPart: await outcome(upload.part(2, randomBytes(100_000))),
      copy: await outcome(s3.send(new CopyObjectCommand({ Bucket: 'brim', Key: 'copied', CopySource: 'brim/medium' }))),
      adminUpload: await adminUpload(server, token, { bucket: 'brim', key: 'admin-new', body: randomBytes(100_000) }),
    };
    const burst = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        outcome(s3.send(new PutObjectCommand({ Bucket: 'brim', Key: `burst/${i}`, Body: randomBytes(200_000) }))),
      ),
    );
    const metadataWrites = {
      putSmall: await outcome(
        s3.send(new PutObjectCommand({ Bucket: 'brim', Key: 'new-small', Body: randomBytes(100) })),
      ),
      complete: await outcome(upload.complete()),
      tag: await outcome(
        s3.send(
          new PutObjectTaggingCommand({
            Bucket: 'brim',
            Key: 'medium',
            Tagging: { TagSet: [{ Key: 'k', Value: 'v' }] },
          }),
        ),
      ),
      delete: await outcome(s3.send(new DeleteObjectCommand({ Bucket: 'brim', Key: 'small' }))),
      createBucket: await outcome(s3.send(new CreateBucketCommand({ Bucket: 'brim-two' }))),
    };
    console.log(
      'volume full to the last byte:',
      blobWrites,
      metadataWrites,
      `burst of 12 PUTs: ${[...new Set(burst)].join(', ')}`,
    );
    for (const [op, result] of Object.entries(blobWrites)) expect(result, op).toBe('507 InsufficientStorage');
    expect(new Set(burst)).toEqual(new Set(['507 InsufficientStorage']));
    for (const [op, result] of Object.entries(metadataWrites))
      expect(result, op).toMatch(/^(ok|507 InsufficientStorage)$/);
    // What was acknowledged is there; what was refused is not.
    if (metadataWrites.delete === 'ok') stored.delete('small');
    await expectIntact(s3, 'brim', stored);
    expect(await outcome(s3.send(new HeadObjectCommand({ Bucket: 'brim', Key: 'new-small' })))).toBe(
      metadataWrites.putSmall === 'ok' ? 'ok' : '404 NotFound',
    );
    expect(tmpFiles(server)).toEqual([]);
    expect((await fetch(`${server.url}/api/admin/health`)).status).toBe(200);
    expect(readDbSnapshot(server.dataDir).integrity).toEqual(['ok']);

    // A crash on the full disk, and a boot while it is still full: reads work, writes are still refused.
    await store.kill();
    await store.restart();
    ({ server, s3 } = store);
    expect((await fetch(`${server.url}/api/admin/ready`)).status).toBe(200);
    await expectIntact(s3, 'brim', stored);
    expect(
      await outcome(s3.send(new PutObjectCommand({ Bucket: 'brim', Key: 'new-large', Body: randomBytes(MiB) }))),
    ).toBe('507 InsufficientStorage');

    rmSync(join(volume.dir, 'filler'));
    expect(
      await outcome(s3.send(new PutObjectCommand({ Bucket: 'brim', Key: 'new-large', Body: randomBytes(MiB) }))),
    ).toBe('ok');
    expect(
      await outcome(s3.send(new CopyObjectCommand({ Bucket: 'brim', Key: 'copied', CopySource: 'brim/medium' }))),
    ).toBe('ok');
    expect(await adminUpload(server, token, { bucket: 'brim', key: 'admin-new', body: randomBytes(100_000) })).toBe(
      'ok',
    );
    await expectIntact(s3, 'brim', stored);
    expect(await getHash(s3, 'brim', 'copied')).toBe(stored.get('medium'));
    expect(readDbSnapshot(server.dataDir).integrity).toEqual(['ok']);
    expect(await store.stop()).toBe(0);
  });
});
