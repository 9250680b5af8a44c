// Backup tests: a rich instance (every kind of content a backup must carry), a full observable listing of an
// instance (configurations, every version with its metadata, tags, lock and bytes' digest) to compare two
// instances with, and the raw admin calls for downloading and uploading archives.

import { createHash } from 'node:crypto';
import {
  CompleteMultipartUploadCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetBucketCorsCommand,
  GetBucketAclCommand,
  GetBucketEncryptionCommand,
  GetBucketLifecycleConfigurationCommand,
  GetBucketOwnershipControlsCommand,
  GetObjectAclCommand,
  GetPublicAccessBlockCommand,
  PutPublicAccessBlockCommand,
  GetBucketPolicyCommand,
  GetBucketTaggingCommand,
  GetBucketVersioningCommand,
  GetObjectCommand,
  GetObjectLegalHoldCommand,
  GetObjectLockConfigurationCommand,
  GetObjectRetentionCommand,
  GetObjectTaggingCommand,
  HeadObjectCommand,
  ListBucketsCommand,
  ListObjectVersionsCommand,
  PutBucketCorsCommand,
  PutBucketEncryptionCommand,
  PutBucketLifecycleConfigurationCommand,
  PutBucketPolicyCommand,
  PutBucketTaggingCommand,
  PutBucketVersioningCommand,
  PutObjectCommand,
  PutObjectLegalHoldCommand,
  PutObjectRetentionCommand,
  UploadPartCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import type { RunningServer } from './server.js';

/** Text every object of the rich instance starts with, so a test can look for plaintext on disk. */
export const MARKER = 'PLAINTEXT-MARKER-7f3a9c';

const body = (label: string, size: number): Buffer => {
  const head = Buffer.from(`${MARKER} ${label} `);
  const out = Buffer.alloc(Math.max(size, head.length));
  head.copy(out);
  for (let i = head.length; i < out.length; i++) out[i] = (i * 31 + label.length) % 251;
  return out;
};

async function optional<T>(run: () => Promise<T>): Promise<T | null> {
  try {
    return await run();
  } catch (err) {
    const status = (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
    if (status === 404) return null;
    throw err;
  }
}

/**
 * Fills an instance with: an unversioned bucket (configs: tags, encryption, lifecycle, CORS, policy; inline, file,
 * empty, unicode, metadata-rich and multipart objects), a versioned bucket (history, delete markers, a restored
 * object), and an object-lock bucket (default retention, GOVERNANCE and COMPLIANCE retention, legal hold).
 */
export async function populateRichInstance(
  s3: S3Client,
  names: { plain: string; versioned: string; locked: string },
): Promise<void> {
  const { plain, versioned, locked } = names;
  await s3.send(new CreateBucketCommand({ Bucket: plain }));
  await s3.send(
    new PutBucketTaggingCommand({ Bucket: plain, Tagging: { TagSet: [{ Key: 'team', Value: 'storage' }] } }),
  );
  await s3.send(
    new PutBucketEncryptionCommand({
      Bucket: plain,
      ServerSideEncryptionConfiguration: {
        Rules: [{ ApplyServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
      },
    }),
  );
  await s3.send(
    new PutBucketLifecycleConfigurationCommand({
      Bucket: plain,
      LifecycleConfiguration: {
        Rules: [{ ID: 'expire-tmp', Status: 'Enabled', Filter: { Prefix: 'tmp/' }, Expiration: { Days: 30 } }],
      },
    }),
  );
  await s3.send(
    new PutBucketCorsCommand({
      Bucket: plain,
      CORSConfiguration: {
        CORSRules: [{ AllowedMethods: ['GET'], AllowedOrigins: ['https://example.com'], MaxAgeSeconds: 60 }],
      },
    }),
  );
  await s3.send(
    new PutBucketPolicyCommand({
      Bucket: plain,
      Policy: JSON.stringify({
        Version: '2012-10-17',
        Statement: [
          {
            Sid: 'public-read',
            Effect: 'Allow',
            Principal: '*',
            Action: 's3:GetObject',
            Resource: `arn:aws:s3:::${plain}/public/*`,
          },
        ],
      }),
    }),
  );
  await s3.send(
    new PutObjectCommand({ Bucket: plain, Key: 'small.txt', Body: body('small', 100), ContentType: 'text/plain' }),
  );
  await s3.send(
    new PutObjectCommand({
      Bucket: plain,
      Key: 'docs/ünïcødé ✓ 日本語.bin',
      Body: body('unicode', 40_000),
      ContentType: 'application/x-test',
      ContentDisposition: 'attachment',
      CacheControl: 'max-age=60',
      Metadata: { owner: 'alice', purpose: 'round trip' },
      Tagging: 'kind=doc&level=2',
    }),
  );
  await s3.send(new PutObjectCommand({ Bucket: plain, Key: 'empty', Body: Buffer.alloc(0) }));
  await s3.send(new PutObjectCommand({ Bucket: plain, Key: 'public/overwritten', Body: body('first', 50) }));
  await s3.send(new PutObjectCommand({ Bucket: plain, Key: 'public/overwritten', Body: body('second', 60) }));
  const upload = await s3.send(
    new CreateMultipartUploadCommand({
      Bucket: plain,
      Key: 'big/multipart.bin',
      ContentType: 'application/octet-stream',
    }),
  );
  const partA = body('part-a', 5 * 1024 * 1024);
  const partB = body('part-b', 1234);
  const a = await s3.send(
    new UploadPartCommand({
      Bucket: plain,
      Key: 'big/multipart.bin',
      UploadId: upload.UploadId,
      PartNumber: 1,
      Body: partA,
    }),
  );
  const b = await s3.send(
    new UploadPartCommand({
      Bucket: plain,
      Key: 'big/multipart.bin',
      UploadId: upload.UploadId,
      PartNumber: 2,
      Body: partB,
    }),
  );
  await s3.send(
    new CompleteMultipartUploadCommand({
      Bucket: plain,
      Key: 'big/multipart.bin',
      UploadId: upload.UploadId,
      MultipartUpload: {
        Parts: [
          { PartNumber: 1, ETag: a.ETag },
          { PartNumber: 2, ETag: b.ETag },
        ],
      },
    }),
  );

  // ACLs (issue 28): the plain bucket keeps BucketOwnerEnforced and gets a public access block; the versioned one has
  // ACLs enabled, a bucket ACL and one public version among private ones.
  await s3.send(
    new PutPublicAccessBlockCommand({
      Bucket: plain,
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        IgnorePublicAcls: true,
        BlockPublicPolicy: false,
        RestrictPublicBuckets: false,
      },
    }),
  );
  await s3.send(
    new CreateBucketCommand({ Bucket: versioned, ObjectOwnership: 'BucketOwnerPreferred', ACL: 'authenticated-read' }),
  );
  await s3.send(new PutObjectCommand({ Bucket: versioned, Key: 'pre-versioning', Body: body('null-version', 10) }));
  await s3.send(new PutBucketVersioningCommand({ Bucket: versioned, VersioningConfiguration: { Status: 'Enabled' } }));
  for (let i = 1; i <= 3; i++) {
    await s3.send(
      new PutObjectCommand({
        Bucket: versioned,
        Key: 'history.txt',
        Body: body(`v${i}`, 20 * i),
        ...(i === 2 ? { ACL: 'public-read' } : {}),
      }),
    );
  }
  await s3.send(new PutObjectCommand({ Bucket: versioned, Key: 'deleted.txt', Body: body('deleted', 30) }));
  await s3.send(new DeleteObjectCommand({ Bucket: versioned, Key: 'deleted.txt' }));
  await s3.send(new PutObjectCommand({ Bucket: versioned, Key: 'big-file.bin', Body: body('file', 200_000) }));
  await s3.send(new DeleteObjectCommand({ Bucket: versioned, Key: 'never-existed' }));

  await s3.send(new CreateBucketCommand({ Bucket: locked, ObjectLockEnabledForBucket: true }));
  const future = new Date(Date.now() + 30 * 86_400_000);
  await s3.send(
    new PutObjectCommand({
      Bucket: locked,
      Key: 'governed',
      Body: body('governed', 64),
      ObjectLockMode: 'GOVERNANCE',
      ObjectLockRetainUntilDate: future,
    }),
  );
  await s3.send(new PutObjectCommand({ Bucket: locked, Key: 'held', Body: body('held', 64) }));
  await s3.send(new PutObjectLegalHoldCommand({ Bucket: locked, Key: 'held', LegalHold: { Status: 'ON' } }));
  await s3.send(new PutObjectCommand({ Bucket: locked, Key: 'compliance', Body: body('compliance', 64) }));
  await s3.send(
    new PutObjectRetentionCommand({
      Bucket: locked,
      Key: 'compliance',
      Retention: { Mode: 'COMPLIANCE', RetainUntilDate: future },
    }),
  );
}

export interface VersionView {
  key: string;
  versionId: string;
  isLatest: boolean;
  deleteMarker: boolean;
  lastModified: string | undefined;
  etag?: string | undefined;
  size?: number | undefined;
  contentType?: string | undefined;
  contentDisposition?: string | undefined;
  cacheControl?: string | undefined;
  metadata?: Record<string, string> | undefined;
  checksumCRC32?: string | undefined;
  partsCount?: number | undefined;
  tags?: { Key?: string; Value?: string }[] | undefined;
  retention?: unknown;
  legalHold?: unknown;
  acl?: unknown;
  sha256?: string | undefined;
}

export interface InstanceView {
  buckets: { name: string; config: Record<string, unknown>; versions: VersionView[] }[];
}

/** An ACL's grants as `<grantee> <permission>`, the owner as `owner` (each instance has its own owner id). */
function grantsOf(acl: {
  Owner?: { ID?: string };
  Grants?: { Grantee?: { ID?: string; URI?: string }; Permission?: string }[];
}): string[] {
  return (acl.Grants ?? []).map(
    (g) => `${g.Grantee?.ID === acl.Owner?.ID ? 'owner' : (g.Grantee?.URI ?? g.Grantee?.ID)} ${g.Permission}`,
  );
}

/** Everything a client can observe about an instance's buckets and versions (bytes as SHA-256). */
export async function viewInstance(s3: S3Client): Promise<InstanceView> {
  const listed = await s3.send(new ListBucketsCommand({}));
  const buckets = [];
  for (const { Name } of (listed.Buckets ?? []).sort((x, y) => String(x.Name).localeCompare(String(y.Name)))) {
    const Bucket = Name as string;
    const config = {
      versioning: (await s3.send(new GetBucketVersioningCommand({ Bucket }))).Status ?? null,
      tagging: (await optional(() => s3.send(new GetBucketTaggingCommand({ Bucket }))))?.TagSet ?? null,
      encryption:
        (await optional(() => s3.send(new GetBucketEncryptionCommand({ Bucket }))))
          ?.ServerSideEncryptionConfiguration ?? null,
      lifecycle: (await optional(() => s3.send(new GetBucketLifecycleConfigurationCommand({ Bucket }))))?.Rules ?? null,
      cors: (await optional(() => s3.send(new GetBucketCorsCommand({ Bucket }))))?.CORSRules ?? null,
      policy: (await optional(() => s3.send(new GetBucketPolicyCommand({ Bucket }))))?.Policy ?? null,
      objectLock:
        (await optional(() => s3.send(new GetObjectLockConfigurationCommand({ Bucket }))))?.ObjectLockConfiguration ??
        null,
      ownership:
        (await optional(() => s3.send(new GetBucketOwnershipControlsCommand({ Bucket }))))?.OwnershipControls ?? null,
      publicAccessBlock:
        (await optional(() => s3.send(new GetPublicAccessBlockCommand({ Bucket }))))?.PublicAccessBlockConfiguration ??
        null,
      acl: grantsOf(await s3.send(new GetBucketAclCommand({ Bucket }))),
    };
    const versions: VersionView[] = [];
    let keyMarker: string | undefined;
    let versionMarker: string | undefined;
    for (;;) {
      const page = await s3.send(
        new ListObjectVersionsCommand({ Bucket, KeyMarker: keyMarker, VersionIdMarker: versionMarker }),
      );
      const all = [
        ...(page.Versions ?? []).map((v) => ({ ...v, deleteMarker: false })),
        ...(page.DeleteMarkers ?? []).map((v) => ({ ...v, deleteMarker: true })),
      ];
      for (const v of all) {
        const view: VersionView = {
          key: v.Key as string,
          versionId: v.VersionId as string,
          isLatest: v.IsLatest === true,
          deleteMarker: v.deleteMarker,
          lastModified: v.LastModified?.toISOString(),
        };
        if (!v.deleteMarker) {
          const VersionId = v.VersionId;
          const head = await s3.send(
            new HeadObjectCommand({ Bucket, Key: view.key, VersionId, ChecksumMode: 'ENABLED' }),
          );
          Object.assign(view, {
            etag: head.ETag,
            size: head.ContentLength,
            contentType: head.ContentType,
            contentDisposition: head.ContentDisposition,
            cacheControl: head.CacheControl,
            metadata: head.Metadata,
            checksumCRC32: head.ChecksumCRC32,
            partsCount: head.PartsCount,
          });
          view.tags = (await s3.send(new GetObjectTaggingCommand({ Bucket, Key: view.key, VersionId }))).TagSet;
          view.acl = grantsOf(await s3.send(new GetObjectAclCommand({ Bucket, Key: view.key, VersionId })));
          if (config.objectLock) {
            view.retention =
              (await optional(() => s3.send(new GetObjectRetentionCommand({ Bucket, Key: view.key, VersionId }))))
                ?.Retention ?? null;
            view.legalHold =
              (await optional(() => s3.send(new GetObjectLegalHoldCommand({ Bucket, Key: view.key, VersionId }))))
                ?.LegalHold ?? null;
          }
          const got = await s3.send(new GetObjectCommand({ Bucket, Key: view.key, VersionId }));
          view.sha256 = createHash('sha256')
            .update(await got.Body!.transformToByteArray())
            .digest('hex');
        }
        versions.push(view);
      }
      if (!page.IsTruncated) break;
      keyMarker = page.NextKeyMarker;
      versionMarker = page.NextVersionIdMarker;
    }
    versions.sort((x, y) =>
      x.key < y.key
        ? -1
        : x.key > y.key
          ? 1
          : String(x.lastModified).localeCompare(String(y.lastModified)) || x.versionId.localeCompare(y.versionId),
    );
    buckets.push({ name: Bucket, config, versions });
  }
  return { buckets };
}

/** GET an archive from /api/admin<path> into memory (tests keep archives small; the e2e suite streams). */
export async function downloadArchive(
  server: RunningServer,
  token: string,
  path = '/backup',
): Promise<{ status: number; bytes: Buffer; headers: Headers }> {
  const res = await fetch(`${server.url}/api/admin${path}`, { headers: { authorization: `Bearer ${token}` } });
  return { status: res.status, bytes: Buffer.from(await res.arrayBuffer()), headers: res.headers };
}

/** POST raw archive bytes to /api/admin<path>. */
export async function uploadArchive(
  server: RunningServer,
  token: string,
  { bytes, path = '/restore' }: { bytes: Buffer; path?: string },
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${server.url}/api/admin${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/zip' },
    body: bytes,
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}
