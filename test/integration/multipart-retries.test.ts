// What clients that retry and race get from multipart uploads. A retried CompleteMultipartUpload (an SDK that timed
// out waiting) gets the same 200 and ETag for an hour after the completion, driven by the services' injected clock;
// one listing other parts is NoSuchUpload. Two UploadPart of one part number: the one that finishes last is the part,
// and Complete accepts only its ETag, also when it lands while a completion waits for its commit (ordered by a hook
// in the service seam, never by sleeps).

import { randomBytes } from 'node:crypto';
import { PassThrough } from 'node:stream';
import {
  CompleteMultipartUploadCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  ListObjectVersionsCommand,
  PutBucketVersioningCommand,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CompletePart } from '../../src/services/objects/multipart-service.js';
import type { WriteLease } from '../../src/services/objects/write-reserve.js';
import { uniqueBucket } from '../helpers/clients.js';
import { body, openServices, type ServiceFixture } from '../helpers/services.js';
import { useStore } from '../helpers/store.js';
import { expectS3Error } from './s3-assert.js';

const MINUTE = 60_000;
let fx: ServiceFixture;

beforeEach(async () => {
  fx = await openServices('2025-06-01T12:00:00.000Z');
  fx.buckets.create('bkt');
});
afterEach(async () => {
  await fx.close();
});

async function read(key: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of fx.objects.open('bkt', key).stream()) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** An upload of `key` with one part of `data` uploaded: its id and the part as a completion lists it. */
async function onePartUpload(key: string, data: Buffer): Promise<{ uploadId: string; part: CompletePart }> {
  const { uploadId } = fx.multipart.create({ bucket: 'bkt', key, headers: {}, userMeta: {} });
  const part = await fx.multipart.uploadPart({ bucket: 'bkt', key, uploadId, partNumber: 1, body: body(data) });
  return { uploadId, part: { partNumber: 1, etag: part.etag, checksums: {} } };
}

const complete = (key: string, uploadId: string, parts: CompletePart[]) =>
  fx.multipart.complete({ bucket: 'bkt', key, uploadId, parts });

async function expectCode(call: Promise<unknown>, code: string): Promise<void> {
  await expect(call).rejects.toMatchObject({ code });
}

describe('a retried CompleteMultipartUpload', () => {
  it('is answered as the first completion was, with the same parts, for an hour', async () => {
    const { uploadId, part } = await onePartUpload('mp', Buffer.from('the only part'));
    const first = await complete('mp', uploadId, [part]);
    fx.clock.ms += 59 * MINUTE;
    const quoted = { ...part, etag: `"${part.etag.toUpperCase()}"` };
    const retried = await complete('mp', uploadId, [quoted]);
    expect(retried).toMatchObject({
      bucket: 'bkt',
      key: 'mp',
      etag: first.etag,
      versionId: first.versionId,
      size: first.size,
    });
    expect((await read('mp')).toString()).toBe('the only part');
    fx.clock.ms += 2 * MINUTE;
    await expectCode(complete('mp', uploadId, [part]), 'NoSuchUpload');
  });

  it('listing other parts, or another key, is NoSuchUpload', async () => {
    const { uploadId, part } = await onePartUpload('mp2', Buffer.from('part'));
    await complete('mp2', uploadId, [part]);
    await expectCode(
      complete('mp2', uploadId, [{ ...part, etag: 'ffffffffffffffffffffffffffffffff' }]),
      'NoSuchUpload',
    );
    await expectCode(complete('mp2', uploadId, [part, { ...part, partNumber: 2 }]), 'NoSuchUpload');
    await expectCode(fx.multipart.complete({ bucket: 'bkt', key: 'other', uploadId, parts: [part] }), 'NoSuchUpload');
  });

  it('two completions in flight at once both answer the one version they made', async () => {
    const { uploadId, part } = await onePartUpload('both', Buffer.from('raced'));
    const [a, b] = await Promise.all([complete('both', uploadId, [part]), complete('both', uploadId, [part])]);
    expect(b).toMatchObject({ etag: a.etag, versionId: a.versionId });
  });
});

describe('two UploadPart of the same part number', () => {
  it('the one that finishes last is the part, and Complete accepts only its ETag', async () => {
    const { uploadId } = fx.multipart.create({ bucket: 'bkt', key: 'race', headers: {}, userMeta: {} });
    const [bytesA, bytesB] = [randomBytes(40_000), randomBytes(40_000)];
    const streamA = new PassThrough();
    const streamB = new PassThrough();
    const upload = (source: PassThrough, size: number) =>
      fx.multipart.uploadPart({ bucket: 'bkt', key: 'race', uploadId, partNumber: 1, body: { source, size } });
    // A starts first but its body ends after B has been stored.
    const partA = upload(streamA, bytesA.length);
    const partB = upload(streamB, bytesB.length);
    streamB.end(bytesB);
    const b = await partB;
    streamA.end(bytesA);
    const a = await partA;
    await expectCode(complete('race', uploadId, [{ partNumber: 1, etag: b.etag, checksums: {} }]), 'InvalidPart');
    await complete('race', uploadId, [{ partNumber: 1, etag: a.etag, checksums: {} }]);
    expect((await read('race')).equals(bytesA)).toBe(true);
  });

  /** Runs `during` once, at the point a completion has chosen its parts and waits to commit them. */
  function whileCompleting(during: () => Promise<unknown>): void {
    const admit = fx.objects.admitWrite.bind(fx.objects);
    let pending: (() => Promise<unknown>) | undefined = during;
    fx.objects.admitWrite = async (bytes: number | undefined): Promise<WriteLease> => {
      const run = bytes === 0 ? pending : undefined;
      pending = undefined;
      if (run) await run();
      return admit(bytes);
    };
  }

  it('a part replaced while Complete waits to commit: the old ETag is InvalidPart, the new one completes', async () => {
    const { uploadId, part } = await onePartUpload('swap', Buffer.from('old bytes'));
    let replaced: CompletePart | undefined;
    whileCompleting(async () => {
      const next = await fx.multipart.uploadPart({
        bucket: 'bkt',
        key: 'swap',
        uploadId,
        partNumber: 1,
        body: body('new bytes'),
      });
      replaced = { partNumber: 1, etag: next.etag, checksums: {} };
    });
    await expectCode(complete('swap', uploadId, [part]), 'InvalidPart');
    if (!replaced) throw new Error('the hook never ran');
    await complete('swap', uploadId, [replaced]);
    expect((await read('swap')).toString()).toBe('new bytes');
  });

  it('the same bytes uploaded again while Complete waits: it completes with the part that landed last, readable', async () => {
    const data = randomBytes(64 * 1024);
    const { uploadId, part } = await onePartUpload('again', data);
    whileCompleting(() =>
      fx.multipart.uploadPart({ bucket: 'bkt', key: 'again', uploadId, partNumber: 1, body: body(data) }),
    );
    const done = await complete('again', uploadId, [part]);
    const row = fx.meta.objects.findVersion('bkt', 'again', done.versionId);
    const blobIds = fx.meta.objects.parts(row?.id ?? -1).map((p) => p.blobId);
    const queued = fx.meta.db
      .prepare<[], { blob_id: string }>('SELECT blob_id FROM blob_gc')
      .all()
      .map((r) => r.blob_id);
    expect(blobIds.filter((id) => queued.includes(id))).toEqual([]);
    expect((await read('again')).equals(data)).toBe(true);
  });
});

describe('through the AWS SDK', () => {
  const store = useStore({ tmpfs: true });

  it('a repeated CompleteMultipartUpload answers 200 with the same ETag and version id, and makes no second version', async () => {
    const bucket = uniqueBucket('retry');
    await store.s3.send(new CreateBucketCommand({ Bucket: bucket }));
    await store.s3.send(
      new PutBucketVersioningCommand({ Bucket: bucket, VersioningConfiguration: { Status: 'Enabled' } }),
    );
    const { UploadId } = await store.s3.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: 'k' }));
    const part = await store.s3.send(
      new UploadPartCommand({ Bucket: bucket, Key: 'k', UploadId, PartNumber: 1, Body: 'bytes' }),
    );
    const request = {
      Bucket: bucket,
      Key: 'k',
      UploadId,
      MultipartUpload: { Parts: [{ PartNumber: 1, ETag: part.ETag }] },
    };
    const first = await store.s3.send(new CompleteMultipartUploadCommand(request));
    const again = await store.s3.send(new CompleteMultipartUploadCommand(request));
    expect(again.$metadata.httpStatusCode).toBe(200);
    expect({ etag: again.ETag, versionId: again.VersionId }).toEqual({ etag: first.ETag, versionId: first.VersionId });
    const versions = await store.s3.send(new ListObjectVersionsCommand({ Bucket: bucket }));
    expect(versions.Versions).toHaveLength(1);
    await expectS3Error(
      store.s3.send(
        new CompleteMultipartUploadCommand({
          ...request,
          MultipartUpload: { Parts: [{ PartNumber: 1, ETag: '"ffffffffffffffffffffffffffffffff"' }] },
        }),
      ),
      'NoSuchUpload',
      404,
    );
  });
});
