/* eslint-disable max-lines -- one server fixture for every admin bucket route and its error paths */
// The admin bucket routes against the real server: list with counts, create, details, delete, and every
// configuration editor, with their error paths; configurations set here are the ones the S3 plane reads (and back).

import {
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  GetBucketCorsCommand,
  GetBucketLifecycleConfigurationCommand,
  GetBucketPolicyCommand,
  GetBucketTaggingCommand,
  PutBucketPolicyCommand,
  PutBucketTaggingCommand,
  PutObjectCommand,
  PutPublicAccessBlockCommand,
} from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { adminCall } from '../helpers/admin-session.js';
import { uniqueBucket } from '../helpers/clients.js';
import { useStore } from '../helpers/store.js';
import { adminFixture, expectError, type Json } from './admin-storage-fixture.js';

const store = useStore();

const { call, auditEvents, newBucket } = adminFixture(store);

describe('buckets', () => {
  it('creates a bucket and reports it with its settings, counts and configurations', async () => {
    const name = uniqueBucket('adm');
    const created = await call('POST', '/buckets', { name, versioning: true });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name,
      region: 'us-east-1',
      versioning: 'Enabled',
      objectLock: false,
      objectCount: 0,
      bytes: 0,
      configs: {
        tagging: false,
        encryption: false,
        lifecycle: false,
        cors: false,
        policy: false,
        objectLock: false,
        publicAccessBlock: false,
      },
      objectOwnership: 'BucketOwnerEnforced',
      public: { isPublic: false, reasons: [] },
    });
    expect(Date.parse((created.body as { createdAt: string }).createdAt)).toBeGreaterThan(Date.now() - 60_000);
    const details = await call('GET', `/buckets/${name}`);
    expect(details.body).toEqual(created.body);
    expect(auditEvents()).toContainEqual(
      expect.objectContaining({ event: 'bucket.created', subject: 'admin', bucket: name }),
    );
  });

  it('lists every bucket with object counts and bytes of current and of all versions', async () => {
    const name = await newBucket({ versioning: true });
    await store.s3.send(new PutObjectCommand({ Bucket: name, Key: 'a', Body: '12345' }));
    await store.s3.send(new PutObjectCommand({ Bucket: name, Key: 'a', Body: '123' }));
    await store.s3.send(new PutObjectCommand({ Bucket: name, Key: 'b/c', Body: '1' }));
    const list = await call('GET', '/buckets');
    expect(list.status).toBe(200);
    const entry = (list.body as { buckets: Json[] }).buckets.find((b) => b['name'] === name);
    expect(entry).toMatchObject({ objectCount: 2, bytes: 4, versionCount: 3, versionBytes: 9, versioning: 'Enabled' });
    const names = (list.body as { buckets: Json[] }).buckets.map((b) => b['name'] as string);
    expect(names).toEqual([...names].sort());
  });

  it('creates a bucket with object lock, which turns versioning on', async () => {
    const name = await newBucket({ objectLock: true });
    const details = await call('GET', `/buckets/${name}`);
    expect(details.body).toMatchObject({ objectLock: true, versioning: 'Enabled', configs: { objectLock: true } });
  });

  it('refuses bad names, a taken name, another region and unknown fields', async () => {
    expectError(await call('POST', '/buckets', { name: 'Bad_Name' }), 400, 'InvalidBucketName');
    expectError(await call('POST', '/buckets', { name: 'ab' }), 400, 'InvalidBucketName');
    const taken = await newBucket();
    expectError(await call('POST', '/buckets', { name: taken }), 409, 'BucketAlreadyOwnedByYou');
    expectError(
      await call('POST', '/buckets', { name: uniqueBucket(), region: 'eu-west-3' }),
      400,
      'InvalidLocationConstraint',
    );
    expect(
      expectError(await call('POST', '/buckets', { name: uniqueBucket(), objectlock: true }), 400, 'ValidationError'),
    ).toContain('objectlock');
    expect(expectError(await call('POST', '/buckets', {}), 400, 'ValidationError')).toContain('name');
    expect(
      expectError(
        await call('POST', '/buckets', { name: uniqueBucket(), versioning: 'maybe' }),
        400,
        'ValidationError',
      ),
    ).toContain('versioning');
  });

  it('deletes an empty bucket, refuses a non-empty one with BucketNotEmpty, and 404s an unknown one', async () => {
    const name = await newBucket();
    await store.s3.send(new PutObjectCommand({ Bucket: name, Key: 'x', Body: 'x' }));
    expectError(await call('DELETE', `/buckets/${name}`), 409, 'BucketNotEmpty');
    const emptied = await store.adminCall('DELETE', `/buckets/${name}/objects/content?key=x`);
    expect(emptied.status).toBe(204);
    const deleted = await call('DELETE', `/buckets/${name}`);
    expect(deleted.status).toBe(204);
    expect(deleted.body).toBeUndefined();
    expectError(await call('GET', `/buckets/${name}`), 404, 'NoSuchBucket');
    expectError(await call('DELETE', `/buckets/${name}`), 404, 'NoSuchBucket');
    expect(auditEvents()).toContainEqual(expect.objectContaining({ event: 'bucket.deleted', bucket: name }));
  });

  it('lists and aborts multipart uploads in progress, which otherwise keep a bucket from being deleted', async () => {
    const name = await newBucket();
    const ids: string[] = [];
    for (const key of ['b/big', 'a/big']) {
      ids.push((await store.s3.send(new CreateMultipartUploadCommand({ Bucket: name, Key: key }))).UploadId ?? '');
    }
    expectError(await call('DELETE', `/buckets/${name}`), 409, 'BucketNotEmpty');
    const first = await call('GET', `/buckets/${name}/uploads?limit=1`);
    expect(first.body).toMatchObject({
      uploads: [{ key: 'a/big', uploadId: ids[1], initiated: expect.any(String) }],
      nextCursor: expect.any(String),
    });
    const second = await call(
      'GET',
      `/buckets/${name}/uploads?limit=1&cursor=${(first.body as { nextCursor: string }).nextCursor}`,
    );
    expect(second.body).toEqual({ uploads: [{ key: 'b/big', uploadId: ids[0], initiated: expect.any(String) }] });
    expect((await call('GET', `/buckets/${name}/uploads?prefix=b/`)).body).toMatchObject({
      uploads: [{ key: 'b/big' }],
    });
    for (const [i, key] of ['b/big', 'a/big'].entries()) {
      expect(
        (await call('DELETE', `/buckets/${name}/uploads?key=${encodeURIComponent(key)}&uploadId=${ids[i]}`)).status,
      ).toBe(204);
    }
    expectError(await call('DELETE', `/buckets/${name}/uploads?key=a/big&uploadId=${ids[1]}`), 404, 'NoSuchUpload');
    expect(auditEvents()).toContainEqual(
      expect.objectContaining({
        event: 'object.upload_aborted',
        bucket: name,
        details: { key: 'a/big', uploadId: ids[1] },
      }),
    );
    expect((await call('DELETE', `/buckets/${name}`)).status).toBe(204);
    expectError(await call('GET', `/buckets/${name}/uploads`), 404, 'NoSuchBucket');
  });

  it('answers 401 without a token', async () => {
    expectError(await adminCall(store.server, undefined, { method: 'GET', path: '/buckets' }), 401, 'Unauthorized');
    expectError(
      await adminCall(store.server, undefined, { method: 'POST', path: '/buckets', body: { name: uniqueBucket() } }),
      401,
      'Unauthorized',
    );
  });
});

describe('configuration editors', () => {
  it('answers NoSuchBucket on every editor of an unknown bucket', async () => {
    const missing = uniqueBucket('missing');
    for (const kind of ['versioning', 'tagging', 'encryption', 'lifecycle', 'cors', 'object-lock', 'policy']) {
      expectError(await call('GET', `/buckets/${missing}/${kind}`), 404, 'NoSuchBucket');
    }
    expectError(await call('PUT', `/buckets/${missing}/tagging`, { tags: [] }), 404, 'NoSuchBucket');
    expectError(
      await call('PUT', `/buckets/${missing}/policy`, { Version: '2012-10-17', Statement: [] }),
      404,
      'NoSuchBucket',
    );
    expectError(await call('DELETE', `/buckets/${missing}/cors`), 404, 'NoSuchBucket');
  });

  it('versioning: Unversioned until enabled, then Enabled or Suspended; never suspended with object lock', async () => {
    const name = await newBucket();
    expect((await call('GET', `/buckets/${name}/versioning`)).body).toEqual({ status: 'Unversioned' });
    expect((await call('PUT', `/buckets/${name}/versioning`, { status: 'Enabled' })).body).toEqual({
      status: 'Enabled',
    });
    expect((await call('PUT', `/buckets/${name}/versioning`, { status: 'Suspended' })).body).toEqual({
      status: 'Suspended',
    });
    expect(
      expectError(await call('PUT', `/buckets/${name}/versioning`, { status: 'Off' }), 400, 'ValidationError'),
    ).toContain('status');
    const locked = await newBucket({ objectLock: true });
    expectError(await call('PUT', `/buckets/${locked}/versioning`, { status: 'Suspended' }), 409, 'InvalidBucketState');
    expect(auditEvents()).toContainEqual(
      expect.objectContaining({
        event: 'bucket.config_updated',
        bucket: name,
        details: expect.objectContaining({ kind: 'versioning' }),
      }),
    );
  });

  it('tagging: set, read (by the S3 plane too), refused when invalid, removed', async () => {
    const name = await newBucket();
    expectError(await call('GET', `/buckets/${name}/tagging`), 404, 'NoSuchTagSet');
    const tags = [
      { key: 'team', value: 'storage' },
      { key: 'cost centre', value: '42' },
    ];
    expect((await call('PUT', `/buckets/${name}/tagging`, { tags })).body).toEqual({ tags });
    expect((await call('GET', `/buckets/${name}/tagging`)).body).toEqual({ tags });
    const fromS3 = await store.s3.send(new GetBucketTaggingCommand({ Bucket: name }));
    expect(fromS3.TagSet).toEqual([
      { Key: 'team', Value: 'storage' },
      { Key: 'cost centre', Value: '42' },
    ]);
    await store.s3.send(
      new PutBucketTaggingCommand({ Bucket: name, Tagging: { TagSet: [{ Key: 'from', Value: 's3' }] } }),
    );
    expect((await call('GET', `/buckets/${name}/tagging`)).body).toEqual({ tags: [{ key: 'from', value: 's3' }] });
    expectError(
      await call('PUT', `/buckets/${name}/tagging`, { tags: [{ key: 'aws:reserved', value: 'x' }] }),
      400,
      'InvalidTag',
    );
    expect(
      expectError(await call('PUT', `/buckets/${name}/tagging`, { tags: [{ key: 'k' }] }), 400, 'ValidationError'),
    ).toContain('value');
    expect((await call('DELETE', `/buckets/${name}/tagging`)).status).toBe(204);
    expectError(await call('GET', `/buckets/${name}/tagging`), 404, 'NoSuchTagSet');
    expect((await call('GET', `/buckets/${name}`)).body).toMatchObject({ configs: { tagging: false } });
    expect(auditEvents()).toContainEqual(
      expect.objectContaining({ event: 'bucket.config_deleted', bucket: name, details: { kind: 'tagging' } }),
    );
  });

  it('encryption: AES256 only; KMS is NotImplemented, anything else InvalidArgument', async () => {
    const name = await newBucket();
    expectError(
      await call('GET', `/buckets/${name}/encryption`),
      404,
      'ServerSideEncryptionConfigurationNotFoundError',
    );
    expect(
      (await call('PUT', `/buckets/${name}/encryption`, { sseAlgorithm: 'AES256', bucketKeyEnabled: true })).body,
    ).toEqual({ sseAlgorithm: 'AES256', bucketKeyEnabled: true });
    expectError(await call('PUT', `/buckets/${name}/encryption`, { sseAlgorithm: 'aws:kms' }), 501, 'NotImplemented');
    expectError(await call('PUT', `/buckets/${name}/encryption`, { sseAlgorithm: 'ROT13' }), 400, 'InvalidArgument');
    expect((await call('GET', `/buckets/${name}/encryption`)).body).toEqual({
      sseAlgorithm: 'AES256',
      bucketKeyEnabled: true,
    });
    expect((await call('DELETE', `/buckets/${name}/encryption`)).status).toBe(204);
    expectError(
      await call('GET', `/buckets/${name}/encryption`),
      404,
      'ServerSideEncryptionConfigurationNotFoundError',
    );
  });

  it('lifecycle: stored as S3 stores it (rule ids given, dates normalised), errors name the rule', async () => {
    const name = await newBucket();
    expectError(await call('GET', `/buckets/${name}/lifecycle`), 404, 'NoSuchLifecycleConfiguration');
    const put = await call('PUT', `/buckets/${name}/lifecycle`, {
      rules: [
        { id: 'logs', status: 'Enabled', filter: { prefix: 'logs/' }, expiration: { days: 30 } },
        { status: 'Disabled', filter: {}, transitions: [{ date: '2031-01-01', storageClass: 'GLACIER' }] },
      ],
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    const rules = (put.body as { rules: Json[] }).rules;
    expect(rules[0]).toEqual({ id: 'logs', status: 'Enabled', filter: { prefix: 'logs/' }, expiration: { days: 30 } });
    expect(rules[1]).toMatchObject({
      id: expect.any(String),
      transitions: [{ date: '2031-01-01T00:00:00.000Z', storageClass: 'GLACIER' }],
    });
    const fromS3 = await store.s3.send(new GetBucketLifecycleConfigurationCommand({ Bucket: name }));
    expect(fromS3.Rules?.map((r) => r.ID)).toEqual(['logs', rules[1]?.['id']]);
    const twoWays = { status: 'Enabled', prefix: 'a', filter: { prefix: 'a' }, expiration: { days: 1 } };
    const ok = { status: 'Enabled', filter: {}, expiration: { days: 1 } };
    expect(
      expectError(await call('PUT', `/buckets/${name}/lifecycle`, { rules: [ok, twoWays] }), 400, 'ValidationError'),
    ).toMatch(/^rules\.1: /);
    expect(
      expectError(
        await call('PUT', `/buckets/${name}/lifecycle`, { rules: [{ ...ok, expiraton: { days: 1 } }] }),
        400,
        'ValidationError',
      ),
    ).toContain('rules.0.expiraton');
    expectError(
      await call('PUT', `/buckets/${name}/lifecycle`, {
        rules: [{ status: 'Enabled', filter: {}, transitions: [{ days: 40, storageClass: 'GLACIER_IR' }] }],
      }),
      400,
      'InvalidStorageClass',
    );
    expectError(
      await call('PUT', `/buckets/${name}/lifecycle`, { rules: [{ ...ok, expiration: { days: 0 } }] }),
      400,
      'InvalidArgument',
    );
    expectError(await call('PUT', `/buckets/${name}/lifecycle`, { rules: [] }), 400, 'InvalidRequest');
    expect((await call('DELETE', `/buckets/${name}/lifecycle`)).status).toBe(204);
    expectError(await call('GET', `/buckets/${name}/lifecycle`), 404, 'NoSuchLifecycleConfiguration');
  });

  it('cors: rules in order, S3 sees them, bad rules refused with S3 codes or a named field', async () => {
    const name = await newBucket();
    expectError(await call('GET', `/buckets/${name}/cors`), 404, 'NoSuchCORSConfiguration');
    const rules = [
      {
        id: 'web',
        allowedOrigins: ['https://*.example.com'],
        allowedMethods: ['GET', 'PUT'],
        allowedHeaders: ['*'],
        exposeHeaders: ['ETag'],
        maxAgeSeconds: 600,
      },
      { allowedOrigins: ['*'], allowedMethods: ['HEAD'], allowedHeaders: [], exposeHeaders: [] },
    ];
    expect(
      (
        await call('PUT', `/buckets/${name}/cors`, {
          rules: [rules[0], { allowedOrigins: ['*'], allowedMethods: ['HEAD'] }],
        })
      ).body,
    ).toEqual({ rules });
    const fromS3 = await store.s3.send(new GetBucketCorsCommand({ Bucket: name }));
    expect(fromS3.CORSRules?.[0]).toMatchObject({
      ID: 'web',
      AllowedOrigins: ['https://*.example.com'],
      MaxAgeSeconds: 600,
    });
    expectError(
      await call('PUT', `/buckets/${name}/cors`, { rules: [{ allowedOrigins: ['*'], allowedMethods: ['PATCH'] }] }),
      400,
      'InvalidRequest',
    );
    expect(expectError(await call('PUT', `/buckets/${name}/cors`, { rules: [] }), 400, 'ValidationError')).toMatch(
      /^rules: /,
    );
    expect(
      expectError(
        await call('PUT', `/buckets/${name}/cors`, {
          rules: [rules[1], { allowedOrigins: [], allowedMethods: ['GET'] }],
        }),
        400,
        'ValidationError',
      ),
    ).toMatch(/^rules\.1: /);
    expect(
      expectError(
        await call('PUT', `/buckets/${name}/cors`, { rules: [{ allowedMethods: ['GET'] }] }),
        400,
        'ValidationError',
      ),
    ).toContain('allowedOrigins');
    expect((await call('DELETE', `/buckets/${name}/cors`)).status).toBe(204);
    expectError(await call('GET', `/buckets/${name}/cors`), 404, 'NoSuchCORSConfiguration');
  });

  it('object lock: needs versioning, validates the default retention, cannot be turned off', async () => {
    const name = await newBucket();
    expectError(await call('GET', `/buckets/${name}/object-lock`), 404, 'ObjectLockConfigurationNotFoundError');
    expectError(await call('PUT', `/buckets/${name}/object-lock`, {}), 409, 'InvalidBucketState');
    await call('PUT', `/buckets/${name}/versioning`, { status: 'Enabled' });
    expect(
      expectError(
        await call('PUT', `/buckets/${name}/object-lock`, { defaultRetention: { mode: 'GOVERNANCE' } }),
        400,
        'ValidationError',
      ),
    ).toMatch(/^defaultRetention: /);
    expectError(
      await call('PUT', `/buckets/${name}/object-lock`, { defaultRetention: { mode: 'GOVERNANCE', days: 40_000 } }),
      400,
      'InvalidArgument',
    );
    expect(
      expectError(await call('PUT', `/buckets/${name}/object-lock`, { enabled: false }), 400, 'ValidationError'),
    ).toContain('enabled');
    const set = await call('PUT', `/buckets/${name}/object-lock`, {
      defaultRetention: { mode: 'COMPLIANCE', days: 1 },
    });
    expect(set.body).toEqual({ enabled: true, defaultRetention: { mode: 'COMPLIANCE', days: 1 } });
    expect((await call('GET', `/buckets/${name}/object-lock`)).body).toEqual(set.body);
    expect((await call('PUT', `/buckets/${name}/object-lock`, { enabled: true })).body).toEqual({ enabled: true });
    expect((await call('GET', `/buckets/${name}`)).body).toMatchObject({
      objectLock: true,
      configs: { objectLock: true },
    });
    expect((await call('DELETE', `/buckets/${name}/object-lock`)).status).toBe(404);
  });

  it('policy: a JSON document checked by core/policy, the same one GetBucketPolicy returns', async () => {
    const name = await newBucket();
    expectError(await call('GET', `/buckets/${name}/policy`), 404, 'NoSuchBucketPolicy');
    const policy = {
      Version: '2012-10-17',
      Statement: [
        {
          Sid: 'public-read',
          Effect: 'Allow',
          Principal: '*',
          Action: 's3:GetObject',
          Resource: `arn:aws:s3:::${name}/public/*`,
        },
      ],
    };
    expect((await call('PUT', `/buckets/${name}/policy`, policy)).body).toEqual(policy);
    expect((await call('GET', `/buckets/${name}/policy`)).body).toEqual(policy);
    const fromS3 = await store.s3.send(new GetBucketPolicyCommand({ Bucket: name }));
    expect(JSON.parse(fromS3.Policy ?? '')).toEqual(policy);
    expectError(
      await call('PUT', `/buckets/${name}/policy`, { Version: '2012-10-17', Statement: [{ Effect: 'Maybe' }] }),
      400,
      'MalformedPolicy',
    );
    const otherBucket = { ...policy, Statement: [{ ...policy.Statement[0], Resource: 'arn:aws:s3:::someone-else/*' }] };
    expectError(await call('PUT', `/buckets/${name}/policy`, otherBucket), 400, 'MalformedPolicy');
    expect((await call('DELETE', `/buckets/${name}/policy`)).status).toBe(204);
    expectError(await call('GET', `/buckets/${name}/policy`), 404, 'NoSuchBucketPolicy');
  });

  it('creates a bucket with the object ownership it names', async () => {
    const name = uniqueBucket('adm');
    const created = await call('POST', '/buckets', { name, objectOwnership: 'BucketOwnerPreferred' });
    expect(created.body).toMatchObject({ objectOwnership: 'BucketOwnerPreferred' });
    await store.s3.send(new PutObjectCommand({ Bucket: name, Key: 'k', Body: 'x', ACL: 'public-read' }));
    expect((await fetch(`${store.server.url}/${name}/k`)).status).toBe(200);
    expectError(
      await call('POST', '/buckets', { name: uniqueBucket('adm'), objectOwnership: 'Anyone' }),
      400,
      'ValidationError',
    );
  });

  it('says whether a bucket is public and why: its policy, its ACL, neither once the public access block says so', async () => {
    const name = uniqueBucket('adm');
    await store.s3.send(new CreateBucketCommand({ Bucket: name, ObjectOwnership: 'ObjectWriter', ACL: 'public-read' }));
    const publicOf = async (): Promise<unknown> => {
      const body = (await call('GET', `/buckets/${name}`)).body as Json;
      return { ownership: body['objectOwnership'], public: body['public'] };
    };
    expect(await publicOf()).toEqual({ ownership: 'ObjectWriter', public: { isPublic: true, reasons: ['acl'] } });
    await store.s3.send(
      new PutBucketPolicyCommand({
        Bucket: name,
        Policy: JSON.stringify({
          Version: '2012-10-17',
          Statement: [{ Effect: 'Allow', Principal: '*', Action: 's3:GetObject', Resource: `arn:aws:s3:::${name}/*` }],
        }),
      }),
    );
    expect(await publicOf()).toEqual({
      ownership: 'ObjectWriter',
      public: { isPublic: true, reasons: ['policy', 'acl'] },
    });
    await store.s3.send(
      new PutPublicAccessBlockCommand({
        Bucket: name,
        PublicAccessBlockConfiguration: {
          BlockPublicAcls: false,
          IgnorePublicAcls: true,
          BlockPublicPolicy: false,
          RestrictPublicBuckets: true,
        },
      }),
    );
    expect(await publicOf()).toEqual({ ownership: 'ObjectWriter', public: { isPublic: false, reasons: [] } });
    expect((await call('GET', `/buckets/${name}`)).body).toMatchObject({ configs: { publicAccessBlock: true } });
  });
});
