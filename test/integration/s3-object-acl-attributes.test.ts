// GetObjectAcl / PutObjectAcl (the owner's FULL_CONTROL only, anything else refused) and GetObjectAttributes
// (ETag, Checksum, ObjectParts with paging, StorageClass, ObjectSize; by version) through @aws-sdk/client-s3.

import {
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectAclCommand,
  GetObjectAttributesCommand,
  PutBucketVersioningCommand,
  PutObjectAclCommand,
  PutObjectCommand,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { computeChecksum, type ChecksumAlgorithm } from '../../src/core/checksums.js';
import { useStore } from '../helpers/store.js';
import { errorHeaders, expectS3Error, md5Hex } from './s3-assert.js';

const MiB = 1024 * 1024;

const b64 = (alg: ChecksumAlgorithm, data: Buffer): string => computeChecksum(alg, data).toString('base64');

const store = useStore({ tmpfs: true });
let bucket: string;

beforeAll(async () => {
  bucket = await store.bucket('attrs');
  await store.s3.send(
    new PutBucketVersioningCommand({ Bucket: bucket, VersioningConfiguration: { Status: 'Enabled' } }),
  );
  await store.s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'acl', Body: 'x' }));
});

describe('object ACLs', () => {
  it('GetObjectAcl answers the owner with FULL_CONTROL and nothing else', async () => {
    const out = await store.s3.send(new GetObjectAclCommand({ Bucket: bucket, Key: 'acl' }));
    expect(out.Owner?.ID).toMatch(/^[0-9a-f]{64}$/);
    expect(out.Grants).toEqual([
      {
        Grantee: { ID: out.Owner?.ID, DisplayName: out.Owner?.DisplayName, Type: 'CanonicalUser' },
        Permission: 'FULL_CONTROL',
      },
    ]);
  });

  it('PutObjectAcl accepts private, bucket-owner-full-control and a body granting only the owner FULL_CONTROL', async () => {
    await store.s3.send(new PutObjectAclCommand({ Bucket: bucket, Key: 'acl', ACL: 'private' }));
    await store.s3.send(new PutObjectAclCommand({ Bucket: bucket, Key: 'acl', ACL: 'bucket-owner-full-control' }));
    const { Owner } = await store.s3.send(new GetObjectAclCommand({ Bucket: bucket, Key: 'acl' }));
    await store.s3.send(
      new PutObjectAclCommand({
        Bucket: bucket,
        Key: 'acl',
        AccessControlPolicy: {
          Owner,
          Grants: [{ Grantee: { ID: Owner?.ID, Type: 'CanonicalUser' }, Permission: 'FULL_CONTROL' }],
        },
      }),
    );
  });

  it('PutObjectAcl refuses any grant to others with AccessControlListNotSupported', async () => {
    await expectS3Error(
      store.s3.send(new PutObjectAclCommand({ Bucket: bucket, Key: 'acl', ACL: 'public-read' })),
      'AccessControlListNotSupported',
      400,
    );
    await expectS3Error(
      store.s3.send(
        new PutObjectAclCommand({
          Bucket: bucket,
          Key: 'acl',
          GrantRead: 'uri="http://acs.amazonaws.com/groups/global/AllUsers"',
        }),
      ),
      'AccessControlListNotSupported',
      400,
    );
    const { Owner } = await store.s3.send(new GetObjectAclCommand({ Bucket: bucket, Key: 'acl' }));
    await expectS3Error(
      store.s3.send(
        new PutObjectAclCommand({
          Bucket: bucket,
          Key: 'acl',
          AccessControlPolicy: {
            Owner,
            Grants: [
              {
                Grantee: { URI: 'http://acs.amazonaws.com/groups/global/AllUsers', Type: 'Group' },
                Permission: 'READ',
              },
            ],
          },
        }),
      ),
      'AccessControlListNotSupported',
      400,
    );
  });

  it('ACLs of a missing key or version are NoSuchKey / NoSuchVersion', async () => {
    await expectS3Error(store.s3.send(new GetObjectAclCommand({ Bucket: bucket, Key: 'missing' })), 'NoSuchKey', 404);
    await expectS3Error(
      store.s3.send(new PutObjectAclCommand({ Bucket: bucket, Key: 'missing', ACL: 'private' })),
      'NoSuchKey',
      404,
    );
    await expectS3Error(
      store.s3.send(
        new GetObjectAclCommand({ Bucket: bucket, Key: 'acl', VersionId: '0190a0a0-0000-7000-8000-000000000000' }),
      ),
      'NoSuchVersion',
      404,
    );
  });
});

describe('GetObjectAttributes', () => {
  it('answers only the attributes asked for, with the version id and Last-Modified', async () => {
    const body = Buffer.from('attributes body');
    const put = await store.s3.send(
      new PutObjectCommand({ Bucket: bucket, Key: 'simple', Body: body, ChecksumAlgorithm: 'SHA256' }),
    );
    const out = await store.s3.send(
      new GetObjectAttributesCommand({
        Bucket: bucket,
        Key: 'simple',
        ObjectAttributes: ['ETag', 'Checksum', 'StorageClass', 'ObjectSize', 'ObjectParts'],
      }),
    );
    expect(out).toMatchObject({
      ETag: md5Hex(body),
      StorageClass: 'STANDARD',
      ObjectSize: body.length,
      VersionId: put.VersionId,
      Checksum: { ChecksumSHA256: b64('SHA256', body), ChecksumType: 'FULL_OBJECT' },
    });
    expect(out.ObjectParts).toBeUndefined();
    expect(out.LastModified).toBeInstanceOf(Date);
    const only = await store.s3.send(
      new GetObjectAttributesCommand({ Bucket: bucket, Key: 'simple', ObjectAttributes: ['ObjectSize'] }),
    );
    expect(only.ObjectSize).toBe(body.length);
    expect(only.ETag).toBeUndefined();
    expect(only.Checksum).toBeUndefined();
  });

  it('lists the parts of a multipart object with their checksums, paged by MaxParts and PartNumberMarker', async () => {
    const parts = [randomBytes(5 * MiB), randomBytes(5 * MiB), randomBytes(1000)];
    const { UploadId } = await store.s3.send(
      new CreateMultipartUploadCommand({ Bucket: bucket, Key: 'mp', ChecksumAlgorithm: 'CRC32' }),
    );
    const etags: string[] = [];
    for (const [i, part] of parts.entries()) {
      const out = await store.s3.send(
        new UploadPartCommand({
          Bucket: bucket,
          Key: 'mp',
          UploadId,
          PartNumber: i + 1,
          Body: part,
          ChecksumAlgorithm: 'CRC32',
        }),
      );
      etags.push(out.ETag as string);
    }
    const done = await store.s3.send(
      new CompleteMultipartUploadCommand({
        Bucket: bucket,
        Key: 'mp',
        UploadId,
        MultipartUpload: {
          Parts: parts.map((part, i) => ({ PartNumber: i + 1, ETag: etags[i], ChecksumCRC32: b64('CRC32', part) })),
        },
      }),
    );
    const first = await store.s3.send(
      new GetObjectAttributesCommand({
        Bucket: bucket,
        Key: 'mp',
        ObjectAttributes: ['ObjectParts', 'Checksum', 'ETag'],
        MaxParts: 2,
      }),
    );
    expect(first.ETag).toBe((done.ETag as string).replace(/"/g, ''));
    // The composite checksum comes without its -3 suffix here, as S3 answers it.
    expect(first.Checksum).toEqual({
      ChecksumCRC32: (done.ChecksumCRC32 as string).replace(/-3$/, ''),
      ChecksumType: 'COMPOSITE',
    });
    expect(first.ObjectParts).toMatchObject({
      TotalPartsCount: 3,
      MaxParts: 2,
      IsTruncated: true,
      NextPartNumberMarker: '2',
    });
    expect(first.ObjectParts?.Parts).toEqual([
      { PartNumber: 1, Size: 5 * MiB, ChecksumCRC32: b64('CRC32', parts[0] as Buffer) },
      { PartNumber: 2, Size: 5 * MiB, ChecksumCRC32: b64('CRC32', parts[1] as Buffer) },
    ]);
    const rest = await store.s3.send(
      new GetObjectAttributesCommand({
        Bucket: bucket,
        Key: 'mp',
        ObjectAttributes: ['ObjectParts'],
        PartNumberMarker: '2',
      }),
    );
    expect(rest.ObjectParts).toMatchObject({ TotalPartsCount: 3, IsTruncated: false, PartNumberMarker: '2' });
    expect(rest.ObjectParts?.Parts?.map((p) => [p.PartNumber, p.Size])).toEqual([[3, 1000]]);
  });

  it('reads an older version by id; a delete marker is NoSuchKey with x-amz-delete-marker', async () => {
    const v1 = (await store.s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'versions', Body: 'one' }))).VersionId;
    await store.s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'versions', Body: 'three' }));
    const old = await store.s3.send(
      new GetObjectAttributesCommand({
        Bucket: bucket,
        Key: 'versions',
        VersionId: v1,
        ObjectAttributes: ['ObjectSize'],
      }),
    );
    expect(old).toMatchObject({ ObjectSize: 3, VersionId: v1 });
    await store.s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: 'versions' }));
    const err = await expectS3Error(
      store.s3.send(new GetObjectAttributesCommand({ Bucket: bucket, Key: 'versions', ObjectAttributes: ['ETag'] })),
      'NoSuchKey',
      404,
    );
    expect(errorHeaders(err)['x-amz-delete-marker']).toBe('true');
  });

  it('refuses a missing or unknown attribute name with InvalidArgument', async () => {
    await expectS3Error(
      store.s3.send(new GetObjectAttributesCommand({ Bucket: bucket, Key: 'simple', ObjectAttributes: [] })),
      'InvalidArgument',
      400,
    );
    await expectS3Error(
      store.s3.send(
        new GetObjectAttributesCommand({
          Bucket: bucket,
          Key: 'simple',
          ObjectAttributes: ['ETag', 'Colour' as 'ETag'],
        }),
      ),
      'InvalidArgument',
      400,
    );
    await expectS3Error(
      store.s3.send(new GetObjectAttributesCommand({ Bucket: bucket, Key: 'missing', ObjectAttributes: ['ETag'] })),
      'NoSuchKey',
      404,
    );
  });
});
