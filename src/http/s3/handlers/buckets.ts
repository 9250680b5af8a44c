// ListBuckets, CreateBucket, HeadBucket, DeleteBucket, GetBucketLocation.

import { AppError, isAppError } from '../../../core/errors.js';
import type { BucketOp } from '../endpoints.js';
import { headerOf, type S3Context, type S3Response } from '../context.js';
import { readSmallPayload } from '../request-body.js';
import { xmlResponse } from '../respond.js';
import { buildListAllMyBucketsResult, buildLocationConstraint } from '../xml/buckets.js';
import { parseCreateBucketConfiguration } from '../xml/parse.js';
import type { Acl } from '../../../core/acl/acl.js';
import { parseObjectOwnership } from '../../../core/acl/ownership.js';
import { writeAcl } from './acl-header.js';

type BucketCtx = S3Context<{ op: BucketOp; bucket: string }>;

/** XML request bodies are small documents; anything larger is refused before parsing. */
export const MAX_XML_BODY_BYTES = 1024 * 1024;
/**
 * DeleteObjects names up to 1,000 keys of up to 1,024 bytes, which XML escaping can make six bytes a character,
 * with their version ids: up to ~7.2 MB from a conforming client.
 */
export const MAX_DELETE_OBJECTS_BODY_BYTES = 8 * 1024 * 1024;
/**
 * CompleteMultipartUpload lists up to 10,000 parts, each with its ETag, number and a checksum: 1.4 MB from the AWS
 * SDK with CRC32 checksums, ~2 MB with SHA-256 and whitespace.
 */
export const MAX_COMPLETE_MULTIPART_BODY_BYTES = 4 * 1024 * 1024;

/**
 * ListBuckets with AWS's paging: `prefix`, `bucket-region` (only buckets of that region: every bucket is in this
 * server's), `max-buckets` (1..10000, else InvalidArgument) and `continuation-token` (opaque: base64url of the last
 * name of the previous page; an empty one starts from the beginning, a malformed one is InvalidArgument).
 */
export async function listBuckets(ctx: S3Context): Promise<S3Response> {
  const prefix = ctx.query.get('prefix') ?? '';
  const region = ctx.query.get('bucket-region');
  const max = maxBuckets(ctx.query.get('max-buckets'));
  const after = bucketToken(ctx.query.get('continuation-token') ?? '');
  const all = ctx.services.buckets
    .list()
    .filter((b) => b.name.startsWith(prefix) && b.name > after && (region === undefined || b.region === region));
  const page = all.slice(0, max);
  const last = page[page.length - 1];
  return xmlResponse(
    buildListAllMyBucketsResult({
      owner: ctx.owner,
      buckets: page.map((b) => ({ name: b.name, creationDate: new Date(b.createdAt), region: b.region })),
      ...(all.length > max && last ? { continuationToken: Buffer.from(last.name).toString('base64url') } : {}),
      ...(ctx.query.has('prefix') ? { prefix } : {}),
    }),
  );
}

function maxBuckets(raw: string | undefined): number {
  const max = raw === undefined ? 10_000 : Number(raw);
  if (raw === '' || !Number.isInteger(max) || max < 1 || max > 10_000) {
    throw new AppError('InvalidArgument', {
      message: 'max-buckets must be an integer between 1 and 10000',
      details: { ArgumentName: 'max-buckets' },
    });
  }
  return max;
}

/** The bucket name a continuation token names ('' for none). Throws InvalidArgument for a token Store never issued. */
function bucketToken(token: string): string {
  if (token === '') return '';
  if (!/^[A-Za-z0-9_-]+$/.test(token)) {
    throw new AppError('InvalidArgument', {
      message: 'The continuation token provided is incorrect',
      details: { ArgumentName: 'continuation-token' },
    });
  }
  return Buffer.from(token, 'base64url').toString('utf8');
}

/**
 * CreateBucket, with x-amz-object-ownership (default STORE_DEFAULT_OBJECT_OWNERSHIP) and an ACL header. Throws
 * InvalidBucketAclWithObjectOwnership for an ACL granting others on a BucketOwnerEnforced bucket (AWS's answer).
 */
export async function createBucket(ctx: BucketCtx): Promise<S3Response> {
  const header = (name: string): string | undefined => headerOf(ctx.req, name);
  const ownershipHeader = header('x-amz-object-ownership');
  const ownership =
    ownershipHeader === undefined
      ? ctx.services.buckets.newBucketOwnership
      : parseObjectOwnership(ownershipHeader.trim());
  let acl: Acl | undefined;
  try {
    acl = writeAcl({ header, ownerId: ctx.owner.id, config: { ownershipControls: ownership } });
  } catch (err) {
    if (!isAppError(err) || err.code !== 'AccessControlListNotSupported') throw err;
    throw new AppError('InvalidBucketAclWithObjectOwnership', { cause: err });
  }
  // Object lock turns versioning on for good (BucketService.create).
  const objectLock = headerOf(ctx.req, 'x-amz-bucket-object-lock-enabled')?.trim().toLowerCase() === 'true';
  const body = await readSmallPayload(ctx, MAX_XML_BODY_BYTES);
  const config = parseCreateBucketConfiguration(body);
  // Path-style: `/bucket`; virtual-hosted style: the bucket's own URL, as AWS answers each.
  const created = {
    status: 200,
    headers: { Location: ctx.hostBucket === undefined ? `/${ctx.endpoint.bucket}` : bucketUrl(ctx) },
  };
  try {
    ctx.services.buckets.create(ctx.endpoint.bucket, {
      locationConstraint: config.locationConstraint,
      objectLock,
      ownership,
      acl,
    });
  } catch (err) {
    // AWS's legacy us-east-1 behaviour: creating a bucket you already own there answers 200 (and changes nothing);
    // every other region answers 409 BucketAlreadyOwnedByYou. https://docs.aws.amazon.com/AmazonS3/latest/API/API_CreateBucket.html
    if (isAppError(err) && err.code === 'BucketAlreadyOwnedByYou' && ctx.region === 'us-east-1') return created;
    throw err;
  }
  return created;
}

export async function headBucket(ctx: BucketCtx): Promise<S3Response> {
  const bucket = ctx.services.buckets.get(ctx.endpoint.bucket);
  return { status: 200, headers: { 'x-amz-bucket-region': bucket.region } };
}

export async function deleteBucket(ctx: BucketCtx): Promise<S3Response> {
  ctx.services.buckets.delete(ctx.endpoint.bucket);
  return { status: 204 };
}

export async function getBucketLocation(ctx: BucketCtx): Promise<S3Response> {
  const bucket = ctx.services.buckets.get(ctx.endpoint.bucket);
  return xmlResponse(buildLocationConstraint(bucket.region));
}

/** The bucket's URL on a virtual-hosted–style request: the Host and the path as sent (the mount path, then `/`). */
function bucketUrl(ctx: BucketCtx): string {
  const path = (ctx.req.url ?? '/').split('?')[0] ?? '/';
  return `http://${headerOf(ctx.req, 'host') ?? 'localhost'}${path.endsWith('/') ? path : `${path}/`}`;
}
