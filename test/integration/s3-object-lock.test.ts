/* eslint-disable max-lines -- one lock-enabled server fixture for the whole object lock contract */
// Object lock through @aws-sdk/client-s3 and minio-js: buckets created with object lock, the lock configuration
// and its default retention, retention and legal hold per version, the lock headers on PUT, COPY and multipart,
// and enforcement: locked versions cannot be deleted (COMPLIANCE never, GOVERNANCE only with bypass, legal hold
// until removed), COMPLIANCE cannot be shortened, and a plain DELETE only adds a delete marker.

import {
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  DeleteBucketCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetBucketVersioningCommand,
  GetObjectLegalHoldCommand,
  GetObjectLockConfigurationCommand,
  GetObjectRetentionCommand,
  HeadObjectCommand,
  PutBucketVersioningCommand,
  PutObjectCommand,
  PutObjectLegalHoldCommand,
  PutObjectLockConfigurationCommand,
  PutObjectRetentionCommand,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { beforeAll, describe, expect, it } from 'vitest';
import { uniqueBucket } from '../helpers/clients.js';
import { useStore } from '../helpers/store.js';
import { expectS3Error } from './s3-assert.js';

const DAY = 86_400_000;

const store = useStore({ tmpfs: true });
let locked: string;

beforeAll(async () => {
  locked = await lockBucket();
});

function lockBucket(): Promise<string> {
  return store.bucket('lock', { ObjectLockEnabledForBucket: true });
}

function inDays(days: number): Date {
  // Whole seconds: retention dates round-trip through ISO 8601.
  return new Date(Math.floor((Date.now() + days * DAY) / 1000) * 1000);
}

async function putLocked(
  key: string,
  extra: Partial<ConstructorParameters<typeof PutObjectCommand>[0]> = {},
  bucket = locked,
): Promise<string> {
  const out = await store.s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: 'locked bytes', ...extra }));
  return out.VersionId as string;
}

describe('object lock configuration', () => {
  it('a bucket created with object lock has versioning Enabled for good and an empty lock configuration', async () => {
    const bucket = await lockBucket();
    expect((await store.s3.send(new GetBucketVersioningCommand({ Bucket: bucket }))).Status).toBe('Enabled');
    const config = await store.s3.send(new GetObjectLockConfigurationCommand({ Bucket: bucket }));
    expect(config.ObjectLockConfiguration).toEqual({ ObjectLockEnabled: 'Enabled' });
    await expectS3Error(
      store.s3.send(
        new PutBucketVersioningCommand({ Bucket: bucket, VersioningConfiguration: { Status: 'Suspended' } }),
      ),
      'InvalidBucketState',
      409,
    );
  });

  it('a bucket without object lock answers ObjectLockConfigurationNotFoundError', async () => {
    const bucket = uniqueBucket('nolock');
    await store.s3.send(new CreateBucketCommand({ Bucket: bucket }));
    await expectS3Error(
      store.s3.send(new GetObjectLockConfigurationCommand({ Bucket: bucket })),
      'ObjectLockConfigurationNotFoundError',
      404,
    );
  });

  it('object lock can be turned on only where versioning is Enabled', async () => {
    const bucket = uniqueBucket('later');
    await store.s3.send(new CreateBucketCommand({ Bucket: bucket }));
    const enable = (): Promise<unknown> =>
      store.s3.send(
        new PutObjectLockConfigurationCommand({
          Bucket: bucket,
          ObjectLockConfiguration: { ObjectLockEnabled: 'Enabled' },
        }),
      );
    await expectS3Error(enable(), 'InvalidBucketState', 409);
    await store.s3.send(
      new PutBucketVersioningCommand({ Bucket: bucket, VersioningConfiguration: { Status: 'Enabled' } }),
    );
    await enable();
    expect(
      (await store.s3.send(new GetObjectLockConfigurationCommand({ Bucket: bucket }))).ObjectLockConfiguration
        ?.ObjectLockEnabled,
    ).toBe('Enabled');
  });

  it('a default retention (Days or Years) is applied to every new version, and can be cleared', async () => {
    const bucket = await lockBucket();
    await store.s3.send(
      new PutObjectLockConfigurationCommand({
        Bucket: bucket,
        ObjectLockConfiguration: {
          ObjectLockEnabled: 'Enabled',
          Rule: { DefaultRetention: { Mode: 'GOVERNANCE', Days: 2 } },
        },
      }),
    );
    const config = await store.s3.send(new GetObjectLockConfigurationCommand({ Bucket: bucket }));
    expect(config.ObjectLockConfiguration?.Rule?.DefaultRetention).toEqual({ Mode: 'GOVERNANCE', Days: 2 });
    const before = Date.now();
    const v = await putLocked('defaulted', {}, bucket);
    const head = await store.s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'defaulted' }));
    expect(head.ObjectLockMode).toBe('GOVERNANCE');
    expect((head.ObjectLockRetainUntilDate as Date).getTime()).toBeGreaterThanOrEqual(before + 2 * DAY - 1000);
    expect((head.ObjectLockRetainUntilDate as Date).getTime()).toBeLessThanOrEqual(Date.now() + 2 * DAY);
    await expectS3Error(
      store.s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: 'defaulted', VersionId: v })),
      'AccessDenied',
      403,
    );
    // An explicit retention wins over the default.
    await putLocked('explicit', { ObjectLockMode: 'COMPLIANCE', ObjectLockRetainUntilDate: inDays(1) }, bucket);
    expect((await store.s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'explicit' }))).ObjectLockMode).toBe(
      'COMPLIANCE',
    );
    await store.s3.send(
      new PutObjectLockConfigurationCommand({
        Bucket: bucket,
        ObjectLockConfiguration: { ObjectLockEnabled: 'Enabled' },
      }),
    );
    await putLocked('plain', {}, bucket);
    expect(
      (await store.s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'plain' }))).ObjectLockMode,
    ).toBeUndefined();
  });

  it('refuses invalid default retention rules', async () => {
    const put = (rule: object): Promise<unknown> =>
      store.s3.send(
        new PutObjectLockConfigurationCommand({
          Bucket: locked,
          ObjectLockConfiguration: { ObjectLockEnabled: 'Enabled', Rule: { DefaultRetention: rule } },
        }),
      );
    await expectS3Error(put({ Mode: 'GOVERNANCE', Days: 1, Years: 1 }), 'MalformedXML', 400);
    await expectS3Error(put({ Mode: 'GOVERNANCE' }), 'MalformedXML', 400);
    await expectS3Error(put({ Mode: 'GOVERNANCE', Days: 0 }), 'InvalidArgument', 400);
    await expectS3Error(put({ Mode: 'GOVERNANCE', Years: 101 }), 'InvalidArgument', 400);
  });
});

describe('GOVERNANCE retention', () => {
  it('blocks deleting the version without bypass and allows it with x-amz-bypass-governance-retention', async () => {
    const v = await putLocked('gov', { ObjectLockMode: 'GOVERNANCE', ObjectLockRetainUntilDate: inDays(1) });
    await expectS3Error(
      store.s3.send(new DeleteObjectCommand({ Bucket: locked, Key: 'gov', VersionId: v })),
      'AccessDenied',
      403,
    );
    await store.s3.send(
      new DeleteObjectCommand({ Bucket: locked, Key: 'gov', VersionId: v, BypassGovernanceRetention: true }),
    );
    await expectS3Error(
      store.s3.send(new HeadObjectCommand({ Bucket: locked, Key: 'gov', VersionId: v })),
      'NotFound',
      404,
    );
  });

  it('can be extended freely, shortened or switched to COMPLIANCE only with bypass', async () => {
    const v = await putLocked('gov-change', { ObjectLockMode: 'GOVERNANCE', ObjectLockRetainUntilDate: inDays(2) });
    const set = (mode: 'GOVERNANCE' | 'COMPLIANCE', until: Date, bypass?: boolean): Promise<unknown> =>
      store.s3.send(
        new PutObjectRetentionCommand({
          Bucket: locked,
          Key: 'gov-change',
          VersionId: v,
          Retention: { Mode: mode, RetainUntilDate: until },
          BypassGovernanceRetention: bypass,
        }),
      );
    await set('GOVERNANCE', inDays(3));
    await expectS3Error(set('GOVERNANCE', inDays(1)), 'AccessDenied', 403);
    await expectS3Error(set('COMPLIANCE', inDays(5)), 'AccessDenied', 403);
    const shorter = inDays(1);
    await set('GOVERNANCE', shorter, true);
    const got = await store.s3.send(new GetObjectRetentionCommand({ Bucket: locked, Key: 'gov-change', VersionId: v }));
    expect(got.Retention).toEqual({ Mode: 'GOVERNANCE', RetainUntilDate: shorter });
  });

  it('can be removed (an empty Retention) only with bypass', async () => {
    const v = await putLocked('gov-remove', { ObjectLockMode: 'GOVERNANCE', ObjectLockRetainUntilDate: inDays(1) });
    const remove = (bypass?: boolean): Promise<unknown> =>
      store.s3.send(
        new PutObjectRetentionCommand({
          Bucket: locked,
          Key: 'gov-remove',
          VersionId: v,
          Retention: {},
          BypassGovernanceRetention: bypass,
        }),
      );
    await expectS3Error(remove(), 'AccessDenied', 403);
    await remove(true);
    await expectS3Error(
      store.s3.send(new GetObjectRetentionCommand({ Bucket: locked, Key: 'gov-remove' })),
      'NoSuchObjectLockConfiguration',
      404,
    );
    await store.s3.send(new DeleteObjectCommand({ Bucket: locked, Key: 'gov-remove', VersionId: v }));
  });
});

describe('COMPLIANCE retention', () => {
  let v: string;
  beforeAll(async () => {
    v = await putLocked('comp', { ObjectLockMode: 'COMPLIANCE', ObjectLockRetainUntilDate: inDays(1) });
  });

  it('shows on HEAD and GetObjectRetention', async () => {
    const head = await store.s3.send(new HeadObjectCommand({ Bucket: locked, Key: 'comp' }));
    expect(head.ObjectLockMode).toBe('COMPLIANCE');
    expect(head.ObjectLockRetainUntilDate).toBeInstanceOf(Date);
    const got = await store.s3.send(new GetObjectRetentionCommand({ Bucket: locked, Key: 'comp' }));
    expect(got.Retention?.Mode).toBe('COMPLIANCE');
  });

  it('blocks deleting the version, bypass or not', async () => {
    await expectS3Error(
      store.s3.send(new DeleteObjectCommand({ Bucket: locked, Key: 'comp', VersionId: v })),
      'AccessDenied',
      403,
    );
    await expectS3Error(
      store.s3.send(
        new DeleteObjectCommand({ Bucket: locked, Key: 'comp', VersionId: v, BypassGovernanceRetention: true }),
      ),
      'AccessDenied',
      403,
    );
  });

  it('can be extended but never shortened or weakened to GOVERNANCE, even with bypass', async () => {
    await store.s3.send(
      new PutObjectRetentionCommand({
        Bucket: locked,
        Key: 'comp',
        VersionId: v,
        Retention: { Mode: 'COMPLIANCE', RetainUntilDate: inDays(3) },
      }),
    );
    await expectS3Error(
      store.s3.send(
        new PutObjectRetentionCommand({
          Bucket: locked,
          Key: 'comp',
          VersionId: v,
          Retention: { Mode: 'COMPLIANCE', RetainUntilDate: inDays(2) },
          BypassGovernanceRetention: true,
        }),
      ),
      'AccessDenied',
      403,
    );
    await expectS3Error(
      store.s3.send(
        new PutObjectRetentionCommand({
          Bucket: locked,
          Key: 'comp',
          VersionId: v,
          Retention: { Mode: 'GOVERNANCE', RetainUntilDate: inDays(10) },
          BypassGovernanceRetention: true,
        }),
      ),
      'AccessDenied',
      403,
    );
  });

  it('a DELETE without a version id only adds a delete marker, which can itself be removed', async () => {
    const del = await store.s3.send(new DeleteObjectCommand({ Bucket: locked, Key: 'comp' }));
    expect(del.DeleteMarker).toBe(true);
    await store.s3.send(new DeleteObjectCommand({ Bucket: locked, Key: 'comp', VersionId: del.VersionId }));
    expect((await store.s3.send(new HeadObjectCommand({ Bucket: locked, Key: 'comp' }))).VersionId).toBe(v);
  });

  it('keeps the bucket from being deleted while the version exists', async () => {
    await expectS3Error(store.s3.send(new DeleteBucketCommand({ Bucket: locked })), 'BucketNotEmpty', 409);
  });
});

describe('legal hold', () => {
  it('blocks deletion even with bypass until it is removed, by version id', async () => {
    const v = await putLocked('held', { ObjectLockLegalHoldStatus: 'ON' });
    expect(
      (await store.s3.send(new HeadObjectCommand({ Bucket: locked, Key: 'held' }))).ObjectLockLegalHoldStatus,
    ).toBe('ON');
    expect(
      (await store.s3.send(new GetObjectLegalHoldCommand({ Bucket: locked, Key: 'held', VersionId: v }))).LegalHold
        ?.Status,
    ).toBe('ON');
    await expectS3Error(
      store.s3.send(
        new DeleteObjectCommand({ Bucket: locked, Key: 'held', VersionId: v, BypassGovernanceRetention: true }),
      ),
      'AccessDenied',
      403,
    );
    await store.s3.send(
      new PutObjectLegalHoldCommand({ Bucket: locked, Key: 'held', VersionId: v, LegalHold: { Status: 'OFF' } }),
    );
    expect(
      (await store.s3.send(new GetObjectLegalHoldCommand({ Bucket: locked, Key: 'held' }))).LegalHold?.Status,
    ).toBe('OFF');
    await store.s3.send(new DeleteObjectCommand({ Bucket: locked, Key: 'held', VersionId: v }));
  });

  it('can be put on an older version without touching the current one', async () => {
    const old = await putLocked('two-versions');
    await putLocked('two-versions');
    await store.s3.send(
      new PutObjectLegalHoldCommand({
        Bucket: locked,
        Key: 'two-versions',
        VersionId: old,
        LegalHold: { Status: 'ON' },
      }),
    );
    expect(
      (await store.s3.send(new GetObjectLegalHoldCommand({ Bucket: locked, Key: 'two-versions' }))).LegalHold?.Status,
    ).toBe('OFF');
    expect(
      (await store.s3.send(new GetObjectLegalHoldCommand({ Bucket: locked, Key: 'two-versions', VersionId: old })))
        .LegalHold?.Status,
    ).toBe('ON');
    await expectS3Error(
      store.s3.send(new DeleteObjectCommand({ Bucket: locked, Key: 'two-versions', VersionId: old })),
      'AccessDenied',
      403,
    );
  });
});

describe('DeleteObjects on locked versions', () => {
  it('reports the locked versions as AccessDenied and deletes the rest', async () => {
    const gov = await putLocked('batch/gov', { ObjectLockMode: 'GOVERNANCE', ObjectLockRetainUntilDate: inDays(1) });
    const free = await putLocked('batch/free');
    const out = await store.s3.send(
      new DeleteObjectsCommand({
        Bucket: locked,
        Delete: {
          Objects: [{ Key: 'batch/gov', VersionId: gov }, { Key: 'batch/free', VersionId: free }, { Key: 'batch/gov' }],
        },
      }),
    );
    expect(out.Errors?.map((e) => [e.Key, e.VersionId, e.Code])).toEqual([['batch/gov', gov, 'AccessDenied']]);
    expect(out.Deleted?.map((d) => [d.Key, d.DeleteMarker ?? false])).toEqual([
      ['batch/free', false],
      ['batch/gov', true],
    ]);
    const bypassed = await store.s3.send(
      new DeleteObjectsCommand({
        Bucket: locked,
        BypassGovernanceRetention: true,
        Delete: { Objects: [{ Key: 'batch/gov', VersionId: gov }] },
      }),
    );
    expect(bypassed.Errors).toBeUndefined();
    expect(bypassed.Deleted?.map((d) => d.VersionId)).toEqual([gov]);
  });
});

describe('lock headers on COPY and multipart', () => {
  it('CopyObject gives the copy the request lock settings, never the source lock', async () => {
    await putLocked('copy-src', { ObjectLockMode: 'COMPLIANCE', ObjectLockRetainUntilDate: inDays(1) });
    await store.s3.send(new CopyObjectCommand({ Bucket: locked, Key: 'copy-plain', CopySource: `${locked}/copy-src` }));
    expect(
      (await store.s3.send(new HeadObjectCommand({ Bucket: locked, Key: 'copy-plain' }))).ObjectLockMode,
    ).toBeUndefined();
    await store.s3.send(
      new CopyObjectCommand({
        Bucket: locked,
        Key: 'copy-held',
        CopySource: `${locked}/copy-src`,
        ObjectLockLegalHoldStatus: 'ON',
        ObjectLockMode: 'GOVERNANCE',
        ObjectLockRetainUntilDate: inDays(1),
      }),
    );
    const head = await store.s3.send(new HeadObjectCommand({ Bucket: locked, Key: 'copy-held' }));
    expect(head).toMatchObject({ ObjectLockMode: 'GOVERNANCE', ObjectLockLegalHoldStatus: 'ON' });
  });

  it('CreateMultipartUpload keeps the lock settings for the completed object', async () => {
    const retainUntil = inDays(1);
    const { UploadId } = await store.s3.send(
      new CreateMultipartUploadCommand({
        Bucket: locked,
        Key: 'mp-locked',
        ObjectLockMode: 'COMPLIANCE',
        ObjectLockRetainUntilDate: retainUntil,
        ObjectLockLegalHoldStatus: 'ON',
      }),
    );
    const part = await store.s3.send(
      new UploadPartCommand({ Bucket: locked, Key: 'mp-locked', UploadId, PartNumber: 1, Body: 'part' }),
    );
    const done = await store.s3.send(
      new CompleteMultipartUploadCommand({
        Bucket: locked,
        Key: 'mp-locked',
        UploadId,
        MultipartUpload: { Parts: [{ PartNumber: 1, ETag: part.ETag }] },
      }),
    );
    const head = await store.s3.send(new HeadObjectCommand({ Bucket: locked, Key: 'mp-locked' }));
    expect(head).toMatchObject({
      ObjectLockMode: 'COMPLIANCE',
      ObjectLockLegalHoldStatus: 'ON',
      ObjectLockRetainUntilDate: retainUntil,
    });
    await expectS3Error(
      store.s3.send(new DeleteObjectCommand({ Bucket: locked, Key: 'mp-locked', VersionId: done.VersionId })),
      'AccessDenied',
      403,
    );
  });
});

describe('lock request errors', () => {
  let plain: string;
  beforeAll(async () => {
    plain = uniqueBucket('plain');
    await store.s3.send(new CreateBucketCommand({ Bucket: plain }));
    await store.s3.send(new PutObjectCommand({ Bucket: plain, Key: 'k', Body: 'x' }));
  });

  it('lock headers and lock operations on a bucket without object lock are InvalidRequest', async () => {
    await expectS3Error(
      store.s3.send(new PutObjectCommand({ Bucket: plain, Key: 'k2', Body: 'x', ObjectLockLegalHoldStatus: 'ON' })),
      'InvalidRequest',
      400,
    );
    await expectS3Error(
      store.s3.send(
        new CreateMultipartUploadCommand({
          Bucket: plain,
          Key: 'k2',
          ObjectLockMode: 'GOVERNANCE',
          ObjectLockRetainUntilDate: inDays(1),
        }),
      ),
      'InvalidRequest',
      400,
    );
    await expectS3Error(
      store.s3.send(
        new CopyObjectCommand({ Bucket: plain, Key: 'k3', CopySource: `${plain}/k`, ObjectLockLegalHoldStatus: 'ON' }),
      ),
      'InvalidRequest',
      400,
    );
    await expectS3Error(
      store.s3.send(new GetObjectRetentionCommand({ Bucket: plain, Key: 'k' })),
      'InvalidRequest',
      400,
    );
    await expectS3Error(
      store.s3.send(new PutObjectLegalHoldCommand({ Bucket: plain, Key: 'k', LegalHold: { Status: 'ON' } })),
      'InvalidRequest',
      400,
    );
  });

  it('refuses bad lock headers with InvalidArgument', async () => {
    await expectS3Error(
      store.s3.send(new PutObjectCommand({ Bucket: locked, Key: 'bad', Body: 'x', ObjectLockMode: 'GOVERNANCE' })),
      'InvalidArgument',
      400,
    );
    await expectS3Error(
      store.s3.send(
        new PutObjectCommand({
          Bucket: locked,
          Key: 'bad',
          Body: 'x',
          ObjectLockMode: 'GOVERNANCE',
          ObjectLockRetainUntilDate: new Date(Date.now() - DAY),
        }),
      ),
      'InvalidArgument',
      400,
    );
    await expectS3Error(
      store.s3.send(
        new PutObjectCommand({
          Bucket: locked,
          Key: 'bad',
          Body: 'x',
          ObjectLockMode: 'FOREVER' as 'GOVERNANCE',
          ObjectLockRetainUntilDate: inDays(1),
        }),
      ),
      'InvalidArgument',
      400,
    );
  });

  it('a retention in the past is InvalidArgument; a version without one is NoSuchObjectLockConfiguration', async () => {
    const v = await putLocked('no-retention');
    await expectS3Error(
      store.s3.send(new GetObjectRetentionCommand({ Bucket: locked, Key: 'no-retention' })),
      'NoSuchObjectLockConfiguration',
      404,
    );
    await expectS3Error(
      store.s3.send(
        new PutObjectRetentionCommand({
          Bucket: locked,
          Key: 'no-retention',
          VersionId: v,
          Retention: { Mode: 'GOVERNANCE', RetainUntilDate: new Date(Date.now() - DAY) },
        }),
      ),
      'InvalidArgument',
      400,
    );
  });

  it('retention and legal hold of a missing key, an unknown version, or a delete marker', async () => {
    await expectS3Error(
      store.s3.send(new GetObjectRetentionCommand({ Bucket: locked, Key: 'missing' })),
      'NoSuchKey',
      404,
    );
    await expectS3Error(
      store.s3.send(
        new GetObjectLegalHoldCommand({
          Bucket: locked,
          Key: 'no-retention',
          VersionId: '0190a0a0-0000-7000-8000-000000000000',
        }),
      ),
      'NoSuchVersion',
      404,
    );
    await putLocked('marked');
    const marker = await store.s3.send(new DeleteObjectCommand({ Bucket: locked, Key: 'marked' }));
    await expectS3Error(
      store.s3.send(
        new PutObjectLegalHoldCommand({
          Bucket: locked,
          Key: 'marked',
          VersionId: marker.VersionId,
          LegalHold: { Status: 'ON' },
        }),
      ),
      'MethodNotAllowed',
      405,
    );
  });
});

describe('minio-js', () => {
  it('makes a lock bucket, sets the default rule, retention and legal hold, and removes with governance bypass', async () => {
    const bucket = uniqueBucket('mlock');
    await store.minio.makeBucket(bucket, 'us-east-1', { ObjectLocking: true });
    await store.minio.setObjectLockConfig(bucket, { mode: 'GOVERNANCE', unit: 'Days', validity: 1 });
    expect(await store.minio.getObjectLockConfig(bucket)).toMatchObject({
      objectLockEnabled: 'Enabled',
      mode: 'GOVERNANCE',
      unit: 'Days',
      validity: 1,
    });
    const { versionId } = await store.minio.putObject(bucket, 'obj', Buffer.from('minio locked'));
    const retention = await store.minio.getObjectRetention(bucket, 'obj', { versionId: versionId as string });
    expect(retention).toMatchObject({ mode: 'GOVERNANCE' });
    await store.minio.putObjectRetention(bucket, 'obj', {
      versionId: versionId as string,
      mode: 'GOVERNANCE',
      retainUntilDate: inDays(2).toISOString(),
    });
    await store.minio.setObjectLegalHold(bucket, 'obj', { versionId: versionId as string, status: 'ON' });
    // minio-js types the answer as the status string but hands over the parsed <LegalHold> element.
    expect(await store.minio.getObjectLegalHold(bucket, 'obj', { versionId: versionId as string })).toEqual({
      Status: 'ON',
    });
    await expect(
      store.minio.removeObject(bucket, 'obj', { versionId: versionId as string, governanceBypass: true }),
    ).rejects.toMatchObject({ code: 'AccessDenied' });
    await store.minio.setObjectLegalHold(bucket, 'obj', { versionId: versionId as string, status: 'OFF' });
    await expect(store.minio.removeObject(bucket, 'obj', { versionId: versionId as string })).rejects.toMatchObject({
      code: 'AccessDenied',
    });
    await store.minio.removeObject(bucket, 'obj', { versionId: versionId as string, governanceBypass: true });
    await store.minio.removeBucket(bucket);
  });
});
