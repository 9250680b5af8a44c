// Object tagging through @aws-sdk/client-s3 and minio-js: Put/Get/DeleteObjectTagging (by version too),
// x-amz-tagging on PutObject and CreateMultipartUpload, CopyObject's tagging directive, x-amz-tagging-count on
// GET/HEAD, and S3's limits (10 tags, key 128 and value 256 characters, allowed characters) with InvalidTag.

import {
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  DeleteObjectTaggingCommand,
  GetObjectCommand,
  GetObjectTaggingCommand,
  HeadObjectCommand,
  PutBucketVersioningCommand,
  PutObjectCommand,
  PutObjectTaggingCommand,
  UploadPartCommand,
  type Tag,
} from '@aws-sdk/client-s3';
import { beforeAll, describe, expect, it } from 'vitest';
import { uniqueBucket } from '../helpers/clients.js';
import { useStore } from '../helpers/store.js';
import { bodyBytes, expectS3Error } from './s3-assert.js';

const store = useStore({ tmpfs: true });
let bucket: string;

beforeAll(async () => {
  bucket = await store.bucket('tags');
});

async function tagsOf(key: string, versionId?: string): Promise<Tag[]> {
  return (
    (await store.s3.send(new GetObjectTaggingCommand({ Bucket: bucket, Key: key, VersionId: versionId }))).TagSet ?? []
  );
}

function tagSet(n: number): Tag[] {
  return Array.from({ length: n }, (_, i) => ({ Key: `k${i}`, Value: `v${i}` }));
}

describe('tags on PutObject and the tagging subresource', () => {
  it('stores x-amz-tagging (URL-encoded) and reports the count on GET and HEAD', async () => {
    await store.s3.send(
      new PutObjectCommand({
        Bucket: bucket,
        Key: 'tagged',
        Body: 'x',
        Tagging: 'project=store&note=two%20words&empty=',
      }),
    );
    expect(await tagsOf('tagged')).toEqual([
      { Key: 'project', Value: 'store' },
      { Key: 'note', Value: 'two words' },
      { Key: 'empty', Value: '' },
    ]);
    expect((await store.s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'tagged' }))).TagCount).toBe(3);
    const got = await store.s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'tagged' }));
    expect(got.TagCount).toBe(3);
    await bodyBytes(got.Body);
  });

  it('replaces the tag set with PutObjectTagging and clears it with DeleteObjectTagging', async () => {
    await store.s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'retag', Body: 'x', Tagging: 'a=1' }));
    await store.s3.send(
      new PutObjectTaggingCommand({
        Bucket: bucket,
        Key: 'retag',
        Tagging: { TagSet: [{ Key: 'ü:ber/+=.@_-', Value: 'Größe 10' }] },
      }),
    );
    expect(await tagsOf('retag')).toEqual([{ Key: 'ü:ber/+=.@_-', Value: 'Größe 10' }]);
    const del = await store.s3.send(new DeleteObjectTaggingCommand({ Bucket: bucket, Key: 'retag' }));
    expect(del.$metadata.httpStatusCode).toBe(204);
    expect(await tagsOf('retag')).toEqual([]);
    expect((await store.s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'retag' }))).TagCount).toBeUndefined();
  });

  it('an overwrite without x-amz-tagging leaves the new object untagged', async () => {
    await store.s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'overwrite', Body: 'x', Tagging: 'a=1' }));
    await store.s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'overwrite', Body: 'y' }));
    expect(await tagsOf('overwrite')).toEqual([]);
  });

  it('accepts exactly 10 tags and the longest key and value', async () => {
    await store.s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'limits', Body: 'x' }));
    await store.s3.send(
      new PutObjectTaggingCommand({ Bucket: bucket, Key: 'limits', Tagging: { TagSet: tagSet(10) } }),
    );
    expect(await tagsOf('limits')).toHaveLength(10);
    await store.s3.send(
      new PutObjectTaggingCommand({
        Bucket: bucket,
        Key: 'limits',
        Tagging: { TagSet: [{ Key: 'k'.repeat(128), Value: 'v'.repeat(256) }] },
      }),
    );
    expect(await tagsOf('limits')).toEqual([{ Key: 'k'.repeat(128), Value: 'v'.repeat(256) }]);
  });
});

describe('invalid tags', () => {
  beforeAll(async () => {
    await store.s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'target', Body: 'x', Tagging: 'keep=me' }));
  });

  it.each([
    ['11 tags', tagSet(11)],
    ['a 129-character key', [{ Key: 'k'.repeat(129), Value: 'v' }]],
    ['a 257-character value', [{ Key: 'k', Value: 'v'.repeat(257) }]],
    ['an empty key', [{ Key: '', Value: 'v' }]],
    ['a key with characters S3 refuses', [{ Key: 'bad<key>', Value: 'v' }]],
    ['a value with characters S3 refuses', [{ Key: 'k', Value: 'semi;colon' }]],
    ['the reserved aws: prefix', [{ Key: 'AWS:thing', Value: 'v' }]],
    [
      'a repeated key',
      [
        { Key: 'k', Value: '1' },
        { Key: 'k', Value: '2' },
      ],
    ],
  ])('PutObjectTagging refuses %s with InvalidTag and keeps the old tags', async (_name, tags) => {
    await expectS3Error(
      store.s3.send(new PutObjectTaggingCommand({ Bucket: bucket, Key: 'target', Tagging: { TagSet: tags } })),
      'InvalidTag',
      400,
    );
    expect(await tagsOf('target')).toEqual([{ Key: 'keep', Value: 'me' }]);
  });

  it('refuses an oversized or malformed x-amz-tagging header and stores nothing', async () => {
    const eleven = tagSet(11)
      .map((t) => `${t.Key}=${t.Value}`)
      .join('&');
    await expectS3Error(
      store.s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'hdr', Body: 'x', Tagging: eleven })),
      'InvalidTag',
      400,
    );
    await expectS3Error(
      store.s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'hdr', Body: 'x', Tagging: 'a=1&a=2' })),
      'InvalidArgument',
      400,
    );
    await expectS3Error(
      store.s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'hdr', Body: 'x', Tagging: 'a=%zz' })),
      'InvalidArgument',
      400,
    );
    await expectS3Error(store.s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'hdr' })), 'NotFound', 404);
  });

  it('tagging a missing key is NoSuchKey', async () => {
    await expectS3Error(
      store.s3.send(new GetObjectTaggingCommand({ Bucket: bucket, Key: 'missing' })),
      'NoSuchKey',
      404,
    );
    await expectS3Error(
      store.s3.send(new PutObjectTaggingCommand({ Bucket: bucket, Key: 'missing', Tagging: { TagSet: [] } })),
      'NoSuchKey',
      404,
    );
    await expectS3Error(
      store.s3.send(new DeleteObjectTaggingCommand({ Bucket: bucket, Key: 'missing' })),
      'NoSuchKey',
      404,
    );
  });
});

describe('tags and versions', () => {
  it('tags each version on its own; a delete marker is NoSuchKey, or 405 by version id', async () => {
    const vb = uniqueBucket('vtags');
    await store.s3.send(new CreateBucketCommand({ Bucket: vb }));
    await store.s3.send(new PutBucketVersioningCommand({ Bucket: vb, VersioningConfiguration: { Status: 'Enabled' } }));
    const v1 = (await store.s3.send(new PutObjectCommand({ Bucket: vb, Key: 'k', Body: '1', Tagging: 'v=1' })))
      .VersionId;
    const v2 = (await store.s3.send(new PutObjectCommand({ Bucket: vb, Key: 'k', Body: '2', Tagging: 'v=2' })))
      .VersionId;
    const put = await store.s3.send(
      new PutObjectTaggingCommand({
        Bucket: vb,
        Key: 'k',
        VersionId: v1,
        Tagging: { TagSet: [{ Key: 'v', Value: 'one' }] },
      }),
    );
    expect(put.VersionId).toBe(v1);
    const latest = await store.s3.send(new GetObjectTaggingCommand({ Bucket: vb, Key: 'k' }));
    expect(latest).toMatchObject({ VersionId: v2, TagSet: [{ Key: 'v', Value: '2' }] });
    expect((await store.s3.send(new GetObjectTaggingCommand({ Bucket: vb, Key: 'k', VersionId: v1 }))).TagSet).toEqual([
      { Key: 'v', Value: 'one' },
    ]);
    await store.s3.send(new DeleteObjectTaggingCommand({ Bucket: vb, Key: 'k', VersionId: v1 }));
    expect((await store.s3.send(new GetObjectTaggingCommand({ Bucket: vb, Key: 'k', VersionId: v1 }))).TagSet).toEqual(
      [],
    );
    expect((await store.s3.send(new HeadObjectCommand({ Bucket: vb, Key: 'k', VersionId: v2 }))).TagCount).toBe(1);

    const marker = await store.s3.send(new DeleteObjectCommand({ Bucket: vb, Key: 'k' }));
    await expectS3Error(store.s3.send(new GetObjectTaggingCommand({ Bucket: vb, Key: 'k' })), 'NoSuchKey', 404);
    await expectS3Error(
      store.s3.send(new GetObjectTaggingCommand({ Bucket: vb, Key: 'k', VersionId: marker.VersionId })),
      'MethodNotAllowed',
      405,
    );
    await expectS3Error(
      store.s3.send(
        new GetObjectTaggingCommand({ Bucket: vb, Key: 'k', VersionId: '0190a0a0-0000-7000-8000-000000000000' }),
      ),
      'NoSuchVersion',
      404,
    );
  });
});

describe('tags on CopyObject and multipart uploads', () => {
  beforeAll(async () => {
    await store.s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'src', Body: 'source', Tagging: 'from=source' }));
  });

  it('CopyObject copies the source tags by default (COPY) and takes the request tags with REPLACE', async () => {
    await store.s3.send(
      new CopyObjectCommand({ Bucket: bucket, Key: 'copied', CopySource: `${bucket}/src`, Tagging: 'ignored=1' }),
    );
    expect(await tagsOf('copied')).toEqual([{ Key: 'from', Value: 'source' }]);
    await store.s3.send(
      new CopyObjectCommand({
        Bucket: bucket,
        Key: 'replaced',
        CopySource: `${bucket}/src`,
        TaggingDirective: 'REPLACE',
        Tagging: 'to=copy&n=2',
      }),
    );
    expect(await tagsOf('replaced')).toEqual([
      { Key: 'to', Value: 'copy' },
      { Key: 'n', Value: '2' },
    ]);
    await store.s3.send(
      new CopyObjectCommand({
        Bucket: bucket,
        Key: 'cleared',
        CopySource: `${bucket}/src`,
        TaggingDirective: 'REPLACE',
      }),
    );
    expect(await tagsOf('cleared')).toEqual([]);
  });

  it('CopyObject refuses an unknown tagging directive and bad REPLACE tags', async () => {
    await expectS3Error(
      store.s3.send(
        new CopyObjectCommand({
          Bucket: bucket,
          Key: 'x',
          CopySource: `${bucket}/src`,
          TaggingDirective: 'MERGE' as 'COPY',
        }),
      ),
      'InvalidArgument',
      400,
    );
    await expectS3Error(
      store.s3.send(
        new CopyObjectCommand({
          Bucket: bucket,
          Key: 'x',
          CopySource: `${bucket}/src`,
          TaggingDirective: 'REPLACE',
          Tagging: 'aws:x=1',
        }),
      ),
      'InvalidTag',
      400,
    );
  });

  it('CreateMultipartUpload keeps x-amz-tagging for the completed object', async () => {
    const { UploadId } = await store.s3.send(
      new CreateMultipartUploadCommand({ Bucket: bucket, Key: 'mp', Tagging: 'upload=multipart' }),
    );
    const part = await store.s3.send(
      new UploadPartCommand({ Bucket: bucket, Key: 'mp', UploadId, PartNumber: 1, Body: 'p' }),
    );
    await store.s3.send(
      new CompleteMultipartUploadCommand({
        Bucket: bucket,
        Key: 'mp',
        UploadId,
        MultipartUpload: { Parts: [{ PartNumber: 1, ETag: part.ETag }] },
      }),
    );
    expect(await tagsOf('mp')).toEqual([{ Key: 'upload', Value: 'multipart' }]);
    await expectS3Error(
      store.s3.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: 'mp2', Tagging: 'bad<=1' })),
      'InvalidTag',
      400,
    );
  });
});

describe('a tag key without a value in x-amz-tagging (`a=1&b`)', () => {
  const expected = [
    { Key: 'a', Value: '1' },
    { Key: 'b', Value: '' },
  ];

  it('PutObject stores b with an empty value', async () => {
    await store.s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'novalue-put', Body: 'x', Tagging: 'a=1&b' }));
    expect(await tagsOf('novalue-put')).toEqual(expected);
  });

  it('CreateMultipartUpload stores it on the completed object', async () => {
    const { UploadId } = await store.s3.send(
      new CreateMultipartUploadCommand({ Bucket: bucket, Key: 'novalue-mp', Tagging: 'a=1&b' }),
    );
    const part = await store.s3.send(
      new UploadPartCommand({ Bucket: bucket, Key: 'novalue-mp', UploadId, PartNumber: 1, Body: 'p' }),
    );
    await store.s3.send(
      new CompleteMultipartUploadCommand({
        Bucket: bucket,
        Key: 'novalue-mp',
        UploadId,
        MultipartUpload: { Parts: [{ PartNumber: 1, ETag: part.ETag }] },
      }),
    );
    expect(await tagsOf('novalue-mp')).toEqual(expected);
  });

  it('CopyObject with the REPLACE tagging directive stores it', async () => {
    await store.s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'novalue-src', Body: 'x', Tagging: 'old=1' }));
    await store.s3.send(
      new CopyObjectCommand({
        Bucket: bucket,
        Key: 'novalue-copy',
        CopySource: `${bucket}/novalue-src`,
        TaggingDirective: 'REPLACE',
        Tagging: 'a=1&b',
      }),
    );
    expect(await tagsOf('novalue-copy')).toEqual(expected);
  });
});

describe('minio-js', () => {
  it('sets, reads and removes object tags', async () => {
    await store.minio.putObject(bucket, 'minio-tags', Buffer.from('x'));
    await store.minio.setObjectTagging(bucket, 'minio-tags', { team: 'storage', tier: 'hot' });
    const tags = await store.minio.getObjectTagging(bucket, 'minio-tags');
    expect(tags).toEqual([
      { Key: 'team', Value: 'storage' },
      { Key: 'tier', Value: 'hot' },
    ]);
    // minio-js types versionId as required, but an empty one means "the current version" (it is left off the query).
    await store.minio.removeObjectTagging(bucket, 'minio-tags', { versionId: '' });
    expect(await store.minio.getObjectTagging(bucket, 'minio-tags')).toEqual([]);
    await expect(store.minio.setObjectTagging(bucket, 'minio-tags', { 'aws:reserved': 'x' })).rejects.toMatchObject({
      code: 'InvalidTag',
    });
  });
});
