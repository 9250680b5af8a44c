// AWS features Store never configures (Requester Pays, Transfer Acceleration, server access logging, static website
// hosting, S3 replication): reads answer AWS's default for a bucket that never had the feature, instead of 501, so
// clients that read every bucket setting (Terraform, the console of other tools) work. Setting one stays
// NotImplemented (endpoints.ts), except Requester Pays set to BucketOwner, which is what every bucket is.

import { AppError } from '../../../core/errors.js';
import type { BucketOp } from '../endpoints.js';
import type { S3Context, S3Response } from '../context.js';
import { readSmallPayload } from '../request-body.js';
import { xmlResponse } from '../respond.js';
import {
  buildAccelerateConfiguration,
  buildBucketLoggingStatus,
  buildRequestPaymentConfiguration,
  parseRequestPaymentConfiguration,
} from '../xml/bucket-defaults.js';
import { MAX_XML_BODY_BYTES } from './buckets.js';

type BucketCtx = S3Context<{ op: BucketOp; bucket: string }>;

const exists = (ctx: BucketCtx): void => {
  ctx.services.buckets.get(ctx.endpoint.bucket);
};

export async function getBucketRequestPayment(ctx: BucketCtx): Promise<S3Response> {
  exists(ctx);
  return xmlResponse(buildRequestPaymentConfiguration());
}

/** BucketOwner is accepted and changes nothing; Requester is NotImplemented (Store bills no one). */
export async function putBucketRequestPayment(ctx: BucketCtx): Promise<S3Response> {
  exists(ctx);
  const payer = parseRequestPaymentConfiguration(await readSmallPayload(ctx, MAX_XML_BODY_BYTES));
  if (payer === 'Requester') {
    throw new AppError('NotImplemented', {
      message: 'Requester Pays is not supported by this server: the bucket owner pays.',
    });
  }
  return { status: 200 };
}

export async function getBucketAccelerateConfiguration(ctx: BucketCtx): Promise<S3Response> {
  exists(ctx);
  return xmlResponse(buildAccelerateConfiguration());
}

export async function getBucketLogging(ctx: BucketCtx): Promise<S3Response> {
  exists(ctx);
  return xmlResponse(buildBucketLoggingStatus());
}

export async function getBucketWebsite(ctx: BucketCtx): Promise<S3Response> {
  exists(ctx);
  throw new AppError('NoSuchWebsiteConfiguration', {
    resource: `/${ctx.endpoint.bucket}`,
    details: { BucketName: ctx.endpoint.bucket },
  });
}

export async function getBucketReplication(ctx: BucketCtx): Promise<S3Response> {
  exists(ctx);
  throw new AppError('ReplicationConfigurationNotFoundError', {
    resource: `/${ctx.endpoint.bucket}`,
    details: { BucketName: ctx.endpoint.bucket },
  });
}

/** DeleteBucketWebsite, DeleteBucketReplication: there is never anything to remove; AWS answers 204 all the same. */
export async function deleteNothing(ctx: BucketCtx): Promise<S3Response> {
  exists(ctx);
  return { status: 204 };
}
