// The proof a backup works (ARCHITECTURE "Known pitfalls"): a rich instance is backed up and restored into a fresh
// instance with a different SSE key, and everything a client can observe is equal afterwards: buckets and their
// configuration, every version and delete marker in order, metadata, tags, lock settings and bytes; the restored
// blobs are encrypted under the new key (no plaintext on disk). Also: restore is a reset (what the archive lacks is
// removed), a bucket restore touches only its bucket, and a backup taken while clients write shows the moment it began.

import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import {
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  ListMultipartUploadsCommand,
  PutObjectCommand,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  downloadArchive,
  MARKER,
  populateRichInstance,
  uploadArchive,
  viewInstance,
} from '../helpers/backup-fixture.js';
import { uniqueBucket } from '../helpers/clients.js';
import { startStore, useStore } from '../helpers/store.js';

const sseKey = (): string => randomBytes(32).toString('base64');
const names = { plain: uniqueBucket('plain'), versioned: uniqueBucket('versioned'), locked: uniqueBucket('locked') };

const source = useStore({ env: { STORE_SSE_KEY: sseKey() } });
const target = useStore({ env: { STORE_SSE_KEY: sseKey() } });
let archive: Buffer;

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));
}

beforeAll(async () => {
  await populateRichInstance(source.s3, names);
  // An upload in progress is not part of a backup.
  await source.s3.send(new CreateMultipartUploadCommand({ Bucket: names.plain, Key: 'unfinished' }));
});

describe('a full backup restored into a fresh instance with another SSE key', () => {
  it('downloads as a zip attachment', async () => {
    const res = await downloadArchive(source.server, await source.admin());
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/zip');
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="store-instance-\d{8}T\d{9}Z\.zip"$/);
    expect(res.bytes.subarray(0, 4).toString('hex')).toBe('504b0304');
    archive = res.bytes;
  });

  it('resets a bigger instance to exactly the archive: every bucket, configuration, version, tag, lock and byte', async () => {
    // The target holds things the archive lacks: an extra bucket, an extra object in a bucket of the same name, and
    // an upload in progress there. All of it goes.
    const extra = uniqueBucket('extra');
    await target.s3.send(new CreateBucketCommand({ Bucket: extra }));
    await target.s3.send(new PutObjectCommand({ Bucket: extra, Key: 'gone', Body: 'x' }));
    await target.s3.send(new CreateBucketCommand({ Bucket: names.plain }));
    await target.s3.send(new PutObjectCommand({ Bucket: names.plain, Key: 'not-in-archive', Body: 'y' }));
    const upload = await target.s3.send(new CreateMultipartUploadCommand({ Bucket: names.plain, Key: 'pending' }));
    await target.s3.send(
      new UploadPartCommand({
        Bucket: names.plain,
        Key: 'pending',
        UploadId: upload.UploadId,
        PartNumber: 1,
        Body: 'z',
      }),
    );

    const res = await uploadArchive(target.server, await target.admin(), { bytes: archive });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ bucketsRestored: 3, objectsRestored: expect.any(Number) as number });

    const [before, after] = await Promise.all([viewInstance(source.s3), viewInstance(target.s3)]);
    expect(after).toEqual(before);
    expect(after.buckets.map((b) => b.name)).toEqual([names.locked, names.plain, names.versioned].sort());
    const versioned = after.buckets.find((b) => b.name === names.versioned);
    expect(versioned?.versions.filter((v) => v.key === 'history.txt')).toHaveLength(3);
    expect(versioned?.versions.filter((v) => v.deleteMarker)).toHaveLength(2);
    const uploads = await target.s3.send(new ListMultipartUploadsCommand({ Bucket: names.plain }));
    expect(uploads.Uploads ?? []).toEqual([]);
    expect(res.body['objectsRestored']).toBe(
      after.buckets.flatMap((b) => b.versions).filter((v) => !v.deleteMarker).length,
    );
  });

  it('stores the restored bytes encrypted under the new key: no plaintext anywhere in the data directory', () => {
    const files = filesUnder(target.server.dataDir);
    expect(files.some((f) => f.includes(`${join(target.server.dataDir, 'blobs')}`))).toBe(true);
    for (const file of files) {
      if (statSync(file).size > 64 * 1024 * 1024) continue;
      expect(readFileSync(file).includes(MARKER), file).toBe(false);
    }
  });

  it('records the restore in the audit log', async () => {
    await new Promise((r) => setTimeout(r, 2500)); // AUDIT_FLUSH_MS
    const audit = await target.adminCall('GET', '/audit?event=backup.restored');
    expect((audit.body as { items: unknown[] }).items).toHaveLength(1);
    const exported = await source.adminCall('GET', '/audit?event=backup.exported');
    expect((exported.body as { items: unknown[] }).items.length).toBeGreaterThanOrEqual(1);
  });
});

describe('bucket backups', () => {
  it('a bucket restore resets only that bucket', async () => {
    const bucketArchive = await downloadArchive(
      source.server,
      await source.admin(),
      `/buckets/${names.versioned}/backup`,
    );
    expect(bucketArchive.status).toBe(200);
    await target.s3.send(new PutObjectCommand({ Bucket: names.versioned, Key: 'added-later', Body: 'a' }));
    await target.s3.send(new DeleteObjectCommand({ Bucket: names.versioned, Key: 'history.txt' }));
    await target.s3.send(new PutObjectCommand({ Bucket: names.plain, Key: 'other-bucket-change', Body: 'b' }));
    const res = await uploadArchive(target.server, await target.admin(), {
      bytes: bucketArchive.bytes,
      path: `/buckets/${names.versioned}/restore`,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const [before, after] = await Promise.all([viewInstance(source.s3), viewInstance(target.s3)]);
    expect(after.buckets.find((b) => b.name === names.versioned)).toEqual(
      before.buckets.find((b) => b.name === names.versioned),
    );
    expect(after.buckets.find((b) => b.name === names.plain)?.versions.map((v) => v.key)).toContain(
      'other-bucket-change',
    );
  });

  it('restores a bucket archive under another name, and a bucket out of an instance archive', async () => {
    const copy = uniqueBucket('copy');
    const bucketArchive = await downloadArchive(
      source.server,
      await source.admin(),
      `/buckets/${names.versioned}/backup`,
    );
    const res = await uploadArchive(target.server, await target.admin(), {
      bytes: bucketArchive.bytes,
      path: `/buckets/${copy}/restore`,
    });
    expect(res.status).toBe(200);
    const one = await uploadArchive(target.server, await target.admin(), {
      bytes: archive,
      path: `/buckets/${names.locked}/restore`,
    });
    expect(one.status, JSON.stringify(one.body)).toBe(200);
    const view = await viewInstance(target.s3);
    const versionsOf = (v: typeof view, name: string) => v.buckets.find((b) => b.name === name)?.versions;
    const sourceView = await viewInstance(source.s3);
    expect(versionsOf(view, copy)).toEqual(versionsOf(sourceView, names.versioned));
    expect(versionsOf(view, names.locked)).toEqual(versionsOf(sourceView, names.locked));
  });

  it('answers 404 for a bucket that does not exist, and refuses a bucket archive as an instance restore', async () => {
    expect(
      (await downloadArchive(source.server, await source.admin(), '/buckets/no-such-bucket-here/backup')).status,
    ).toBe(404);
    const bucketArchive = await downloadArchive(source.server, await source.admin(), `/buckets/${names.plain}/backup`);
    const res = await uploadArchive(target.server, await target.admin(), { bytes: bucketArchive.bytes });
    expect(res.status).toBe(400);
    expect(res.body['error']).toBe('InvalidArchive');
  });
});

describe('a backup taken while clients write', () => {
  it('shows the moment it began: later overwrites and deletes neither break it nor appear in it', async () => {
    const bucket = uniqueBucket('busy');
    await source.s3.send(new CreateBucketCommand({ Bucket: bucket }));
    const big = randomBytes(24 * 1024 * 1024);
    await source.s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'a-big', Body: big }));
    await source.s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'b-overwritten', Body: randomBytes(300_000) }));
    await source.s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'c-deleted', Body: randomBytes(300_000) }));
    const before = await viewInstance(source.s3);

    const res = await fetch(`${source.server.url}/api/admin/buckets/${bucket}/backup`, {
      headers: { authorization: `Bearer ${await source.admin()}` },
    });
    const reader = res.body!.getReader();
    const chunks: Uint8Array[] = [];
    const first = await reader.read();
    if (first.value) chunks.push(first.value);
    // Writes after the backup began: the replaced blobs are queued for the GC, which must not unlink them while the
    // backup still needs them (it drains every second; give it time to try).
    await source.s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'b-overwritten', Body: 'new' }));
    await source.s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: 'c-deleted' }));
    await source.s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'd-added', Body: 'late' }));
    await new Promise((r) => setTimeout(r, 2500));
    for (;;) {
      const next = await reader.read();
      if (next.done) break;
      chunks.push(next.value);
    }
    const zip = Buffer.concat(chunks);

    const fresh = await startStore();
    const restored = await uploadArchive(fresh.server, await fresh.admin(), {
      bytes: zip,
      path: `/buckets/${bucket}/restore`,
    });
    expect(restored.status, JSON.stringify(restored.body)).toBe(200);
    const view = await viewInstance(fresh.s3);
    expect(view.buckets[0]).toEqual(before.buckets.find((b) => b.name === bucket));
  });
});
