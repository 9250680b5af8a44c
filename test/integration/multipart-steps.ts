// The multipart steps the multipart test files share, bound to one server and bucket.

import {
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  UploadPartCommand,
  type ChecksumAlgorithm,
  type CompletedPart,
} from '@aws-sdk/client-s3';
import { createHash } from 'node:crypto';
import { expect } from 'vitest';
import type { Store } from '../helpers/store.js';
import { md5Hex } from './s3-assert.js';

/** S3's multipart ETag: MD5 of the concatenated binary part MD5s, '-', the part count. */
export function multipartEtag(bodies: Buffer[]): string {
  const md5s = bodies.map((b) => createHash('md5').update(b).digest());
  return `"${createHash('md5').update(Buffer.concat(md5s)).digest('hex')}-${bodies.length}"`;
}

/** createUpload, uploadAll and multipartObject against `store`, in the bucket `bucket()` names when called. */
export function multipartSteps(store: Store, bucket: () => string) {
  async function createUpload(
    key: string,
    extra: { ChecksumAlgorithm?: ChecksumAlgorithm; ChecksumType?: 'COMPOSITE' | 'FULL_OBJECT' } = {},
  ): Promise<string> {
    const out = await store.s3.send(new CreateMultipartUploadCommand({ Bucket: bucket(), Key: key, ...extra }));
    expect(out.ServerSideEncryption).toBe('AES256');
    return out.UploadId as string;
  }

  async function uploadAll(
    { key, uploadId }: { key: string; uploadId: string },
    bodies: Buffer[],
    algorithm?: ChecksumAlgorithm,
  ): Promise<CompletedPart[]> {
    const done: CompletedPart[] = [];
    for (const [i, body] of bodies.entries()) {
      const out = await store.s3.send(
        new UploadPartCommand({
          Bucket: bucket(),
          Key: key,
          UploadId: uploadId,
          PartNumber: i + 1,
          Body: body,
          ...(algorithm ? { ChecksumAlgorithm: algorithm } : {}),
        }),
      );
      expect(out.ETag).toBe(`"${md5Hex(body)}"`);
      expect(out.ServerSideEncryption).toBe('AES256');
      done.push({
        PartNumber: i + 1,
        ETag: out.ETag,
        ChecksumCRC32: out.ChecksumCRC32,
        ChecksumCRC32C: out.ChecksumCRC32C,
        ChecksumCRC64NVME: out.ChecksumCRC64NVME,
        ChecksumSHA1: out.ChecksumSHA1,
        ChecksumSHA256: out.ChecksumSHA256,
      });
    }
    return done;
  }

  /** Uploads `bodies` as parts 1..n of a new upload and completes it; returns the completion's output. */
  async function multipartObject(key: string, bodies: Buffer[]): Promise<string> {
    const uploadId = await createUpload(key);
    const done = await uploadAll({ key, uploadId }, bodies);
    const out = await store.s3.send(
      new CompleteMultipartUploadCommand({
        Bucket: bucket(),
        Key: key,
        UploadId: uploadId,
        MultipartUpload: { Parts: done },
      }),
    );
    return out.ETag as string;
  }
  return { createUpload, uploadAll, multipartObject };
}
