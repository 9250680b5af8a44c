// Multipart checksums (COMPOSITE and FULL_OBJECT, and the completions S3 refuses) through @aws-sdk/client-s3, and a
// 200 MiB stream through @aws-sdk/lib-storage. The rest of the multipart contract: s3-multipart.test.ts.

import {
  CompleteMultipartUploadCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListPartsCommand,
  UploadPartCommand,
  type ChecksumAlgorithm,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import * as zlib from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { computeChecksum } from '../../src/core/checksums.js';
import { useStore } from '../helpers/store.js';
import { multipartSteps } from './multipart-steps.js';
import { bodyBytes, expectS3Error, md5Hex } from './s3-assert.js';

const MiB = 1024 * 1024;

const store = useStore({ tmpfs: true });
let bucket: string;
/** Three parts: 5 MiB, 5 MiB and 1 MiB + 7 bytes. */
let parts: Buffer[];
let whole: Buffer;

beforeAll(async () => {
  bucket = await store.bucket('mpu');
  parts = [randomBytes(5 * MiB), randomBytes(5 * MiB), randomBytes(MiB + 7)];
  whole = Buffer.concat(parts);
});

const { createUpload, uploadAll } = multipartSteps(store, () => bucket);

/** base64 CRC32 of `data` (zlib's, independent of the server). */
function crc32(data: Buffer): Buffer {
  const out = Buffer.alloc(4);
  out.writeUInt32BE(zlib.crc32(data));
  return out;
}

describe('multipart checksums', () => {
  it('combines per-part CRC32s into a COMPOSITE checksum: CRC32 of the part CRC32s, -N', async () => {
    const uploadId = await createUpload('mp/crc32-composite', { ChecksumAlgorithm: 'CRC32' });
    const done = await uploadAll({ key: 'mp/crc32-composite', uploadId }, parts, 'CRC32');
    done.forEach((p, i) => expect(p.ChecksumCRC32).toBe(crc32(parts[i] as Buffer).toString('base64')));
    const listed = await store.s3.send(
      new ListPartsCommand({ Bucket: bucket, Key: 'mp/crc32-composite', UploadId: uploadId }),
    );
    expect(listed.ChecksumAlgorithm).toBe('CRC32');
    expect(listed.Parts?.map((p) => p.ChecksumCRC32)).toEqual(done.map((p) => p.ChecksumCRC32));
    const out = await store.s3.send(
      new CompleteMultipartUploadCommand({
        Bucket: bucket,
        Key: 'mp/crc32-composite',
        UploadId: uploadId,
        MultipartUpload: { Parts: done },
      }),
    );
    const expected = `${crc32(Buffer.concat(parts.map(crc32))).toString('base64')}-3`;
    expect(out.ChecksumCRC32).toBe(expected);
    expect(out.ChecksumType).toBe('COMPOSITE');
    const head = await store.s3.send(
      new HeadObjectCommand({ Bucket: bucket, Key: 'mp/crc32-composite', ChecksumMode: 'ENABLED' }),
    );
    expect(head.ChecksumCRC32).toBe(expected);
    expect(head.ChecksumType).toBe('COMPOSITE');
    // The SDK skips validating a composite value and still returns the right bytes.
    const got = await store.s3.send(
      new GetObjectCommand({ Bucket: bucket, Key: 'mp/crc32-composite', ChecksumMode: 'ENABLED' }),
    );
    expect(md5Hex(await bodyBytes(got.Body))).toBe(md5Hex(whole));
  });

  it.each([
    ['CRC32', (data: Buffer) => crc32(data).toString('base64')],
    ['CRC32C', (data: Buffer) => computeChecksum('CRC32C', data).toString('base64')],
    ['CRC64NVME', (data: Buffer) => computeChecksum('CRC64NVME', data).toString('base64')],
  ] as const)(
    'combines per-part %s values into the FULL_OBJECT checksum of the whole object',
    async (algorithm, checksumOf) => {
      const key = `mp/${algorithm}-full`;
      const uploadId = await createUpload(key, { ChecksumAlgorithm: algorithm, ChecksumType: 'FULL_OBJECT' });
      const done = await uploadAll({ key, uploadId }, parts, algorithm);
      const expected = checksumOf(whole);
      const field = `Checksum${algorithm}` as const;
      const out = await store.s3.send(
        new CompleteMultipartUploadCommand({
          Bucket: bucket,
          Key: key,
          UploadId: uploadId,
          MultipartUpload: { Parts: done },
          ChecksumType: 'FULL_OBJECT',
          [field]: expected,
        }),
      );
      expect(out[field]).toBe(expected);
      expect(out.ChecksumType).toBe('FULL_OBJECT');
      // A full-object value is validated by the SDK against the bytes it reads.
      const got = await store.s3.send(new GetObjectCommand({ Bucket: bucket, Key: key, ChecksumMode: 'ENABLED' }));
      expect(got[field]).toBe(expected);
      expect(got.ChecksumType).toBe('FULL_OBJECT');
      expect(md5Hex(await bodyBytes(got.Body))).toBe(md5Hex(whole));
    },
  );

  it('refuses a completion whose stated full-object checksum is wrong with BadDigest', async () => {
    const uploadId = await createUpload('mp/full-wrong', { ChecksumAlgorithm: 'CRC32', ChecksumType: 'FULL_OBJECT' });
    const done = await uploadAll({ key: 'mp/full-wrong', uploadId }, parts.slice(1), 'CRC32');
    await expectS3Error(
      store.s3.send(
        new CompleteMultipartUploadCommand({
          Bucket: bucket,
          Key: 'mp/full-wrong',
          UploadId: uploadId,
          MultipartUpload: { Parts: done },
          ChecksumType: 'FULL_OBJECT',
          ChecksumCRC32: crc32(Buffer.from('not the object')).toString('base64'),
        }),
      ),
      'BadDigest',
      400,
    );
  });

  it('refuses a completion stating a checksum type or algorithm the upload was not created with with InvalidRequest', async () => {
    const uploadId = await createUpload('mp/stated-mismatch', { ChecksumAlgorithm: 'CRC32' });
    const done = await uploadAll({ key: 'mp/stated-mismatch', uploadId }, [Buffer.from('only')], 'CRC32');
    const base = { Bucket: bucket, Key: 'mp/stated-mismatch', UploadId: uploadId, MultipartUpload: { Parts: done } };
    await expectS3Error(
      store.s3.send(new CompleteMultipartUploadCommand({ ...base, ChecksumType: 'FULL_OBJECT' })),
      'InvalidRequest',
      400,
    );
    await expectS3Error(
      store.s3.send(
        new CompleteMultipartUploadCommand({
          ...base,
          ChecksumSHA256: createHash('sha256').update('only').digest('base64'),
        }),
      ),
      'InvalidRequest',
      400,
    );
    const ok = await store.s3.send(new CompleteMultipartUploadCommand({ ...base, ChecksumType: 'COMPOSITE' }));
    expect(ok.ChecksumCRC32).toBe(`${crc32(crc32(Buffer.from('only'))).toString('base64')}-1`);
  });

  it('refuses a part uploaded with another algorithm than the upload declared with InvalidRequest', async () => {
    const uploadId = await createUpload('mp/alg-mismatch', { ChecksumAlgorithm: 'SHA256' });
    await expectS3Error(
      store.s3.send(
        new UploadPartCommand({
          Bucket: bucket,
          Key: 'mp/alg-mismatch',
          UploadId: uploadId,
          PartNumber: 1,
          Body: 'x',
          ChecksumAlgorithm: 'CRC32C',
        }),
      ),
      'InvalidRequest',
      400,
    );
  });
});

/** A deterministic stream of `total` bytes in 1 MiB chunks that differ from each other, hashed as it is produced. */
function generatedStream(total: number, hash: ReturnType<typeof createHash>): Readable {
  const block = randomBytes(MiB);
  let produced = 0;
  return new Readable({
    read() {
      if (produced >= total) {
        this.push(null);
        return;
      }
      const chunk = Buffer.from(block.subarray(0, Math.min(MiB, total - produced)));
      chunk.writeUInt32BE(produced / MiB, 0);
      produced += chunk.length;
      hash.update(chunk);
      this.push(chunk);
    },
  });
}

describe('@aws-sdk/lib-storage', () => {
  it('uploads a 200 MiB stream in parts that reads back byte for byte', async () => {
    const total = 200 * MiB;
    const sent = createHash('sha256');
    const upload = new Upload({
      client: store.s3,
      params: { Bucket: bucket, Key: 'mp/lib-storage-200MiB', Body: generatedStream(total, sent) },
      partSize: 8 * MiB,
      queueSize: 4,
    });
    const out = await upload.done();
    expect(out.ETag).toMatch(/^"[0-9a-f]{32}-25"$/);
    // lib-storage asks for CRC32 part checksums by default: the object carries their composite.
    const head = await store.s3.send(
      new HeadObjectCommand({ Bucket: bucket, Key: 'mp/lib-storage-200MiB', ChecksumMode: 'ENABLED' }),
    );
    expect(head.ChecksumType).toBe('COMPOSITE');
    expect(head.ChecksumCRC32).toMatch(/^[A-Za-z0-9+/]{6}==-25$/);

    const got = await store.s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'mp/lib-storage-200MiB' }));
    expect(got.ContentLength).toBe(total);
    const received = createHash('sha256');
    let size = 0;
    for await (const chunk of got.Body as Readable) {
      received.update(chunk as Buffer);
      size += (chunk as Buffer).length;
    }
    expect(size).toBe(total);
    expect(received.digest('hex')).toBe(sent.digest('hex'));
  }, 120_000);
});
