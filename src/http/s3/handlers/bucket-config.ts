// Bucket configuration: tagging, default encryption, lifecycle, CORS, policy (and its status), versioning,
// and the fixed answers for ACLs, ownership controls and notifications.

import { AppError } from '../../../core/errors.js';
import { isPublic } from '../../../core/policy/policy-status.js';
import { parseBucketPolicy } from '../../../core/policy/policy-document.js';
import type { BucketOp } from '../endpoints.js';
import { headerOf, type S3Context, type S3Response } from '../context.js';
import { readSmallPayload } from '../request-body.js';
import { xmlResponse } from '../respond.js';
import {
  buildBucketEncryption, buildCorsConfiguration, buildLifecycleConfiguration, buildTagging, buildVersioningConfiguration,
  parseBucketEncryption, parseCorsConfiguration, parseLifecycleConfiguration, parseTagging, parseVersioningConfiguration,
} from '../xml/bucket-config.js';
import { buildAccessControlPolicy, buildSimpleDocument } from '../xml/acl.js';
import { checkAcceptedAcl, checkAclBody } from './acl-header.js';
import { MAX_XML_BODY_BYTES } from './buckets.js';

type BucketCtx = S3Context<{ op: BucketOp; bucket: string }>;

/** Bucket policies may be up to 20 KB once whitespace is removed; the raw body may be larger. */
const MAX_POLICY_BODY_BYTES = 256 * 1024;

/**
 * A configuration body, read only once the bucket is known to exist: as S3 answers, a missing bucket is NoSuchBucket
 * whatever the document says (and its body is not read for nothing).
 */
const body = (ctx: BucketCtx, limit = MAX_XML_BODY_BYTES): Promise<Buffer> => {
  ctx.services.buckets.get(ctx.endpoint.bucket);
  return readSmallPayload(ctx.req, ctx.auth, limit);
};
const noContent = (): S3Response => ({ status: 204 });
const ok = (): S3Response => ({ status: 200 });

export async function getBucketTagging(ctx: BucketCtx): Promise<S3Response> {
  return xmlResponse(buildTagging(ctx.services.buckets.getConfig(ctx.endpoint.bucket, 'tagging')));
}
/**
 * AWS answers PutBucketTagging with 204, but minio-js (which shares one tagging call for objects and buckets)
 * accepts only 200, and every AWS SDK accepts any 2xx: 200 works with all of them (docs/decisions.md).
 */
export async function putBucketTagging(ctx: BucketCtx): Promise<S3Response> {
  ctx.services.buckets.putConfig(ctx.endpoint.bucket, 'tagging', parseTagging(await body(ctx), 'bucket'));
  return ok();
}
export async function deleteBucketTagging(ctx: BucketCtx): Promise<S3Response> {
  ctx.services.buckets.deleteConfig(ctx.endpoint.bucket, 'tagging');
  return noContent();
}

export async function getBucketEncryption(ctx: BucketCtx): Promise<S3Response> {
  return xmlResponse(buildBucketEncryption(ctx.services.buckets.getConfig(ctx.endpoint.bucket, 'encryption')));
}
export async function putBucketEncryption(ctx: BucketCtx): Promise<S3Response> {
  ctx.services.buckets.putConfig(ctx.endpoint.bucket, 'encryption', parseBucketEncryption(await body(ctx)));
  return ok();
}
export async function deleteBucketEncryption(ctx: BucketCtx): Promise<S3Response> {
  ctx.services.buckets.deleteConfig(ctx.endpoint.bucket, 'encryption');
  return noContent();
}

/**
 * x-amz-transition-default-minimum-object-size: Store's transitions skip objects under 128 KiB unless a rule filters
 * by size (core/lifecycle-eval MIN_TRANSITION_SIZE), which is AWS's `all_storage_classes_128K`. The other AWS
 * behaviour, `varies_by_storage_class`, is refused rather than silently not honoured.
 */
const TRANSITION_MIN_SIZE_HEADER = 'x-amz-transition-default-minimum-object-size';
const TRANSITION_MIN_SIZE = 'all_storage_classes_128K';

function checkTransitionMinimumSize(ctx: BucketCtx): void {
  const value = headerOf(ctx.req, TRANSITION_MIN_SIZE_HEADER);
  if (value === undefined || value === TRANSITION_MIN_SIZE) return;
  if (value === 'varies_by_storage_class') {
    throw new AppError('NotImplemented', {
      message: `${TRANSITION_MIN_SIZE_HEADER}: varies_by_storage_class is not supported; Store uses ${TRANSITION_MIN_SIZE}.`,
    });
  }
  throw new AppError('InvalidArgument', {
    message: `${TRANSITION_MIN_SIZE_HEADER} must be ${TRANSITION_MIN_SIZE} or varies_by_storage_class.`,
    details: { ArgumentName: TRANSITION_MIN_SIZE_HEADER, ArgumentValue: value },
  });
}

export async function getBucketLifecycle(ctx: BucketCtx): Promise<S3Response> {
  const config = ctx.services.buckets.getConfig(ctx.endpoint.bucket, 'lifecycle');
  return xmlResponse(buildLifecycleConfiguration(config), 200, { [TRANSITION_MIN_SIZE_HEADER]: TRANSITION_MIN_SIZE });
}
export async function putBucketLifecycle(ctx: BucketCtx): Promise<S3Response> {
  checkTransitionMinimumSize(ctx);
  ctx.services.buckets.putConfig(ctx.endpoint.bucket, 'lifecycle', parseLifecycleConfiguration(await body(ctx)));
  return { status: 200, headers: { [TRANSITION_MIN_SIZE_HEADER]: TRANSITION_MIN_SIZE } };
}
export async function deleteBucketLifecycle(ctx: BucketCtx): Promise<S3Response> {
  ctx.services.buckets.deleteConfig(ctx.endpoint.bucket, 'lifecycle');
  return noContent();
}

export async function getBucketCors(ctx: BucketCtx): Promise<S3Response> {
  return xmlResponse(buildCorsConfiguration(ctx.services.buckets.getConfig(ctx.endpoint.bucket, 'cors')));
}
export async function putBucketCors(ctx: BucketCtx): Promise<S3Response> {
  ctx.services.buckets.putConfig(ctx.endpoint.bucket, 'cors', parseCorsConfiguration(await body(ctx)));
  return ok();
}
export async function deleteBucketCors(ctx: BucketCtx): Promise<S3Response> {
  ctx.services.buckets.deleteConfig(ctx.endpoint.bucket, 'cors');
  return noContent();
}

export async function getBucketPolicy(ctx: BucketCtx): Promise<S3Response> {
  const policy = ctx.services.buckets.getConfig(ctx.endpoint.bucket, 'policy');
  return { status: 200, headers: { 'Content-Type': 'application/json' }, body: policy };
}
export async function putBucketPolicy(ctx: BucketCtx): Promise<S3Response> {
  const json = (await body(ctx, MAX_POLICY_BODY_BYTES)).toString('utf8');
  ctx.services.buckets.putConfig(ctx.endpoint.bucket, 'policy', json);
  return noContent();
}
export async function deleteBucketPolicy(ctx: BucketCtx): Promise<S3Response> {
  ctx.services.buckets.deleteConfig(ctx.endpoint.bucket, 'policy');
  return noContent();
}
export async function getBucketPolicyStatus(ctx: BucketCtx): Promise<S3Response> {
  const json = ctx.services.buckets.getConfig(ctx.endpoint.bucket, 'policy');
  const publicly = isPublic(parseBucketPolicy(json, ctx.endpoint.bucket));
  return xmlResponse(buildSimpleDocument('PolicyStatus', { IsPublic: publicly ? 'true' : 'false' }));
}

export async function getBucketVersioning(ctx: BucketCtx): Promise<S3Response> {
  return xmlResponse(buildVersioningConfiguration(ctx.services.buckets.get(ctx.endpoint.bucket).versioning));
}
export async function putBucketVersioning(ctx: BucketCtx): Promise<S3Response> {
  const config = parseVersioningConfiguration(await body(ctx));
  ctx.services.buckets.setVersioning(ctx.endpoint.bucket, config.status);
  return ok();
}

/** Store has one owner and no ACLs: every bucket and object is the owner's, with FULL_CONTROL. */
export async function getBucketAcl(ctx: BucketCtx): Promise<S3Response> {
  ctx.services.buckets.get(ctx.endpoint.bucket);
  return xmlResponse(buildAccessControlPolicy(ctx.owner));
}
export async function putBucketAcl(ctx: BucketCtx): Promise<S3Response> {
  ctx.services.buckets.get(ctx.endpoint.bucket);
  checkAcceptedAcl(ctx.req);
  checkAclBody(await body(ctx), ctx.owner.id, headerOf(ctx.req, 'x-amz-acl') !== undefined);
  return ok();
}

export async function getBucketOwnershipControls(ctx: BucketCtx): Promise<S3Response> {
  ctx.services.buckets.get(ctx.endpoint.bucket);
  return xmlResponse(buildSimpleDocument('OwnershipControls', { Rule: { ObjectOwnership: 'BucketOwnerEnforced' } }));
}

/** Event notifications go to Store's own webhooks (admin configuration), never through this API: always empty. */
export async function getBucketNotificationConfiguration(ctx: BucketCtx): Promise<S3Response> {
  ctx.services.buckets.get(ctx.endpoint.bucket);
  return xmlResponse(buildSimpleDocument('NotificationConfiguration', {}));
}
