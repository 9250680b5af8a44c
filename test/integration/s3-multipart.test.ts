/* eslint-disable max-lines -- one server fixture for the whole multipart contract */
// Multipart uploads through @aws-sdk/client-s3: ETags, listing, abort, the completion errors, UploadPartCopy and
// ranged reads across part boundaries. Checksums and @aws-sdk/lib-storage: s3-multipart-checksums.test.ts.

import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  ListPartsCommand,
  PutObjectCommand,
  UploadPartCommand,
  UploadPartCopyCommand,
  type CompletedPart,
} from '@aws-sdk/client-s3';
import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { uniqueBucket } from '../helpers/clients.js';
import { rawRequest } from '../helpers/signed-http.js';
import { useStore } from '../helpers/store.js';
import { multipartEtag, multipartSteps } from './multipart-steps.js';
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

const { createUpload, uploadAll, multipartObject } = multipartSteps(store, () => bucket);

describe('multipart upload', () => {
  it('assembles 5 MiB parts into one object whose ETag is the MD5 of the part MD5s with -N', async () => {
    const uploadId = await createUpload('mp/basic');
    const done = await uploadAll({ key: 'mp/basic', uploadId }, parts);
    const out = await store.s3.send(
      new CompleteMultipartUploadCommand({
        Bucket: bucket,
        Key: 'mp/basic',
        UploadId: uploadId,
        MultipartUpload: { Parts: done },
      }),
    );
    expect(out.ETag).toBe(multipartEtag(parts));
    expect(out.Key).toBe('mp/basic');
    expect(out.Bucket).toBe(bucket);
    expect(out.ServerSideEncryption).toBe('AES256');

    const got = await store.s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'mp/basic' }));
    expect(got.ETag).toBe(multipartEtag(parts));
    expect(got.ContentLength).toBe(whole.length);
    expect(md5Hex(await bodyBytes(got.Body))).toBe(md5Hex(whole));
    await expectS3Error(
      store.s3.send(new ListPartsCommand({ Bucket: bucket, Key: 'mp/basic', UploadId: uploadId })),
      'NoSuchUpload',
      404,
    );
  });

  it('keeps the metadata given at creation', async () => {
    const out = await store.s3.send(
      new CreateMultipartUploadCommand({
        Bucket: bucket,
        Key: 'mp/meta',
        ContentType: 'video/x-test',
        Metadata: { owner: 'tests' },
        CacheControl: 'no-cache',
      }),
    );
    const done = await uploadAll({ key: 'mp/meta', uploadId: out.UploadId as string }, [Buffer.from('only part')]);
    await store.s3.send(
      new CompleteMultipartUploadCommand({
        Bucket: bucket,
        Key: 'mp/meta',
        UploadId: out.UploadId,
        MultipartUpload: { Parts: done },
      }),
    );
    const head = await store.s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'mp/meta' }));
    expect(head.ContentType).toBe('video/x-test');
    expect(head.Metadata).toEqual({ owner: 'tests' });
    expect(head.CacheControl).toBe('no-cache');
    expect(head.ETag).toBe(multipartEtag([Buffer.from('only part')]));
  });

  it('uses the latest upload of a part number that was uploaded twice', async () => {
    const uploadId = await createUpload('mp/reupload');
    await store.s3.send(
      new UploadPartCommand({
        Bucket: bucket,
        Key: 'mp/reupload',
        UploadId: uploadId,
        PartNumber: 1,
        Body: 'first try',
      }),
    );
    const done = await uploadAll({ key: 'mp/reupload', uploadId }, [Buffer.from('second try')]);
    await store.s3.send(
      new CompleteMultipartUploadCommand({
        Bucket: bucket,
        Key: 'mp/reupload',
        UploadId: uploadId,
        MultipartUpload: { Parts: done },
      }),
    );
    const got = await store.s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'mp/reupload' }));
    expect((await bodyBytes(got.Body)).toString()).toBe('second try');
  });

  it('completes from a subset of the uploaded parts', async () => {
    const small = [randomBytes(5 * MiB), Buffer.from('skipped'), Buffer.from('tail')];
    const uploadId = await createUpload('mp/subset');
    const done = await uploadAll({ key: 'mp/subset', uploadId }, small);
    const chosen = [done[0], done[2]] as CompletedPart[];
    const out = await store.s3.send(
      new CompleteMultipartUploadCommand({
        Bucket: bucket,
        Key: 'mp/subset',
        UploadId: uploadId,
        MultipartUpload: { Parts: chosen },
      }),
    );
    expect(out.ETag).toBe(multipartEtag([small[0] as Buffer, small[2] as Buffer]));
    const got = await store.s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'mp/subset' }));
    expect(md5Hex(await bodyBytes(got.Body))).toBe(md5Hex(Buffer.concat([small[0] as Buffer, small[2] as Buffer])));
  });
});

describe('completion errors', () => {
  it('refuses a part under 5 MiB that is not the last with EntityTooSmall', async () => {
    const uploadId = await createUpload('mp/too-small');
    const done = await uploadAll({ key: 'mp/too-small', uploadId }, [Buffer.alloc(1024, 1), Buffer.alloc(1024, 2)]);
    await expectS3Error(
      store.s3.send(
        new CompleteMultipartUploadCommand({
          Bucket: bucket,
          Key: 'mp/too-small',
          UploadId: uploadId,
          MultipartUpload: { Parts: done },
        }),
      ),
      'EntityTooSmall',
      400,
    );
    // The upload survives a failed completion.
    const listed = await store.s3.send(
      new ListPartsCommand({ Bucket: bucket, Key: 'mp/too-small', UploadId: uploadId }),
    );
    expect(listed.Parts?.length).toBe(2);
  });

  it('refuses a wrong part ETag and a part never uploaded with InvalidPart', async () => {
    const uploadId = await createUpload('mp/invalid-part');
    const done = await uploadAll({ key: 'mp/invalid-part', uploadId }, [Buffer.from('one')]);
    await expectS3Error(
      store.s3.send(
        new CompleteMultipartUploadCommand({
          Bucket: bucket,
          Key: 'mp/invalid-part',
          UploadId: uploadId,
          MultipartUpload: { Parts: [{ PartNumber: 1, ETag: '"0123456789abcdef0123456789abcdef"' }] },
        }),
      ),
      'InvalidPart',
      400,
    );
    await expectS3Error(
      store.s3.send(
        new CompleteMultipartUploadCommand({
          Bucket: bucket,
          Key: 'mp/invalid-part',
          UploadId: uploadId,
          MultipartUpload: { Parts: [...done, { PartNumber: 2, ETag: done[0]?.ETag }] },
        }),
      ),
      'InvalidPart',
      400,
    );
    await expectS3Error(
      store.s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'mp/invalid-part' })),
      'NotFound',
      404,
    );
  });

  it('refuses parts out of ascending order with InvalidPartOrder', async () => {
    const uploadId = await createUpload('mp/order');
    const done = await uploadAll({ key: 'mp/order', uploadId }, [randomBytes(5 * MiB), Buffer.from('two')]);
    await expectS3Error(
      store.s3.send(
        new CompleteMultipartUploadCommand({
          Bucket: bucket,
          Key: 'mp/order',
          UploadId: uploadId,
          MultipartUpload: { Parts: [done[1] as CompletedPart, done[0] as CompletedPart] },
        }),
      ),
      'InvalidPartOrder',
      400,
    );
  });

  it('answers NoSuchUpload for an unknown upload id', async () => {
    await expectS3Error(
      store.s3.send(
        new UploadPartCommand({
          Bucket: bucket,
          Key: 'mp/unknown',
          UploadId: 'no-such-upload',
          PartNumber: 1,
          Body: 'x',
        }),
      ),
      'NoSuchUpload',
      404,
    );
  });

  it('refuses part number 0 and 10001 with InvalidArgument', async () => {
    const uploadId = await createUpload('mp/part-number');
    for (const n of [0, 10_001]) {
      await expectS3Error(
        store.s3.send(
          new UploadPartCommand({
            Bucket: bucket,
            Key: 'mp/part-number',
            UploadId: uploadId,
            PartNumber: n,
            Body: 'x',
          }),
        ),
        'InvalidArgument',
        400,
      );
    }
  });
});

describe('AbortMultipartUpload', () => {
  it('aborts with 204, after which every use of the upload id answers NoSuchUpload', async () => {
    const uploadId = await createUpload('mp/abort');
    const done = await uploadAll({ key: 'mp/abort', uploadId }, [Buffer.from('part')]);
    const out = await store.s3.send(
      new AbortMultipartUploadCommand({ Bucket: bucket, Key: 'mp/abort', UploadId: uploadId }),
    );
    expect(out.$metadata.httpStatusCode).toBe(204);
    await expectS3Error(
      store.s3.send(new ListPartsCommand({ Bucket: bucket, Key: 'mp/abort', UploadId: uploadId })),
      'NoSuchUpload',
      404,
    );
    await expectS3Error(
      store.s3.send(
        new UploadPartCommand({ Bucket: bucket, Key: 'mp/abort', UploadId: uploadId, PartNumber: 2, Body: 'x' }),
      ),
      'NoSuchUpload',
      404,
    );
    await expectS3Error(
      store.s3.send(
        new CompleteMultipartUploadCommand({
          Bucket: bucket,
          Key: 'mp/abort',
          UploadId: uploadId,
          MultipartUpload: { Parts: done },
        }),
      ),
      'NoSuchUpload',
      404,
    );
    await expectS3Error(
      store.s3.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: 'mp/abort', UploadId: uploadId })),
      'NoSuchUpload',
      404,
    );
  });

  it('answers NoSuchUpload for an upload id used with another key', async () => {
    const uploadId = await createUpload('mp/abort-key');
    await expectS3Error(
      store.s3.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: 'mp/other-key', UploadId: uploadId })),
      'NoSuchUpload',
      404,
    );
  });
});

describe('ListParts and ListMultipartUploads', () => {
  it('pages parts with MaxParts and PartNumberMarker', async () => {
    const uploadId = await createUpload('mp/list-parts');
    const bodies = [1, 2, 3, 4, 5].map((n) => Buffer.alloc(100 * n, n));
    await uploadAll({ key: 'mp/list-parts', uploadId }, bodies);
    const seen: number[] = [];
    let marker: string | undefined;
    for (let pages = 0; pages < 10; pages++) {
      const out = await store.s3.send(
        new ListPartsCommand({
          Bucket: bucket,
          Key: 'mp/list-parts',
          UploadId: uploadId,
          MaxParts: 2,
          PartNumberMarker: marker,
        }),
      );
      expect(out.MaxParts).toBe(2);
      for (const part of out.Parts ?? []) {
        seen.push(part.PartNumber as number);
        const body = bodies[(part.PartNumber as number) - 1] as Buffer;
        expect(part.Size).toBe(body.length);
        expect(part.ETag).toBe(`"${md5Hex(body)}"`);
      }
      if (!out.IsTruncated) break;
      marker = String(out.NextPartNumberMarker);
    }
    expect(seen).toEqual([1, 2, 3, 4, 5]);
  });

  it('lists uploads in progress under a prefix, paging with MaxUploads', async () => {
    // Uploads before the prefix in key order must not use up a page.
    await createUpload('list-uploads-0-before');
    const ids = [
      await createUpload('list-uploads/a'),
      await createUpload('list-uploads/b'),
      await createUpload('list-uploads/b'),
    ];
    await createUpload('list-uploads-z-after');
    const seen: [string, string][] = [];
    let keyMarker: string | undefined;
    let uploadIdMarker: string | undefined;
    for (let pages = 0; pages < 10; pages++) {
      const out = await store.s3.send(
        new ListMultipartUploadsCommand({
          Bucket: bucket,
          Prefix: 'list-uploads/',
          MaxUploads: 2,
          KeyMarker: keyMarker,
          UploadIdMarker: uploadIdMarker,
        }),
      );
      expect((out.Uploads ?? []).length).toBeGreaterThan(0);
      for (const u of out.Uploads ?? []) seen.push([u.Key as string, u.UploadId as string]);
      if (!out.IsTruncated) break;
      keyMarker = out.NextKeyMarker;
      uploadIdMarker = out.NextUploadIdMarker;
    }
    const expected: [string, string][] = [
      ['list-uploads/a', ids[0] as string],
      ['list-uploads/b', ids[1] as string],
      ['list-uploads/b', ids[2] as string],
    ];
    expect(seen).toEqual(expected.sort((x, y) => (x[0] === y[0] ? (x[1] < y[1] ? -1 : 1) : x[0] < y[0] ? -1 : 1)));
  });
});

describe('ListMultipartUploads with a delimiter, markers and encoding-type', () => {
  // One bucket of its own, so the uploads of other tests do not show up in the rolled-up view.
  let own: string;
  const ids = new Map<string, string[]>();
  const keys = [
    'd/a.txt',
    'd/photos/2024/x.jpg',
    'd/photos/2024/y.jpg',
    'd/photos/2024/y.jpg',
    'd/photos/2025/q.jpg',
    'd/photos/z.jpg',
    'd/videos/v.mp4',
    'd/zz top.txt',
  ];
  beforeAll(async () => {
    own = uniqueBucket('mpu-delim');
    await store.s3.send(new CreateBucketCommand({ Bucket: own }));
    for (const key of keys) {
      const out = await store.s3.send(new CreateMultipartUploadCommand({ Bucket: own, Key: key }));
      ids.set(key, [...(ids.get(key) ?? []), out.UploadId as string].sort());
    }
  });

  type Entry = string;
  /** Every page with the given size, as `key#uploadId` and `prefix/` entries in order. */
  async function walk(params: { Prefix?: string; Delimiter?: string }, maxUploads: number): Promise<Entry[]> {
    const seen: Entry[] = [];
    let keyMarker: string | undefined;
    let uploadIdMarker: string | undefined;
    for (let pages = 0; pages < 20; pages++) {
      const out = await store.s3.send(
        new ListMultipartUploadsCommand({
          Bucket: own,
          ...params,
          MaxUploads: maxUploads,
          KeyMarker: keyMarker,
          UploadIdMarker: uploadIdMarker,
        }),
      );
      const page = [
        ...(out.Uploads ?? []).map((u) => ({ at: u.Key as string, entry: `${u.Key}#${u.UploadId}` })),
        ...(out.CommonPrefixes ?? []).map((p) => ({ at: p.Prefix as string, entry: p.Prefix as string })),
      ];
      expect(page.length).toBeLessThanOrEqual(maxUploads);
      seen.push(...page.sort((x, y) => (x.at < y.at ? -1 : x.at > y.at ? 1 : 0)).map((e) => e.entry));
      if (!out.IsTruncated) return seen;
      keyMarker = out.NextKeyMarker;
      uploadIdMarker = out.NextUploadIdMarker;
    }
    throw new Error('too many pages');
  }
  const up = (key: string): string[] => (ids.get(key) as string[]).map((id) => `${key}#${id}`);

  it('rolls keys up into common prefixes at the delimiter, after the prefix', async () => {
    const out = await store.s3.send(new ListMultipartUploadsCommand({ Bucket: own, Prefix: 'd/', Delimiter: '/' }));
    expect(out.Delimiter).toBe('/');
    expect((out.Uploads ?? []).map((u) => u.Key)).toEqual(['d/a.txt', 'd/zz top.txt']);
    expect((out.CommonPrefixes ?? []).map((p) => p.Prefix)).toEqual(['d/photos/', 'd/videos/']);
    expect(out.IsTruncated).toBe(false);
    const deeper = await store.s3.send(
      new ListMultipartUploadsCommand({ Bucket: own, Prefix: 'd/photos/', Delimiter: '/' }),
    );
    expect((deeper.Uploads ?? []).map((u) => u.Key)).toEqual(['d/photos/z.jpg']);
    expect((deeper.CommonPrefixes ?? []).map((p) => p.Prefix)).toEqual(['d/photos/2024/', 'd/photos/2025/']);
  });

  it('pages through uploads and common prefixes alike, each prefix once, whatever the page size', async () => {
    const all = [...up('d/a.txt'), 'd/photos/', 'd/videos/', ...up('d/zz top.txt')];
    for (const size of [1, 2, 3]) expect(await walk({ Prefix: 'd/', Delimiter: '/' }, size)).toEqual(all);
    const flat = keys.filter((k, i) => keys.indexOf(k) === i).flatMap(up);
    for (const size of [1, 3]) expect(await walk({ Prefix: 'd/' }, size)).toEqual(flat);
  });

  it('reads key-marker as S3 does: without upload-id-marker the marker key itself is passed over', async () => {
    const after = await store.s3.send(
      new ListMultipartUploadsCommand({ Bucket: own, KeyMarker: 'd/photos/2024/y.jpg' }),
    );
    expect((after.Uploads ?? []).map((u) => u.Key)).toEqual([
      'd/photos/2025/q.jpg',
      'd/photos/z.jpg',
      'd/videos/v.mp4',
      'd/zz top.txt',
    ]);
    const [first, second] = ids.get('d/photos/2024/y.jpg') as string[];
    const within = await store.s3.send(
      new ListMultipartUploadsCommand({
        Bucket: own,
        KeyMarker: 'd/photos/2024/y.jpg',
        UploadIdMarker: first,
        MaxUploads: 2,
      }),
    );
    expect((within.Uploads ?? []).map((u) => `${u.Key}#${u.UploadId}`)).toEqual([
      `d/photos/2024/y.jpg#${second}`,
      `d/photos/2025/q.jpg#${(ids.get('d/photos/2025/q.jpg') as string[])[0]}`,
    ]);
  });

  it('URL-encodes keys, prefixes and markers with encoding-type=url, and refuses any other encoding', async () => {
    const res = await rawRequest(store.server, {
      method: 'GET',
      path: `/${own}?uploads=&prefix=d%2Fz&delimiter=%20&encoding-type=url&key-marker=d%2Fy`,
      sign: true,
    });
    expect(res.status).toBe(200);
    const xml = res.body.toString();
    expect(xml).toContain('<EncodingType>url</EncodingType>');
    expect(xml).toContain('<Prefix>d/z</Prefix>');
    expect(xml).toContain('<Delimiter>+</Delimiter>');
    expect(xml).toContain('<KeyMarker>d/y</KeyMarker>');
    expect(xml).toContain('<CommonPrefixes><Prefix>d/zz+</Prefix></CommonPrefixes>');
    const bad = await rawRequest(store.server, {
      method: 'GET',
      path: `/${own}?uploads=&encoding-type=base64`,
      sign: true,
    });
    expect(bad.status).toBe(400);
    expect(bad.body.toString()).toContain('<Code>InvalidArgument</Code>');
  });
});

describe('ListMultipartUploads and ListParts paging parameters', () => {
  it('refuses a max-uploads, max-parts or part-number-marker that is not a non-negative integer, and caps the page at 1,000', async () => {
    const uploadId = await createUpload('mp/params');
    for (const query of ['uploads=&max-uploads=abc', 'uploads=&max-uploads=-1', 'uploads=&max-uploads=1.5']) {
      const res = await rawRequest(store.server, { method: 'GET', path: `/${bucket}?${query}`, sign: true });
      expect([query, res.status, res.code]).toEqual([query, 400, 'InvalidArgument']);
    }
    for (const query of ['max-parts=x', 'part-number-marker=-3']) {
      const res = await rawRequest(store.server, {
        method: 'GET',
        path: `/${bucket}/mp/params?uploadId=${uploadId}&${query}`,
        sign: true,
      });
      expect([query, res.status, res.code]).toEqual([query, 400, 'InvalidArgument']);
    }
    const capped = await rawRequest(store.server, {
      method: 'GET',
      path: `/${bucket}?uploads=&max-uploads=5000`,
      sign: true,
    });
    expect(capped.status).toBe(200);
    expect(capped.text).toContain('<MaxUploads>1000</MaxUploads>');
  });
});

describe('UploadPartCopy and ranged reads across parts', () => {
  let sourceEtag: string;
  beforeAll(async () => {
    sourceEtag = await multipartObject('mp/source', parts);
  });

  it('serves Range GETs that cross part boundaries', async () => {
    const boundary = 5 * MiB;
    for (const [start, end] of [
      [boundary - 10, boundary + 9],
      [boundary - 1, 2 * boundary],
      [3, whole.length - 4],
    ] as [number, number][]) {
      const got = await store.s3.send(
        new GetObjectCommand({ Bucket: bucket, Key: 'mp/source', Range: `bytes=${start}-${end}` }),
      );
      expect(got.$metadata.httpStatusCode).toBe(206);
      expect(got.ContentRange).toBe(`bytes ${start}-${end}/${whole.length}`);
      expect(md5Hex(await bodyBytes(got.Body))).toBe(md5Hex(whole.subarray(start, end + 1)));
    }
  });

  it('serves a single part with PartNumber and reports the part count', async () => {
    const got = await store.s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'mp/source', PartNumber: 2 }));
    expect(got.$metadata.httpStatusCode).toBe(206);
    expect(got.PartsCount).toBe(3);
    expect(got.ContentRange).toBe(`bytes ${5 * MiB}-${10 * MiB - 1}/${whole.length}`);
    expect(md5Hex(await bodyBytes(got.Body))).toBe(md5Hex(parts[1] as Buffer));
  });

  it('copies a byte range spanning two part boundaries of the source into a new part', async () => {
    const start = 5 * MiB - 1000;
    const end = 10 * MiB + 999;
    const uploadId = await createUpload('mp/part-copy');
    const copied = await store.s3.send(
      new UploadPartCopyCommand({
        Bucket: bucket,
        Key: 'mp/part-copy',
        UploadId: uploadId,
        PartNumber: 1,
        CopySource: `${bucket}/mp/source`,
        CopySourceRange: `bytes=${start}-${end}`,
        CopySourceIfMatch: sourceEtag,
      }),
    );
    const slice = whole.subarray(start, end + 1);
    expect(copied.CopyPartResult?.ETag).toBe(`"${md5Hex(slice)}"`);
    const tail = await store.s3.send(
      new UploadPartCommand({ Bucket: bucket, Key: 'mp/part-copy', UploadId: uploadId, PartNumber: 2, Body: 'tail' }),
    );
    const out = await store.s3.send(
      new CompleteMultipartUploadCommand({
        Bucket: bucket,
        Key: 'mp/part-copy',
        UploadId: uploadId,
        MultipartUpload: {
          Parts: [
            { PartNumber: 1, ETag: copied.CopyPartResult?.ETag },
            { PartNumber: 2, ETag: tail.ETag },
          ],
        },
      }),
    );
    expect(out.ETag).toBe(multipartEtag([slice, Buffer.from('tail')]));
    const got = await store.s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'mp/part-copy' }));
    expect(md5Hex(await bodyBytes(got.Body))).toBe(md5Hex(Buffer.concat([slice, Buffer.from('tail')])));
  });

  it('copies a whole object into a part when no range is given', async () => {
    await store.s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'mp/small-source', Body: 'small source' }));
    const uploadId = await createUpload('mp/part-copy-whole');
    const copied = await store.s3.send(
      new UploadPartCopyCommand({
        Bucket: bucket,
        Key: 'mp/part-copy-whole',
        UploadId: uploadId,
        PartNumber: 1,
        CopySource: `${bucket}/mp/small-source`,
      }),
    );
    expect(copied.CopyPartResult?.ETag).toBe(`"${md5Hex(Buffer.from('small source'))}"`);
  });

  it('refuses a copy range past the end of the source with InvalidArgument and a failing condition with 412', async () => {
    const uploadId = await createUpload('mp/part-copy-bad');
    const base = {
      Bucket: bucket,
      Key: 'mp/part-copy-bad',
      UploadId: uploadId,
      PartNumber: 1,
      CopySource: `${bucket}/mp/source`,
    };
    await expectS3Error(
      store.s3.send(new UploadPartCopyCommand({ ...base, CopySourceRange: `bytes=0-${whole.length}` })),
      'InvalidArgument',
      400,
    );
    await expectS3Error(
      store.s3.send(new UploadPartCopyCommand({ ...base, CopySourceIfNoneMatch: sourceEtag })),
      'PreconditionFailed',
      412,
    );
  });
});
