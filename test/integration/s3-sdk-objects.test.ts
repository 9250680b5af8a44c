/* eslint-disable max-lines -- one server fixture for the SDK's object operations */
// Object operations through @aws-sdk/client-s3 at its default settings: put/get/head/delete, conditional
// requests, ranges, copies, flexible checksums (headers and aws-chunked trailers) and keys that need encoding.

import {
  CopyObjectCommand,
  CreateBucketCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import * as zlib from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { computeChecksum, type ChecksumAlgorithm } from '../../src/core/checksums.js';
import { sdkClient, uniqueBucket } from '../helpers/clients.js';
import { useStore } from '../helpers/store.js';
import {
  bodyBytes,
  errorHeaders,
  expectBodilessError,
  expectS3Error,
  expectSameBytes,
  md5Base64,
  md5Hex,
} from './s3-assert.js';

const store = useStore();
let bucket: string;

beforeAll(async () => {
  bucket = await store.bucket('obj');
});

/** A client that records the headers of every request it sends (after signing), to prove which wire form was used. */
function recordingClient(): { client: S3Client; sent: Record<string, string>[] } {
  const client = sdkClient(store.server);
  const sent: Record<string, string>[] = [];
  client.middlewareStack.add(
    (next) => async (args) => {
      const request = args.request as { headers?: Record<string, string> };
      sent.push({ ...(request.headers ?? {}) });
      return next(args);
    },
    { step: 'finalizeRequest', priority: 'low', name: 'recordHeaders' },
  );
  return { client, sent };
}

async function put(key: string, body: string | Buffer = 'hello world'): Promise<string> {
  const out = await store.s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body }));
  return out.ETag as string;
}

describe('PutObject and GetObject', () => {
  it('round-trips the body, user metadata and every stored system header, and reports AES256 everywhere', async () => {
    const body = randomBytes(3000);
    const expires = new Date('2030-01-02T03:04:05Z');
    const out = await store.s3.send(
      new PutObjectCommand({
        Bucket: bucket,
        Key: 'meta/object.bin',
        Body: body,
        Metadata: { color: 'blue', 'Mixed-Case': 'Value With Spaces' },
        ContentType: 'application/x-test',
        ContentEncoding: 'identity',
        ContentDisposition: 'attachment; filename="a.bin"',
        ContentLanguage: 'de-CH',
        CacheControl: 'max-age=60',
        Expires: expires,
      }),
    );
    expect(out.ETag).toBe(`"${md5Hex(body)}"`);
    expect(out.ServerSideEncryption).toBe('AES256');

    const got = await store.s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'meta/object.bin' }));
    expectSameBytes(await bodyBytes(got.Body), body);
    expect(got.ETag).toBe(out.ETag);
    expect(got.ContentLength).toBe(3000);
    expect(got.Metadata).toEqual({ color: 'blue', 'mixed-case': 'Value With Spaces' });
    expect(got.ContentType).toBe('application/x-test');
    expect(got.ContentEncoding).toBe('identity');
    expect(got.ContentDisposition).toBe('attachment; filename="a.bin"');
    expect(got.ContentLanguage).toBe('de-CH');
    expect(got.CacheControl).toBe('max-age=60');
    expect(got.ExpiresString).toBe(expires.toUTCString());
    expect(got.ServerSideEncryption).toBe('AES256');
    expect(got.AcceptRanges).toBe('bytes');
    expect(Math.abs((got.LastModified as Date).getTime() - Date.now())).toBeLessThan(60_000);
  });

  it('defaults Content-Type to binary/octet-stream when none was sent', async () => {
    // The SDK sends application/octet-stream for a Buffer body: remove it before signing.
    const client = sdkClient(store.server);
    client.middlewareStack.add(
      (next) => async (args) => {
        const request = args.request as { headers: Record<string, string> };
        delete request.headers['content-type'];
        return next(args);
      },
      { step: 'build', name: 'dropContentType' },
    );
    await client.send(new PutObjectCommand({ Bucket: bucket, Key: 'no-type', Body: Buffer.from('x') }));
    const head = await store.s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'no-type' }));
    expect(head.ContentType).toBe('binary/octet-stream');
  });

  it('stores an empty object', async () => {
    await put('empty', '');
    const got = await store.s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'empty' }));
    expect(got.ContentLength).toBe(0);
    expect(got.ETag).toBe('"d41d8cd98f00b204e9800998ecf8427e"');
    expect((await bodyBytes(got.Body)).length).toBe(0);
  });

  it('overwrites an existing key with the new body', async () => {
    await put('overwrite', 'first');
    await put('overwrite', 'second');
    const got = await store.s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'overwrite' }));
    expect((await bodyBytes(got.Body)).toString()).toBe('second');
  });

  it('accepts a matching Content-MD5', async () => {
    const body = Buffer.from('md5 checked body');
    const out = await store.s3.send(
      new PutObjectCommand({ Bucket: bucket, Key: 'md5-ok', Body: body, ContentMD5: md5Base64(body) }),
    );
    expect(out.ETag).toBe(`"${md5Hex(body)}"`);
  });

  it('refuses a wrong Content-MD5 with BadDigest and stores nothing', async () => {
    await expectS3Error(
      store.s3.send(
        new PutObjectCommand({
          Bucket: bucket,
          Key: 'md5-bad',
          Body: 'the body',
          ContentMD5: md5Base64(Buffer.from('other')),
        }),
      ),
      'BadDigest',
      400,
    );
    await expectBodilessError(store.s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'md5-bad' })), 404);
  });

  it('refuses a malformed Content-MD5 with InvalidDigest', async () => {
    await expectS3Error(
      store.s3.send(
        new PutObjectCommand({ Bucket: bucket, Key: 'md5-malformed', Body: 'x', ContentMD5: 'not-base64' }),
      ),
      'InvalidDigest',
      400,
    );
  });

  it('answers NoSuchBucket for a put into a missing bucket', async () => {
    await expectS3Error(
      store.s3.send(new PutObjectCommand({ Bucket: uniqueBucket('missing'), Key: 'k', Body: 'x' })),
      'NoSuchBucket',
      404,
    );
  });

  it('answers NoSuchKey (404) for a GET of a missing key', async () => {
    await expectS3Error(store.s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'missing-key' })), 'NoSuchKey', 404);
  });
});

describe('conditional writes', () => {
  it('If-None-Match: * creates a missing key and answers 412 when it exists, leaving it unchanged', async () => {
    const created = await store.s3.send(
      new PutObjectCommand({ Bucket: bucket, Key: 'cond/inm', Body: 'one', IfNoneMatch: '*' }),
    );
    expect(created.$metadata.httpStatusCode).toBe(200);
    await expectS3Error(
      store.s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'cond/inm', Body: 'two', IfNoneMatch: '*' })),
      'PreconditionFailed',
      412,
    );
    const got = await store.s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'cond/inm' }));
    expect((await bodyBytes(got.Body)).toString()).toBe('one');
  });

  it('If-Match with the current ETag overwrites; a stale ETag answers 412; a missing key answers NoSuchKey', async () => {
    const etag = await put('cond/im', 'v1');
    const out = await store.s3.send(
      new PutObjectCommand({ Bucket: bucket, Key: 'cond/im', Body: 'v2', IfMatch: etag }),
    );
    expect(out.ETag).toBe(`"${md5Hex(Buffer.from('v2'))}"`);
    await expectS3Error(
      store.s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'cond/im', Body: 'v3', IfMatch: etag })),
      'PreconditionFailed',
      412,
    );
    await expectS3Error(
      store.s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'cond/none', Body: 'x', IfMatch: etag })),
      'NoSuchKey',
      404,
    );
    const got = await store.s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'cond/im' }));
    expect((await bodyBytes(got.Body)).toString()).toBe('v2');
  });
});

describe('GetObject ranges', () => {
  const data = Buffer.from(Array.from({ length: 1000 }, (_, i) => i % 251));
  beforeAll(async () => {
    await put('range', data);
  });

  it.each([
    ['bytes=0-9', 0, 9],
    ['bytes=990-', 990, 999],
    ['bytes=-10', 990, 999],
    ['bytes=500-999999', 500, 999],
    ['bytes=-5000', 0, 999],
  ])('serves %s as 206 with the right bytes and Content-Range', async (range, start, end) => {
    const got = await store.s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'range', Range: range }));
    expect(got.$metadata.httpStatusCode).toBe(206);
    expect(got.ContentRange).toBe(`bytes ${start}-${end}/1000`);
    expect(got.ContentLength).toBe(end - start + 1);
    // The SDK asks for checksums by default; the whole object's checksum must not be sent for a part of it.
    expect(got.ChecksumCRC32).toBeUndefined();
    expectSameBytes(await bodyBytes(got.Body), data.subarray(start, end + 1));
  });

  it('answers 416 InvalidRange for a range starting past the end', async () => {
    await expectS3Error(
      store.s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'range', Range: 'bytes=1000-' })),
      'InvalidRange',
      416,
    );
  });

  it('serves a HEAD with a range as 206 with the range length', async () => {
    const head = await store.s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'range', Range: 'bytes=100-199' }));
    expect(head.$metadata.httpStatusCode).toBe(206);
    expect(head.ContentLength).toBe(100);
    expect(head.ContentRange).toBe('bytes 100-199/1000');
  });
});

describe('GetObject conditions and overrides', () => {
  let etag: string;
  let lastModified: Date;
  beforeAll(async () => {
    etag = await put('cond/read', 'conditional body');
    lastModified = (await store.s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'cond/read' })))
      .LastModified as Date;
  });
  const past = new Date('2000-01-01T00:00:00Z');
  const future = (): Date => new Date(Date.now() + 3_600_000);

  it('serves the object when every condition holds', async () => {
    const got = await store.s3.send(
      new GetObjectCommand({
        Bucket: bucket,
        Key: 'cond/read',
        IfMatch: etag,
        IfNoneMatch: '"other"',
        IfModifiedSince: past,
        IfUnmodifiedSince: future(),
      }),
    );
    expect((await bodyBytes(got.Body)).toString()).toBe('conditional body');
  });

  it('answers 412 for If-Match with another ETag', async () => {
    await expectS3Error(
      store.s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'cond/read', IfMatch: '"0123"' })),
      'PreconditionFailed',
      412,
    );
  });

  it('answers 304 with the ETag and Last-Modified for If-None-Match with the current ETag', async () => {
    const err = await expectBodilessError(
      store.s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'cond/read', IfNoneMatch: etag })),
      304,
    );
    // RFC 9110 15.4.5: a 304 carries the validators a 200 would have.
    expect(errorHeaders(err)['etag']).toBe(etag);
    expect(errorHeaders(err)['last-modified']).toBe(lastModified.toUTCString());
  });

  it('answers 304 for If-Modified-Since at or after Last-Modified', async () => {
    await expectBodilessError(
      store.s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'cond/read', IfModifiedSince: lastModified })),
      304,
    );
  });

  it('answers 412 for If-Unmodified-Since before Last-Modified', async () => {
    await expectS3Error(
      store.s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'cond/read', IfUnmodifiedSince: past })),
      'PreconditionFailed',
      412,
    );
  });

  it('lets If-Match win over a failing If-Unmodified-Since, as S3 documents', async () => {
    const got = await store.s3.send(
      new GetObjectCommand({ Bucket: bucket, Key: 'cond/read', IfMatch: etag, IfUnmodifiedSince: past }),
    );
    expect(got.$metadata.httpStatusCode).toBe(200);
    await got.Body?.transformToByteArray();
  });

  it('answers HeadObject conditions with the same statuses', async () => {
    await expectBodilessError(
      store.s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'cond/read', IfNoneMatch: etag })),
      304,
    );
    await expectBodilessError(
      store.s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'cond/read', IfMatch: '"nope"' })),
      412,
    );
  });

  it('applies response-content-* overrides to the response headers', async () => {
    const got = await store.s3.send(
      new GetObjectCommand({
        Bucket: bucket,
        Key: 'cond/read',
        ResponseContentType: 'text/x-override',
        ResponseContentDisposition: 'inline; filename="o.txt"',
        ResponseCacheControl: 'no-store',
        ResponseContentLanguage: 'fr',
        ResponseContentEncoding: 'identity',
        ResponseExpires: new Date('2031-05-06T07:08:09Z'),
      }),
    );
    await got.Body?.transformToByteArray();
    expect(got.ContentType).toBe('text/x-override');
    expect(got.ContentDisposition).toBe('inline; filename="o.txt"');
    expect(got.CacheControl).toBe('no-store');
    expect(got.ContentLanguage).toBe('fr');
    expect(got.ContentEncoding).toBe('identity');
    expect(got.ExpiresString).toBe('Tue, 06 May 2031 07:08:09 GMT');
  });
});

describe('HeadObject', () => {
  it('answers size, ETag, metadata and AES256 without a body', async () => {
    const body = randomBytes(1234);
    await store.s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'head', Body: body, Metadata: { a: '1' } }));
    const head = await store.s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'head' }));
    expect(head.ContentLength).toBe(1234);
    expect(head.ETag).toBe(`"${md5Hex(body)}"`);
    expect(head.Metadata).toEqual({ a: '1' });
    expect(head.ServerSideEncryption).toBe('AES256');
  });

  it('answers 404 NotFound for a missing key', async () => {
    await expectBodilessError(store.s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'head-missing' })), 404);
  });
});

describe('DeleteObject and DeleteObjects', () => {
  it('deletes a key with 204, after which GET answers NoSuchKey', async () => {
    await put('del/one');
    const out = await store.s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: 'del/one' }));
    expect(out.$metadata.httpStatusCode).toBe(204);
    await expectS3Error(store.s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'del/one' })), 'NoSuchKey', 404);
  });

  it('answers 204 for a key that does not exist', async () => {
    const out = await store.s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: 'del/never-existed' }));
    expect(out.$metadata.httpStatusCode).toBe(204);
  });

  it('answers NoSuchBucket for a delete in a missing bucket', async () => {
    await expectS3Error(
      store.s3.send(new DeleteObjectCommand({ Bucket: uniqueBucket('missing'), Key: 'k' })),
      'NoSuchBucket',
      404,
    );
  });

  it('DeleteObjects reports existing and missing keys as deleted and a bad key as an error', async () => {
    await put('multi/a');
    await put('multi/b');
    const out = await store.s3.send(
      new DeleteObjectsCommand({
        Bucket: bucket,
        Delete: {
          Objects: [{ Key: 'multi/a' }, { Key: 'multi/missing' }, { Key: 'x'.repeat(1025) }, { Key: 'multi/b' }],
        },
      }),
    );
    expect((out.Deleted ?? []).map((d) => d.Key).sort()).toEqual(['multi/a', 'multi/b', 'multi/missing']);
    expect((out.Errors ?? []).map((e) => [e.Key, e.Code])).toEqual([['x'.repeat(1025), 'KeyTooLongError']]);
    const left = await store.s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: 'multi/' }));
    expect(left.KeyCount).toBe(0);
  });

  it('DeleteObjects in Quiet mode reports only errors', async () => {
    await put('quiet/a');
    const out = await store.s3.send(
      new DeleteObjectsCommand({
        Bucket: bucket,
        Delete: { Quiet: true, Objects: [{ Key: 'quiet/a' }, { Key: 'quiet/missing' }] },
      }),
    );
    expect(out.Deleted ?? []).toEqual([]);
    expect(out.Errors ?? []).toEqual([]);
    await expectBodilessError(store.s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'quiet/a' })), 404);
  });
});

/** CopySource as S3 wants it: bucket/key with the key URL-encoded segment by segment. */
function copySource(sourceBucket: string, key: string): string {
  return `${sourceBucket}/${key.split('/').map(encodeURIComponent).join('/')}`;
}

describe('CopyObject', () => {
  const sourceKey = 'copy/src dir/ü+%&?#=.txt';
  const sourceBody = Buffer.from('copy me, please');
  let sourceEtag: string;
  beforeAll(async () => {
    const out = await store.s3.send(
      new PutObjectCommand({
        Bucket: bucket,
        Key: sourceKey,
        Body: sourceBody,
        ContentType: 'text/plain',
        Metadata: { origin: 'source' },
      }),
    );
    sourceEtag = out.ETag as string;
  });

  it('copies bytes and metadata (COPY directive, the default) from a key that needs URL encoding', async () => {
    const out = await store.s3.send(
      new CopyObjectCommand({ Bucket: bucket, Key: 'copy/dest-copy', CopySource: copySource(bucket, sourceKey) }),
    );
    expect(out.CopyObjectResult?.ETag).toBe(sourceEtag);
    expect(out.ServerSideEncryption).toBe('AES256');
    const got = await store.s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'copy/dest-copy' }));
    expectSameBytes(await bodyBytes(got.Body), sourceBody);
    expect(got.ContentType).toBe('text/plain');
    expect(got.Metadata).toEqual({ origin: 'source' });
  });

  it('ignores request metadata under COPY and takes it under REPLACE', async () => {
    await store.s3.send(
      new CopyObjectCommand({
        Bucket: bucket,
        Key: 'copy/dest-ignored',
        CopySource: copySource(bucket, sourceKey),
        Metadata: { ignored: 'yes' },
        ContentType: 'text/ignored',
      }),
    );
    const copied = await store.s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'copy/dest-ignored' }));
    expect(copied.Metadata).toEqual({ origin: 'source' });
    expect(copied.ContentType).toBe('text/plain');

    await store.s3.send(
      new CopyObjectCommand({
        Bucket: bucket,
        Key: 'copy/dest-replace',
        CopySource: copySource(bucket, sourceKey),
        MetadataDirective: 'REPLACE',
        Metadata: { fresh: 'yes' },
        ContentType: 'application/json',
      }),
    );
    const replaced = await store.s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'copy/dest-replace' }));
    expect(replaced.Metadata).toEqual({ fresh: 'yes' });
    expect(replaced.ContentType).toBe('application/json');
    expect(replaced.ETag).toBe(sourceEtag);
  });

  it('copies across buckets', async () => {
    const other = uniqueBucket('copy');
    await store.s3.send(new CreateBucketCommand({ Bucket: other }));
    await store.s3.send(new CopyObjectCommand({ Bucket: other, Key: 'k', CopySource: copySource(bucket, sourceKey) }));
    const got = await store.s3.send(new GetObjectCommand({ Bucket: other, Key: 'k' }));
    expectSameBytes(await bodyBytes(got.Body), sourceBody);
  });

  it('answers 412 for each failing x-amz-copy-source-if-* condition', async () => {
    const src = copySource(bucket, sourceKey);
    const dest = { Bucket: bucket, Key: 'copy/dest-cond', CopySource: src };
    await expectS3Error(
      store.s3.send(new CopyObjectCommand({ ...dest, CopySourceIfMatch: '"00000000000000000000000000000000"' })),
      'PreconditionFailed',
      412,
    );
    await expectS3Error(
      store.s3.send(new CopyObjectCommand({ ...dest, CopySourceIfNoneMatch: sourceEtag })),
      'PreconditionFailed',
      412,
    );
    await expectS3Error(
      store.s3.send(new CopyObjectCommand({ ...dest, CopySourceIfModifiedSince: new Date(Date.now() + 3_600_000) })),
      'PreconditionFailed',
      412,
    );
    await expectS3Error(
      store.s3.send(new CopyObjectCommand({ ...dest, CopySourceIfUnmodifiedSince: new Date('2000-01-01') })),
      'PreconditionFailed',
      412,
    );
    await expectBodilessError(store.s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'copy/dest-cond' })), 404);
    const ok = await store.s3.send(new CopyObjectCommand({ ...dest, CopySourceIfMatch: sourceEtag }));
    expect(ok.CopyObjectResult?.ETag).toBe(sourceEtag);
  });

  it('refuses a copy onto itself without REPLACE with InvalidRequest, and allows it with REPLACE', async () => {
    const self = { Bucket: bucket, Key: sourceKey, CopySource: copySource(bucket, sourceKey) };
    await expectS3Error(store.s3.send(new CopyObjectCommand(self)), 'InvalidRequest', 400);
    const out = await store.s3.send(
      new CopyObjectCommand({
        ...self,
        MetadataDirective: 'REPLACE',
        Metadata: { origin: 'source' },
        ContentType: 'text/plain',
      }),
    );
    expect(out.CopyObjectResult?.ETag).toBe(sourceEtag);
  });

  it('answers NoSuchKey for a missing source and NoSuchBucket for a missing destination bucket', async () => {
    await expectS3Error(
      store.s3.send(new CopyObjectCommand({ Bucket: bucket, Key: 'd', CopySource: `${bucket}/copy/absent` })),
      'NoSuchKey',
      404,
    );
    await expectS3Error(
      store.s3.send(
        new CopyObjectCommand({ Bucket: uniqueBucket('missing'), Key: 'd', CopySource: copySource(bucket, sourceKey) }),
      ),
      'NoSuchBucket',
      404,
    );
  });
});

/** base64 of the checksum of `data`, computed independently of the server where Node can. */
function expectedChecksum(algorithm: ChecksumAlgorithm, data: Buffer): string {
  switch (algorithm) {
    case 'CRC32': {
      const value = Buffer.alloc(4);
      value.writeUInt32BE(zlib.crc32(data));
      return value.toString('base64');
    }
    case 'SHA1':
      return createHash('sha1').update(data).digest('base64');
    case 'SHA256':
      return createHash('sha256').update(data).digest('base64');
    default:
      // CRC32C / CRC64NVME: the core implementation, which is unit-tested against published vectors.
      return computeChecksum(algorithm, data).toString('base64');
  }
}

const CHECKSUM_FIELD = {
  CRC32: 'ChecksumCRC32',
  CRC32C: 'ChecksumCRC32C',
  CRC64NVME: 'ChecksumCRC64NVME',
  SHA1: 'ChecksumSHA1',
  SHA256: 'ChecksumSHA256',
} as const;

describe('flexible checksums', () => {
  it("stores the SDK's default CRC32 sent as an aws-chunked trailer on a streamed body, and returns it with ChecksumMode", async () => {
    const { client, sent } = recordingClient();
    const data = randomBytes(200_000);
    const out = await client.send(
      new PutObjectCommand({
        Bucket: bucket,
        Key: 'sum/default-stream',
        Body: Readable.from([data.subarray(0, 70_000), data.subarray(70_000)]),
        ContentLength: data.length,
      }),
    );
    const headers = sent[sent.length - 1] as Record<string, string>;
    expect(headers['x-amz-trailer']).toBe('x-amz-checksum-crc32');
    expect(headers['content-encoding']).toContain('aws-chunked');
    expect(out.ChecksumCRC32).toBe(expectedChecksum('CRC32', data));

    const got = await store.s3.send(
      new GetObjectCommand({ Bucket: bucket, Key: 'sum/default-stream', ChecksumMode: 'ENABLED' }),
    );
    expectSameBytes(await bodyBytes(got.Body), data);
    expect(got.ChecksumCRC32).toBe(expectedChecksum('CRC32', data));
    expect(got.ChecksumType).toBe('FULL_OBJECT');
    expect(got.ContentEncoding).toBeUndefined();
  });

  it("stores the SDK's default CRC32 for a buffered body", async () => {
    const data = Buffer.from('buffered body with default checksum');
    await store.s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'sum/default-buffer', Body: data }));
    const head = await store.s3.send(
      new HeadObjectCommand({ Bucket: bucket, Key: 'sum/default-buffer', ChecksumMode: 'ENABLED' }),
    );
    expect(head.ChecksumCRC32).toBe(expectedChecksum('CRC32', data));
  });

  it('omits checksums from GetObject unless ChecksumMode is ENABLED', async () => {
    await store.s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'sum/mode', Body: 'abc' }));
    const head = await store.s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'sum/mode' }));
    expect(head.ChecksumCRC32).toBeUndefined();
  });

  it.each(['CRC32', 'CRC32C', 'CRC64NVME', 'SHA1', 'SHA256'] as const)(
    'stores an explicit %s checksum (buffered and streamed) and returns it with ChecksumMode ENABLED',
    async (algorithm) => {
      const data = randomBytes(50_000);
      const expected = expectedChecksum(algorithm, data);
      const field = CHECKSUM_FIELD[algorithm];
      const buffered = await store.s3.send(
        new PutObjectCommand({ Bucket: bucket, Key: `sum/${algorithm}`, Body: data, ChecksumAlgorithm: algorithm }),
      );
      expect(buffered[field]).toBe(expected);
      const got = await store.s3.send(
        new GetObjectCommand({ Bucket: bucket, Key: `sum/${algorithm}`, ChecksumMode: 'ENABLED' }),
      );
      expectSameBytes(await bodyBytes(got.Body), data);
      expect(got[field]).toBe(expected);

      const streamed = await store.s3.send(
        new PutObjectCommand({
          Bucket: bucket,
          Key: `sum/${algorithm}-stream`,
          Body: Readable.from([data]),
          ContentLength: data.length,
          ChecksumAlgorithm: algorithm,
        }),
      );
      expect(streamed[field]).toBe(expected);
      const head = await store.s3.send(
        new HeadObjectCommand({ Bucket: bucket, Key: `sum/${algorithm}-stream`, ChecksumMode: 'ENABLED' }),
      );
      expect(head[field]).toBe(expected);
    },
  );

  it.each(['CRC32', 'CRC32C', 'CRC64NVME', 'SHA1', 'SHA256'] as const)(
    'refuses a wrong explicit %s value with BadDigest and stores nothing',
    async (algorithm) => {
      const wrong = expectedChecksum(algorithm, Buffer.from('something else'));
      await expectS3Error(
        store.s3.send(
          new PutObjectCommand({
            Bucket: bucket,
            Key: `sum/bad-${algorithm}`,
            Body: 'the real body',
            [CHECKSUM_FIELD[algorithm]]: wrong,
          }),
        ),
        'BadDigest',
        400,
      );
      await expectBodilessError(
        store.s3.send(new HeadObjectCommand({ Bucket: bucket, Key: `sum/bad-${algorithm}` })),
        404,
      );
    },
  );
});

describe('keys', () => {
  const keys = [
    'a/../b',
    'a//b',
    'sp ace',
    '100%',
    'plus+sign',
    'ünïcödé/日本語',
    'emoji😀',
    '/leading-slash',
    '//two-leading',
    'query?x=1&y=2#frag',
    "tilde~star*quote'paren()",
    'trailing/',
    'k'.repeat(1024),
    'é'.repeat(512),
  ];

  it.each(keys.map((k) => [k.length > 40 ? `${k.slice(0, 8)}…(${Buffer.byteLength(k)} bytes)` : k, k]))(
    'round-trips the key %s exactly through PUT, GET, HEAD, list and delete',
    async (_label, key) => {
      const body = Buffer.from(`body of ${key}`);
      await store.s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body }));
      const got = await store.s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
      expectSameBytes(await bodyBytes(got.Body), body);
      await store.s3.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
      const listed = await store.s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: key }));
      expect((listed.Contents ?? []).map((c) => c.Key)).toContain(key);
      await store.s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
      await expectBodilessError(store.s3.send(new HeadObjectCommand({ Bucket: bucket, Key: key })), 404);
    },
  );

  it('refuses a 1025-byte key with KeyTooLongError', async () => {
    await expectS3Error(
      store.s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'k'.repeat(1025), Body: 'x' })),
      'KeyTooLongError',
      400,
    );
    await expectS3Error(
      store.s3.send(new PutObjectCommand({ Bucket: bucket, Key: `${'é'.repeat(512)}x`, Body: 'x' })),
      'KeyTooLongError',
      400,
    );
  });
});
