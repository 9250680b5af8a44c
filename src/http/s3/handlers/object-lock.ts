// Object lock: the bucket's configuration (Get/PutObjectLockConfiguration) and each version's retention and legal
// hold (Get/PutObjectRetention, Get/PutObjectLegalHold, by versionId too).

import { AppError } from '../../../core/errors.js';
import { validateObjectLockBucketState } from '../../../core/object-lock.js';
import type { BucketOp, ObjectOp } from '../endpoints.js';
import type { S3Context, S3Response } from '../context.js';
import { readSmallPayload } from '../request-body.js';
import { xmlResponse } from '../respond.js';
import {
  buildLegalHold,
  buildObjectLockConfiguration,
  buildRetention,
  parseLegalHold,
  parseObjectLockConfiguration,
  parseRetention,
} from '../xml/bucket-config.js';
import { MAX_XML_BODY_BYTES } from './buckets.js';
import { bypassGovernance, versionIdParam } from './object-params.js';

type BucketCtx = S3Context<{ op: BucketOp; bucket: string }>;
type ObjectCtx = S3Context<{ op: ObjectOp; bucket: string; key: string }>;

const body = (ctx: S3Context): Promise<Buffer> => readSmallPayload(ctx, MAX_XML_BODY_BYTES);

function target(ctx: ObjectCtx): { bucket: string; key: string; versionId: string | undefined } {
  return { bucket: ctx.endpoint.bucket, key: ctx.endpoint.key, versionId: versionIdParam(ctx) };
}

/** Throws ObjectLockConfigurationNotFoundError for a bucket without object lock. */
export async function getObjectLockConfiguration(ctx: BucketCtx): Promise<S3Response> {
  const bucket = ctx.services.buckets.get(ctx.endpoint.bucket);
  if (!bucket.objectLock) {
    throw new AppError('ObjectLockConfigurationNotFoundError', {
      resource: `/${bucket.name}`,
      details: { BucketName: bucket.name },
    });
  }
  return xmlResponse(buildObjectLockConfiguration(bucket.config.objectLock ?? { enabled: true }));
}

/**
 * Turns object lock on (for good) and sets or clears the default retention. The bucket's versioning must be
 * Enabled (InvalidBucketState, checked in the same transaction as the change).
 */
export async function putObjectLockConfiguration(ctx: BucketCtx): Promise<S3Response> {
  const config = parseObjectLockConfiguration(await body(ctx));
  ctx.services.buckets.enableObjectLock(ctx.endpoint.bucket, (current, bucket) => {
    validateObjectLockBucketState(bucket.versioning);
    return { ...current, objectLock: config };
  });
  return { status: 200 };
}

export async function getObjectRetention(ctx: ObjectCtx): Promise<S3Response> {
  return xmlResponse(buildRetention(ctx.services.objects.lock.getRetention(target(ctx))));
}

/** An empty <Retention/> removes the retention (GOVERNANCE with bypass only). */
export async function putObjectRetention(ctx: ObjectCtx): Promise<S3Response> {
  const retention = parseRetention(await body(ctx), new Date());
  const versionId = ctx.services.objects.lock.putRetention(target(ctx), retention, {
    bypassGovernance: bypassGovernance(ctx),
  });
  return { status: 200, headers: { 'x-amz-version-id': versionId } };
}

export async function getObjectLegalHold(ctx: ObjectCtx): Promise<S3Response> {
  return xmlResponse(buildLegalHold(ctx.services.objects.lock.getLegalHold(target(ctx))));
}

export async function putObjectLegalHold(ctx: ObjectCtx): Promise<S3Response> {
  const status = parseLegalHold(await body(ctx));
  const versionId = ctx.services.objects.lock.putLegalHold(target(ctx), status);
  return { status: 200, headers: { 'x-amz-version-id': versionId } };
}
