// ACLs and object ownership (issue 28): ownership controls per bucket (CreateBucket's x-amz-object-ownership, the
// STORE_DEFAULT_OBJECT_OWNERSHIP default, Put/Get/DeleteBucketOwnershipControls), canned ACLs and grants stored per
// bucket and per object version, returned by Get*Acl and enforced for anonymous callers and other keys.

import {
  CopyObjectCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteBucketOwnershipControlsCommand,
  GetBucketAclCommand,
  GetBucketOwnershipControlsCommand,
  GetObjectAclCommand,
  GetObjectCommand,
  PutBucketAclCommand,
  PutBucketOwnershipControlsCommand,
  PutBucketPolicyCommand,
  PutBucketVersioningCommand,
  PutObjectAclCommand,
  PutObjectCommand,
  UploadPartCommand,
  type Grant,
  type ObjectOwnership,
  type S3Client,
} from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { sdkClient } from '../helpers/clients.js';
import { formWithFile } from '../helpers/post-form.js';
import { useStore } from '../helpers/store.js';
import { bodyBytes, expectS3Error } from './s3-assert.js';

const ALL_USERS = 'http://acs.amazonaws.com/groups/global/AllUsers';
const AUTHENTICATED = 'http://acs.amazonaws.com/groups/global/AuthenticatedUsers';

const store = useStore();

const bucketWith = (ownership: ObjectOwnership = 'ObjectWriter'): Promise<string> =>
  store.bucket('acl', { ObjectOwnership: ownership });
const put = (bucket: string, key: string, extra: Record<string, unknown> = {}) =>
  store.s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: `body of ${key}`, ...extra }));
const anonymous = (method: string, path: string, body?: string): Promise<Response> =>
  fetch(`${store.server.url}${path}`, { method, ...(body === undefined ? {} : { body }) });

/** The grants of a GetObjectAcl / GetBucketAcl as `<grantee> <permission>` lines, the owner as `owner`. */
function grantLines(grants: Grant[] | undefined, ownerId: string | undefined): string[] {
  return (grants ?? [])
    .map((g) => `${g.Grantee?.ID === ownerId ? 'owner' : (g.Grantee?.URI ?? g.Grantee?.ID)} ${g.Permission}`)
    .sort();
}

async function objectGrants(bucket: string, key: string, versionId?: string): Promise<string[]> {
  const acl = await store.s3.send(new GetObjectAclCommand({ Bucket: bucket, Key: key, VersionId: versionId }));
  return grantLines(acl.Grants, acl.Owner?.ID);
}

async function createKey(body: Record<string, unknown>): Promise<S3Client> {
  const res = await store.adminCall('POST', '/keys', { name: 'acl test key', ...body });
  expect(res.status).toBe(201);
  return sdkClient(store.server, res.body as { accessKeyId: string; secretAccessKey: string });
}

describe('object ownership controls', () => {
  it('CreateBucket takes x-amz-object-ownership; without it a bucket gets the instance default (BucketOwnerEnforced)', async () => {
    const plain = await store.bucket('acl');
    const got = await store.s3.send(new GetBucketOwnershipControlsCommand({ Bucket: plain }));
    expect(got.OwnershipControls?.Rules).toEqual([{ ObjectOwnership: 'BucketOwnerEnforced' }]);
    for (const ownership of ['BucketOwnerPreferred', 'ObjectWriter'] as const) {
      const bucket = await bucketWith(ownership);
      const controls = await store.s3.send(new GetBucketOwnershipControlsCommand({ Bucket: bucket }));
      expect(controls.OwnershipControls?.Rules).toEqual([{ ObjectOwnership: ownership }]);
    }
  });

  it('Put/Get/DeleteBucketOwnershipControls; deleted, the controls are OwnershipControlsNotFoundError and ACLs work', async () => {
    const bucket = await store.bucket('acl');
    await expectS3Error(put(bucket, 'enforced', { ACL: 'public-read' }), 'AccessControlListNotSupported', 400);
    await store.s3.send(
      new PutBucketOwnershipControlsCommand({
        Bucket: bucket,
        OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerPreferred' }] },
      }),
    );
    await put(bucket, 'preferred', { ACL: 'public-read' });
    expect((await anonymous('GET', `/${bucket}/preferred`)).status).toBe(200);
    await store.s3.send(new DeleteBucketOwnershipControlsCommand({ Bucket: bucket }));
    await expectS3Error(
      store.s3.send(new GetBucketOwnershipControlsCommand({ Bucket: bucket })),
      'OwnershipControlsNotFoundError',
      404,
    );
    await put(bucket, 'writer', { ACL: 'public-read' });
    expect((await anonymous('GET', `/${bucket}/writer`)).status).toBe(200);
  });

  it('switching to BucketOwnerEnforced stops honouring object ACLs and shows the owner alone', async () => {
    const bucket = await bucketWith('ObjectWriter');
    await put(bucket, 'public', { ACL: 'public-read' });
    expect((await anonymous('GET', `/${bucket}/public`)).status).toBe(200);
    await store.s3.send(
      new PutBucketOwnershipControlsCommand({
        Bucket: bucket,
        OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] },
      }),
    );
    expect((await anonymous('GET', `/${bucket}/public`)).status).toBe(403);
    expect(await objectGrants(bucket, 'public')).toEqual(['owner FULL_CONTROL']);
  });

  it('BucketOwnerEnforced is refused while the bucket ACL grants others (InvalidBucketAclWithObjectOwnership)', async () => {
    const bucket = await bucketWith('ObjectWriter');
    await store.s3.send(new PutBucketAclCommand({ Bucket: bucket, ACL: 'public-read' }));
    const enforce = new PutBucketOwnershipControlsCommand({
      Bucket: bucket,
      OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] },
    });
    await expectS3Error(store.s3.send(enforce), 'InvalidBucketAclWithObjectOwnership', 400);
    await store.s3.send(new PutBucketAclCommand({ Bucket: bucket, ACL: 'private' }));
    await store.s3.send(enforce);
    await expectS3Error(
      store.bucket('acl', { ObjectOwnership: 'BucketOwnerEnforced', ACL: 'public-read' }),
      'InvalidBucketAclWithObjectOwnership',
      400,
    );
  });

  it('refuses an unknown ownership setting', async () => {
    const bucket = await bucketWith();
    await expectS3Error(
      store.s3.send(
        new PutBucketOwnershipControlsCommand({
          Bucket: bucket,
          OwnershipControls: { Rules: [{ ObjectOwnership: 'Nobody' as ObjectOwnership }] },
        }),
      ),
      'MalformedXML',
      400,
    );
  });
});

describe('canned ACLs', () => {
  it('public-read: anyone reads the object, nobody anonymous lists, writes or reads its ACL', async () => {
    const bucket = await bucketWith();
    await put(bucket, 'pub.txt', { ACL: 'public-read' });
    await put(bucket, 'private.txt');
    const got = await anonymous('GET', `/${bucket}/pub.txt`);
    expect({ status: got.status, body: await got.text() }).toEqual({ status: 200, body: 'body of pub.txt' });
    expect((await anonymous('HEAD', `/${bucket}/pub.txt`)).status).toBe(200);
    expect((await anonymous('GET', `/${bucket}/private.txt`)).status).toBe(403);
    expect((await anonymous('GET', `/${bucket}/pub.txt?acl`)).status).toBe(403);
    expect((await anonymous('GET', `/${bucket}?list-type=2`)).status).toBe(403);
    expect((await anonymous('PUT', `/${bucket}/pub.txt`, 'overwrite')).status).toBe(403);
    expect(await objectGrants(bucket, 'pub.txt')).toEqual([`${ALL_USERS} READ`, 'owner FULL_CONTROL']);
    expect(await objectGrants(bucket, 'private.txt')).toEqual(['owner FULL_CONTROL']);
  });

  it('a public-read bucket lets anyone list; public-read-write lets anyone write', async () => {
    const readable = await store.bucket('acl', { ObjectOwnership: 'ObjectWriter', ACL: 'public-read' });
    await put(readable, 'listed.txt');
    const listing = await anonymous('GET', `/${readable}?list-type=2`);
    expect(listing.status).toBe(200);
    expect(await listing.text()).toContain('<Key>listed.txt</Key>');
    expect((await anonymous('GET', `/${readable}/listed.txt`)).status).toBe(403);
    expect((await anonymous('PUT', `/${readable}/new.txt`, 'x')).status).toBe(403);

    const writable = await bucketWith();
    await store.s3.send(new PutBucketAclCommand({ Bucket: writable, ACL: 'public-read-write' }));
    expect((await anonymous('PUT', `/${writable}/dropped.txt`, 'from anyone')).status).toBe(200);
    const got = await store.s3.send(new GetObjectCommand({ Bucket: writable, Key: 'dropped.txt' }));
    expect((await bodyBytes(got.Body)).toString()).toBe('from anyone');
    expect((await anonymous('DELETE', `/${writable}/dropped.txt`)).status).toBe(204);
    const acl = await store.s3.send(new GetBucketAclCommand({ Bucket: writable }));
    expect(grantLines(acl.Grants, acl.Owner?.ID)).toEqual([
      `${ALL_USERS} READ`,
      `${ALL_USERS} WRITE`,
      'owner FULL_CONTROL',
    ]);
  });

  it('authenticated-read: any valid key reads it (a scoped key for another bucket too), anonymous callers do not', async () => {
    const bucket = await bucketWith();
    const elsewhere = await bucketWith();
    await put(bucket, 'members.txt', { ACL: 'authenticated-read' });
    await put(bucket, 'private.txt');
    const scoped = await createKey({ permissions: { scope: { bucket: elsewhere } } });
    const got = await scoped.send(new GetObjectCommand({ Bucket: bucket, Key: 'members.txt' }));
    expect((await bodyBytes(got.Body)).toString()).toBe('body of members.txt');
    await expectS3Error(scoped.send(new GetObjectCommand({ Bucket: bucket, Key: 'private.txt' })), 'AccessDenied', 403);
    expect((await anonymous('GET', `/${bucket}/members.txt`)).status).toBe(403);
    expect(await objectGrants(bucket, 'members.txt')).toEqual([`${AUTHENTICATED} READ`, 'owner FULL_CONTROL']);
  });

  it.each(['private', 'bucket-owner-read', 'bucket-owner-full-control'] as const)(
    '%s: the owner alone',
    async (ACL) => {
      const bucket = await bucketWith();
      await put(bucket, 'k', { ACL });
      expect(await objectGrants(bucket, 'k')).toEqual(['owner FULL_CONTROL']);
      expect((await anonymous('GET', `/${bucket}/k`)).status).toBe(403);
    },
  );

  it('CopyObject and CreateMultipartUpload (applied at completion) take an ACL; a copy does not inherit one', async () => {
    const bucket = await bucketWith();
    await put(bucket, 'src', { ACL: 'public-read' });
    await store.s3.send(new CopyObjectCommand({ Bucket: bucket, Key: 'copy-plain', CopySource: `${bucket}/src` }));
    await store.s3.send(
      new CopyObjectCommand({ Bucket: bucket, Key: 'copy-public', CopySource: `${bucket}/src`, ACL: 'public-read' }),
    );
    expect((await anonymous('GET', `/${bucket}/copy-plain`)).status).toBe(403);
    expect((await anonymous('GET', `/${bucket}/copy-public`)).status).toBe(200);
    const { UploadId } = await store.s3.send(
      new CreateMultipartUploadCommand({ Bucket: bucket, Key: 'mpu', ACL: 'public-read' }),
    );
    const part = await store.s3.send(
      new UploadPartCommand({ Bucket: bucket, Key: 'mpu', UploadId, PartNumber: 1, Body: 'parts' }),
    );
    await store.s3.send(
      new CompleteMultipartUploadCommand({
        Bucket: bucket,
        Key: 'mpu',
        UploadId,
        MultipartUpload: { Parts: [{ PartNumber: 1, ETag: part.ETag }] },
      }),
    );
    const got = await anonymous('GET', `/${bucket}/mpu`);
    expect({ status: got.status, body: await got.text() }).toEqual({ status: 200, body: 'parts' });
  });

  it('a POST form acl field sets the object ACL', async () => {
    const bucket = await store.bucket('acl', { ObjectOwnership: 'ObjectWriter', ACL: 'public-read-write' });
    const form = formWithFile({ key: 'posted.txt', acl: 'public-read' }, { filename: 'posted.txt', content: 'posted' });
    const res = await fetch(`${store.server.url}/${bucket}`, {
      method: 'POST',
      body: form.body,
      headers: { 'content-type': form.contentType },
    });
    expect(res.status).toBe(204);
    expect((await anonymous('GET', `/${bucket}/posted.txt`)).status).toBe(200);
  });

  it('an unknown canned ACL is InvalidArgument', async () => {
    const bucket = await bucketWith();
    await expectS3Error(put(bucket, 'k', { ACL: 'world-readable' }), 'InvalidArgument', 400);
  });
});

describe('PutObjectAcl and PutBucketAcl', () => {
  it('header form and XML body set the ACL of each version on its own', async () => {
    const bucket = await bucketWith();
    await store.s3.send(
      new PutBucketVersioningCommand({ Bucket: bucket, VersioningConfiguration: { Status: 'Enabled' } }),
    );
    const first = await put(bucket, 'doc');
    const second = await put(bucket, 'doc');
    await store.s3.send(
      new PutObjectAclCommand({ Bucket: bucket, Key: 'doc', VersionId: first.VersionId, ACL: 'public-read' }),
    );
    expect(await objectGrants(bucket, 'doc', first.VersionId)).toEqual([`${ALL_USERS} READ`, 'owner FULL_CONTROL']);
    expect(await objectGrants(bucket, 'doc', second.VersionId)).toEqual(['owner FULL_CONTROL']);
    expect((await anonymous('GET', `/${bucket}/doc?versionId=${first.VersionId}`)).status).toBe(200);
    expect((await anonymous('GET', `/${bucket}/doc`)).status).toBe(403);

    const { Owner } = await store.s3.send(new GetObjectAclCommand({ Bucket: bucket, Key: 'doc' }));
    await store.s3.send(
      new PutObjectAclCommand({
        Bucket: bucket,
        Key: 'doc',
        AccessControlPolicy: {
          Owner,
          Grants: [
            { Grantee: { Type: 'CanonicalUser', ID: Owner?.ID }, Permission: 'FULL_CONTROL' },
            { Grantee: { Type: 'Group', URI: AUTHENTICATED }, Permission: 'READ' },
            { Grantee: { Type: 'Group', URI: ALL_USERS }, Permission: 'READ_ACP' },
          ],
        },
      }),
    );
    expect(await objectGrants(bucket, 'doc')).toEqual([
      `${ALL_USERS} READ_ACP`,
      `${AUTHENTICATED} READ`,
      'owner FULL_CONTROL',
    ]);
    expect((await anonymous('GET', `/${bucket}/doc?acl`)).status).toBe(200);
    expect((await anonymous('GET', `/${bucket}/doc`)).status).toBe(403);
  });

  it('x-amz-grant-* headers name the owner and the groups', async () => {
    const bucket = await bucketWith();
    await put(bucket, 'granted');
    const { Owner } = await store.s3.send(new GetObjectAclCommand({ Bucket: bucket, Key: 'granted' }));
    await store.s3.send(
      new PutObjectAclCommand({
        Bucket: bucket,
        Key: 'granted',
        GrantFullControl: `id="${Owner?.ID}"`,
        GrantRead: `uri="${ALL_USERS}"`,
      }),
    );
    expect(await objectGrants(bucket, 'granted')).toEqual([`${ALL_USERS} READ`, 'owner FULL_CONTROL']);
    expect((await anonymous('GET', `/${bucket}/granted`)).status).toBe(200);
    await put(bucket, 'on-put', { GrantRead: `uri="${ALL_USERS}"` });
    expect((await anonymous('GET', `/${bucket}/on-put`)).status).toBe(200);
    await store.s3.send(
      new PutBucketAclCommand({
        Bucket: bucket,
        GrantRead: `uri="${ALL_USERS}"`,
        GrantFullControl: `id="${Owner?.ID}"`,
      }),
    );
    expect((await anonymous('GET', `/${bucket}?list-type=2`)).status).toBe(200);
  });

  it('refuses grants to unknown canonical ids and email addresses, and a canned ACL with grants', async () => {
    const bucket = await bucketWith();
    await put(bucket, 'k');
    const other = 'f'.repeat(64);
    await expectS3Error(
      store.s3.send(new PutObjectAclCommand({ Bucket: bucket, Key: 'k', GrantRead: `id="${other}"` })),
      'InvalidArgument',
      400,
    );
    await expectS3Error(
      store.s3.send(new PutObjectAclCommand({ Bucket: bucket, Key: 'k', GrantRead: 'emailAddress="a@example.com"' })),
      'UnresolvableGrantByEmailAddress',
      400,
    );
    await expectS3Error(
      store.s3.send(new PutBucketAclCommand({ Bucket: bucket, GrantRead: 'uri="http://example.com/group"' })),
      'InvalidArgument',
      400,
    );
    const { Owner } = await store.s3.send(new GetObjectAclCommand({ Bucket: bucket, Key: 'k' }));
    await expectS3Error(
      store.s3.send(
        new PutObjectAclCommand({
          Bucket: bucket,
          Key: 'k',
          AccessControlPolicy: {
            Owner,
            Grants: [{ Grantee: { Type: 'CanonicalUser', ID: other }, Permission: 'READ' }],
          },
        }),
      ),
      'InvalidArgument',
      400,
    );
    await expectS3Error(
      put(bucket, 'k2', { ACL: 'public-read', GrantRead: `uri="${ALL_USERS}"` }),
      'InvalidRequest',
      400,
    );
    expect(await objectGrants(bucket, 'k')).toEqual(['owner FULL_CONTROL']);
  });

  it('a bucket policy Deny wins over a public ACL', async () => {
    const bucket = await bucketWith();
    await put(bucket, 'denied', { ACL: 'public-read' });
    await store.s3.send(
      new PutBucketPolicyCommand({
        Bucket: bucket,
        Policy: JSON.stringify({
          Version: '2012-10-17',
          Statement: [
            { Effect: 'Deny', Principal: '*', Action: 's3:GetObject', Resource: `arn:aws:s3:::${bucket}/denied` },
          ],
        }),
      }),
    );
    expect((await anonymous('GET', `/${bucket}/denied`)).status).toBe(403);
  });
});

describe('STORE_DEFAULT_OBJECT_OWNERSHIP', () => {
  const writer = useStore({ env: { STORE_DEFAULT_OBJECT_OWNERSHIP: 'ObjectWriter' } });

  it('gives new buckets that name no ownership its setting, so x-amz-acl: public-read works at once', async () => {
    const bucket = await writer.bucket('acl');
    const got = await writer.s3.send(new GetBucketOwnershipControlsCommand({ Bucket: bucket }));
    expect(got.OwnershipControls?.Rules).toEqual([{ ObjectOwnership: 'ObjectWriter' }]);
    await writer.s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'k', Body: 'x', ACL: 'public-read' }));
    expect((await fetch(`${writer.server.url}/${bucket}/k`)).status).toBe(200);
  });
});
