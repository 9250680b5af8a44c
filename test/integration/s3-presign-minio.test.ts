// Presigned URLs from @aws-sdk/s3-request-presigner used with plain fetch, and the minio-js client end to end
// (streams, its 64 MiB-part multipart upload, partial reads, stat, listing, batch removal, copy, presigned GET).

import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import * as Minio from 'minio';
import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { beforeAll, describe, expect, it } from 'vitest';
import { uniqueBucket } from '../helpers/clients.js';
import { useStore } from '../helpers/store.js';
import { bodyBytes, expectSameBytes, md5Hex } from './s3-assert.js';

const MiB = 1024 * 1024;

const store = useStore({ tmpfs: true });
let bucket: string;

beforeAll(async () => {
  bucket = await store.bucket('presign');
});

/** The <Code> of an S3 XML error body. */
async function errorCode(res: Response): Promise<string | undefined> {
  return /<Code>([^<]*)<\/Code>/.exec(await res.text())?.[1];
}

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

describe('presigned URLs (@aws-sdk/s3-request-presigner) with plain fetch', () => {
  const key = 'presigned/hello world+ü.txt';
  beforeAll(async () => {
    await store.s3.send(
      new PutObjectCommand({ Bucket: bucket, Key: key, Body: 'presigned body', ContentType: 'text/plain' }),
    );
  });

  it('serves a GET through a presigned URL without credentials', async () => {
    const url = await getSignedUrl(store.s3, new GetObjectCommand({ Bucket: bucket, Key: key }), { expiresIn: 300 });
    expect(url).toContain('X-Amz-Signature=');
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain');
    expect(res.headers.get('x-amz-server-side-encryption')).toBe('AES256');
    expect(await res.text()).toBe('presigned body');
  });

  it('honours signed response-content-* overrides in a presigned GET', async () => {
    const url = await getSignedUrl(
      store.s3,
      new GetObjectCommand({
        Bucket: bucket,
        Key: key,
        ResponseContentDisposition: 'attachment; filename="x.txt"',
        ResponseContentType: 'application/x-dl',
      }),
      { expiresIn: 300 },
    );
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="x.txt"');
    expect(res.headers.get('content-type')).toBe('application/x-dl');
    await res.arrayBuffer();
  });

  it('stores the body of a PUT through a presigned URL without credentials', async () => {
    const url = await getSignedUrl(store.s3, new PutObjectCommand({ Bucket: bucket, Key: 'presigned/uploaded' }), {
      expiresIn: 300,
    });
    const body = randomBytes(100_000);
    const res = await fetch(url, { method: 'PUT', body });
    expect(res.status).toBe(200);
    expect(res.headers.get('etag')).toBe(`"${md5Hex(body)}"`);
    const got = await store.s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'presigned/uploaded' }));
    expectSameBytes(await bodyBytes(got.Body), body);
  });

  it('refuses an expired presigned URL with 403 AccessDenied', async () => {
    const url = await getSignedUrl(store.s3, new GetObjectCommand({ Bucket: bucket, Key: key }), {
      expiresIn: 60,
      signingDate: new Date(Date.now() - 3_600_000),
    });
    const res = await fetch(url);
    expect(res.status).toBe(403);
    expect(await errorCode(res)).toBe('AccessDenied');
  });

  it('refuses a presigned URL whose path or query was tampered with as SignatureDoesNotMatch', async () => {
    const url = await getSignedUrl(store.s3, new GetObjectCommand({ Bucket: bucket, Key: key }), { expiresIn: 300 });
    const otherKey = url.replace('/presigned/', '/presigned2/');
    const res1 = await fetch(otherKey);
    expect(res1.status).toBe(403);
    expect(await errorCode(res1)).toBe('SignatureDoesNotMatch');
    const longer = new URL(url);
    longer.searchParams.set('X-Amz-Expires', '600');
    const res2 = await fetch(longer);
    expect(res2.status).toBe(403);
    expect(await errorCode(res2)).toBe('SignatureDoesNotMatch');
    const signature = new URL(url);
    const sig = signature.searchParams.get('X-Amz-Signature') as string;
    signature.searchParams.set('X-Amz-Signature', `${sig.slice(0, -1)}${sig.endsWith('0') ? '1' : '0'}`);
    const res3 = await fetch(signature);
    expect(res3.status).toBe(403);
    expect(await errorCode(res3)).toBe('SignatureDoesNotMatch');
  });

  it('refuses a presigned PUT URL used for another method', async () => {
    const url = await getSignedUrl(store.s3, new PutObjectCommand({ Bucket: bucket, Key: 'presigned/method' }), {
      expiresIn: 300,
    });
    const res = await fetch(url);
    expect(res.status).toBe(403);
    expect(await errorCode(res)).toBe('SignatureDoesNotMatch');
  });

  it('refuses an unsigned request with 403 AccessDenied', async () => {
    const res = await fetch(`${store.server.url}/${bucket}/${encodeURIComponent('presigned/uploaded')}`);
    expect(res.status).toBe(403);
    expect(await errorCode(res)).toBe('AccessDenied');
  });
});

/** Chunk `index` of a generated stream: the block with the chunk's index in its first four bytes. */
function generatedChunk(block: Buffer, index: number): Buffer {
  const chunk = Buffer.from(block);
  chunk.writeUInt32BE(index, 0);
  return chunk;
}

/** A stream of `total` bytes made of 1 MiB generated chunks, hashed (MD5) as it is produced. */
function generatedStream(total: number, hash: ReturnType<typeof createHash>, block: Buffer): Readable {
  let produced = 0;
  return new Readable({
    read() {
      if (produced >= total) {
        this.push(null);
        return;
      }
      const chunk = generatedChunk(block, produced / MiB).subarray(0, Math.min(MiB, total - produced));
      produced += chunk.length;
      hash.update(chunk);
      this.push(chunk);
    },
  });
}

describe('minio-js', () => {
  let mbucket: string;
  const small = randomBytes(256 * 1024);

  beforeAll(async () => {
    mbucket = uniqueBucket('minio');
    await store.minio.makeBucket(mbucket, 'us-east-1');
    await store.minio.putObject(
      mbucket,
      'small.bin',
      Readable.from([small.subarray(0, 1000), small.subarray(1000)]),
      small.length,
      {
        'Content-Type': 'application/x-small',
        'X-Amz-Meta-Origin': 'minio-js',
      },
    );
  });

  it('makeBucket creates a bucket that bucketExists sees, and a second makeBucket succeeds (us-east-1, as AWS)', async () => {
    expect(await store.minio.bucketExists(mbucket)).toBe(true);
    await expect(store.minio.makeBucket(mbucket, 'us-east-1')).resolves.toBeUndefined();
    expect(await store.minio.bucketExists(uniqueBucket('missing'))).toBe(false);
  });

  it('putObject from a stream and getObject return the same bytes', async () => {
    const stream = await store.minio.getObject(mbucket, 'small.bin');
    expectSameBytes(await readAll(stream), small);
  });

  it('statObject reports size, ETag, content type and user metadata', async () => {
    const stat = await store.minio.statObject(mbucket, 'small.bin');
    expect(stat.size).toBe(small.length);
    expect(stat.etag).toBe(md5Hex(small));
    expect(stat.metaData['content-type']).toBe('application/x-small');
    expect(stat.metaData['origin']).toBe('minio-js');
  });

  it('statObject of a missing key rejects with NotFound', async () => {
    await expect(store.minio.statObject(mbucket, 'absent')).rejects.toMatchObject({ code: 'NotFound' });
  });

  it('getPartialObject returns exactly the requested range', async () => {
    const stream = await store.minio.getPartialObject(mbucket, 'small.bin', 1000, 5000);
    expectSameBytes(await readAll(stream), small.subarray(1000, 6000));
    const tail = await store.minio.getPartialObject(mbucket, 'small.bin', small.length - 10);
    expectSameBytes(await readAll(tail), small.subarray(small.length - 10));
  });

  it('putObject of a 70 MiB stream of unknown length goes multipart and reads back intact', async () => {
    const total = 70 * MiB;
    const sent = createHash('md5');
    // By default minio-js sizes parts for a 5 TiB stream (one part here); 16 MiB parts make it five.
    const chunky = new Minio.Client({
      endPoint: '127.0.0.1',
      port: store.server.port,
      useSSL: false,
      region: 'us-east-1',
      pathStyle: true,
      partSize: 16 * MiB,
      accessKey: store.server.credentials.accessKeyId,
      secretKey: store.server.credentials.secretAccessKey,
    });
    const block = randomBytes(MiB);
    const info = await chunky.putObject(mbucket, 'big/seventy.bin', generatedStream(total, sent, block));
    expect(info.etag).toMatch(/^[0-9a-f]{32}-5$/);
    const stat = await store.minio.statObject(mbucket, 'big/seventy.bin');
    expect(stat.size).toBe(total);
    const received = createHash('md5');
    for await (const chunk of await store.minio.getObject(mbucket, 'big/seventy.bin')) received.update(chunk as Buffer);
    expect(received.digest('hex')).toBe(sent.digest('hex'));
    // A partial read across the boundary of parts 1 and 2 (and of generated chunks 15 and 16).
    const across = await readAll(await store.minio.getPartialObject(mbucket, 'big/seventy.bin', 16 * MiB - 3, 6));
    expectSameBytes(
      across,
      Buffer.concat([generatedChunk(block, 15).subarray(MiB - 3), generatedChunk(block, 16).subarray(0, 3)]),
    );
  }, 60_000);

  it('listObjectsV2 streams every key, recursively and by prefix with a delimiter', async () => {
    const names = ['list/a.txt', 'list/b c.txt', 'list/sub/d.txt', 'list/sub/deeper/e.txt', 'list/ü+.txt'];
    for (const name of names) await store.minio.putObject(mbucket, name, Buffer.from(name));
    const collect = async (prefix: string, recursive: boolean): Promise<{ names: string[]; prefixes: string[] }> => {
      const out = { names: [] as string[], prefixes: [] as string[] };
      for await (const item of store.minio.listObjectsV2(mbucket, prefix, recursive)) {
        const entry = item as { name?: string; prefix?: string };
        if (entry.name !== undefined) out.names.push(entry.name);
        if (entry.prefix !== undefined) out.prefixes.push(entry.prefix);
      }
      return out;
    };
    expect((await collect('list/', true)).names).toEqual(
      [...names].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b))),
    );
    expect(await collect('list/', false)).toEqual({
      names: ['list/a.txt', 'list/b c.txt', 'list/ü+.txt'],
      prefixes: ['list/sub/'],
    });
  });

  it('removeObjects deletes a batch of keys and reports no errors', async () => {
    const names = Array.from({ length: 25 }, (_, i) => `remove/${String(i).padStart(2, '0')}`);
    for (const name of names) await store.minio.putObject(mbucket, name, 'x');
    const result = await store.minio.removeObjects(mbucket, [...names, 'remove/never-existed']);
    expect(result.filter((r) => r?.Error)).toEqual([]);
    const left: string[] = [];
    for await (const item of store.minio.listObjectsV2(mbucket, 'remove/', true))
      left.push((item as { name: string }).name);
    expect(left).toEqual([]);
  });

  it('copyObject copies bytes and metadata, and honours CopyConditions', async () => {
    const result = await store.minio.copyObject(
      mbucket,
      'copied/small.bin',
      `/${mbucket}/small.bin`,
      new Minio.CopyConditions(),
    );
    expect((result as { etag: string }).etag).toBe(md5Hex(small));
    const stream = await store.minio.getObject(mbucket, 'copied/small.bin');
    expectSameBytes(await readAll(stream), small);
    expect((await store.minio.statObject(mbucket, 'copied/small.bin')).metaData['origin']).toBe('minio-js');

    const failing = new Minio.CopyConditions();
    failing.setMatchETag('00000000000000000000000000000000');
    await expect(
      store.minio.copyObject(mbucket, 'copied/never', `/${mbucket}/small.bin`, failing),
    ).rejects.toMatchObject({ code: 'PreconditionFailed' });
  });

  it('presignedGetObject gives a URL plain fetch can read', async () => {
    const url = await store.minio.presignedGetObject(mbucket, 'small.bin', 300);
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expectSameBytes(Buffer.from(await res.arrayBuffer()), small);
  });

  it('presignedPutObject gives a URL plain fetch can upload to', async () => {
    const url = await store.minio.presignedPutObject(mbucket, 'presigned-put.bin', 300);
    const body = randomBytes(5000);
    const res = await fetch(url, { method: 'PUT', body });
    expect(res.status).toBe(200);
    expectSameBytes(await readAll(await store.minio.getObject(mbucket, 'presigned-put.bin')), body);
  });
});
