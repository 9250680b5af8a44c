// Bucket configuration: the configuration parts (core/bucket-config-parts.ts: tagging, default encryption, lifecycle,
// CORS, policy, ownership controls, public access block), the policy's status, versioning, the bucket ACL, and the
// notification configuration.

import {
  BUCKET_CONFIG_PARTS,
  CONFIG_PARTS,
  validateConfigPart,
  type BucketConfig,
  type ConfigPart,
  type ConfigPartOperation,
} from '../../../core/bucket-config-parts.js';
import { AppError } from '../../../core/errors.js';
import { bucketPublicity } from '../../../core/acl/bucket-publicity.js';
import { aclsEnabled } from '../../../core/acl/ownership.js';
import { parseBucketPolicy } from '../../../core/policy/policy-document.js';
import type { BucketOp } from '../endpoints.js';
import { headerOf, type S3Context, type S3Response } from '../context.js';
import { readSmallPayload } from '../request-body.js';
import { xmlResponse } from '../respond.js';
import {
  buildBucketEncryption,
  buildCorsConfiguration,
  buildLifecycleConfiguration,
  buildTagging,
  buildVersioningConfiguration,
  parseBucketEncryption,
  parseCorsConfiguration,
  parseLifecycleConfiguration,
  parseTagging,
  parseVersioningConfiguration,
} from '../xml/bucket-config.js';
import { buildAccessControlPolicy, buildSimpleDocument } from '../xml/acl.js';
import {
  buildOwnershipControls,
  buildPublicAccessBlock,
  parseOwnershipControls,
  parsePublicAccessBlock,
} from '../xml/config-ownership.js';
import { buildNotificationConfiguration, parseNotificationConfiguration } from '../xml/config-notification.js';
import { putAcl } from './acl-header.js';
import { MAX_XML_BODY_BYTES } from './buckets.js';

type BucketCtx = S3Context<{ op: BucketOp; bucket: string }>;

/** Bucket policies may be up to 20 KB once whitespace is removed; the raw body may be larger. */
const MAX_POLICY_BODY_BYTES = 256 * 1024;

/**
 * A configuration body, read only once the bucket is known to exist: as S3 answers, a missing bucket is NoSuchBucket
 * whatever the document says (and its body is not read for nothing).
 */
const body = (ctx: BucketCtx, limit: number = MAX_XML_BODY_BYTES): Promise<Buffer> => {
  ctx.services.buckets.get(ctx.endpoint.bucket);
  return readSmallPayload(ctx, limit);
};
const noContent = (): S3Response => ({ status: 204 });
const ok = (): S3Response => ({ status: 200 });

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

/** How the S3 plane carries one configuration part: its request body to the model, the model to its response. */
interface PartCodec<K extends ConfigPart> {
  /** The request body as the part's value, shape-checked (the part's rule validates it in BucketService.putConfig). */
  parse(body: Buffer): Value<K>;
  /** The GET response for the part's value. */
  respond(value: Value<K>): S3Response;
  /** The PUT response (default 200). */
  putResponse?(): S3Response;
  /** Checked before the body is read. */
  checkRequest?(ctx: BucketCtx): void;
  /** Default MAX_XML_BODY_BYTES. */
  maxBodyBytes?: number;
}

type Value<K extends ConfigPart> = NonNullable<BucketConfig[K]>;

/**
 * Each part served by Get/Put/DeleteBucket<Part> (core/bucket-config-parts.ts names the operations). AWS answers
 * PutBucketTagging with 204, but minio-js (which shares one tagging call for objects and buckets) accepts only 200, and
 * every AWS SDK accepts any 2xx: 200 works with all of them (docs/decisions.md).
 */
const CODECS: { readonly [K in ConfigPart]: PartCodec<K> } = {
  tagging: { parse: (body) => parseTagging(body, 'bucket'), respond: (tags) => xmlResponse(buildTagging(tags)) },
  encryption: { parse: parseBucketEncryption, respond: (encryption) => xmlResponse(buildBucketEncryption(encryption)) },
  lifecycle: {
    parse: parseLifecycleConfiguration,
    respond: (config) =>
      xmlResponse(buildLifecycleConfiguration(config), 200, { [TRANSITION_MIN_SIZE_HEADER]: TRANSITION_MIN_SIZE }),
    putResponse: () => ({ status: 200, headers: { [TRANSITION_MIN_SIZE_HEADER]: TRANSITION_MIN_SIZE } }),
    checkRequest: checkTransitionMinimumSize,
  },
  cors: { parse: parseCorsConfiguration, respond: (cors) => xmlResponse(buildCorsConfiguration(cors)) },
  policy: {
    parse: (body) => body.toString('utf8'),
    respond: (policy) => ({ status: 200, headers: { 'Content-Type': 'application/json' }, body: policy }),
    putResponse: noContent,
    maxBodyBytes: MAX_POLICY_BODY_BYTES,
  },
  ownershipControls: { parse: parseOwnershipControls, respond: (value) => xmlResponse(buildOwnershipControls(value)) },
  publicAccessBlock: { parse: parsePublicAccessBlock, respond: (value) => xmlResponse(buildPublicAccessBlock(value)) },
};

function getPart<K extends ConfigPart>(part: K, codec: PartCodec<K>): (ctx: BucketCtx) => Promise<S3Response> {
  return async (ctx) => codec.respond(ctx.services.buckets.getConfig(ctx.endpoint.bucket, part));
}

function putPart<K extends ConfigPart>(part: K, codec: PartCodec<K>): (ctx: BucketCtx) => Promise<S3Response> {
  return async (ctx) => {
    codec.checkRequest?.(ctx);
    ctx.services.buckets.putConfig(ctx.endpoint.bucket, part, codec.parse(await body(ctx, codec.maxBodyBytes)));
    return codec.putResponse ? codec.putResponse() : ok();
  };
}

function deletePart(part: ConfigPart): (ctx: BucketCtx) => Promise<S3Response> {
  return async (ctx) => {
    ctx.services.buckets.deleteConfig(ctx.endpoint.bucket, part);
    return noContent();
  };
}

/** Get/Put/DeleteBucket<Part> of every configuration part, by operation name, for the handler table. */
export const CONFIG_PART_HANDLERS = Object.fromEntries(
  CONFIG_PARTS.flatMap((part) => {
    const { ops } = BUCKET_CONFIG_PARTS[part].s3;
    const codec: PartCodec<ConfigPart> = CODECS[part];
    return [
      [ops.GET, getPart(part, codec)],
      [ops.PUT, putPart(part, codec)],
      [ops.DELETE, deletePart(part)],
    ];
  }),
) as { readonly [Op in ConfigPartOperation]: (ctx: BucketCtx) => Promise<S3Response> };

/**
 * IsPublic from the policy and, where ACLs are enabled, the bucket ACL, each unless the public access block says to
 * disregard it (core/acl/bucket-publicity.ts). Throws NoSuchBucketPolicy when the bucket has neither a policy nor an
 * ACL.
 */
export async function getBucketPolicyStatus(ctx: BucketCtx): Promise<S3Response> {
  const { config } = ctx.services.buckets.get(ctx.endpoint.bucket);
  const json = config.policy;
  if (json === undefined && (config.acl === undefined || !aclsEnabled(config.ownershipControls))) {
    ctx.services.buckets.getConfig(ctx.endpoint.bucket, 'policy');
  }
  const policy = json === undefined ? undefined : parseBucketPolicy(json, ctx.endpoint.bucket);
  const publicly = bucketPublicity(config, policy).isPublic;
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

/**
 * The bucket ACL: the owner's FULL_CONTROL alone where ACLs are disabled ("requests to read ACLs always return a
 * response that shows full control for the bucket owner"), else what CreateBucket or PutBucketAcl stored.
 */
export async function getBucketAcl(ctx: BucketCtx): Promise<S3Response> {
  const { config } = ctx.services.buckets.get(ctx.endpoint.bucket);
  return xmlResponse(
    buildAccessControlPolicy(ctx.owner, aclsEnabled(config.ownershipControls) ? config.acl : undefined),
  );
}

/** Sets the bucket ACL from headers or an AccessControlPolicy body, checked in the transaction that stores it. */
export async function putBucketAcl(ctx: BucketCtx): Promise<S3Response> {
  const requestBody = await body(ctx);
  ctx.services.buckets.updateConfig(ctx.endpoint.bucket, (config) => {
    const acl = putAcl({ header: (name) => headerOf(ctx.req, name), ownerId: ctx.owner.id, config, body: requestBody });
    const next = { ...config };
    if (acl === undefined) delete next.acl;
    else next.acl = acl;
    return next;
  });
  return ok();
}

/** The bucket's notification configuration (docs/notifications.md); an empty document when none is set, as AWS. */
export async function getBucketNotificationConfiguration(ctx: BucketCtx): Promise<S3Response> {
  const { config } = ctx.services.buckets.get(ctx.endpoint.bucket);
  return xmlResponse(buildNotificationConfiguration(config.notification));
}

/**
 * Replaces the notification configuration (an empty document removes it). Validated as AWS does (event names,
 * filters, overlapping rules), then, in the transaction that stores it, every ARN must name a target and each target
 * newly referenced is sent an s3:TestEvent. Throws MalformedXML, InvalidArgument, NoSuchBucket.
 */
export async function putBucketNotificationConfiguration(ctx: BucketCtx): Promise<S3Response> {
  const next = parseNotificationConfiguration(await body(ctx));
  validateConfigPart('notification', next, ctx.endpoint.bucket);
  const notifications = ctx.services.notifications;
  ctx.services.buckets.updateConfig(ctx.endpoint.bucket, (config) => {
    if (notifications === undefined && next.rules.length > 0) {
      throw new AppError('InvalidArgument', { message: 'Unable to validate the following destination configurations' });
    }
    notifications?.applyConfiguration({
      bucket: ctx.endpoint.bucket,
      previous: config.notification,
      next,
      requestId: ctx.requestId,
    });
    const updated = { ...config };
    if (next.rules.length === 0) delete updated.notification;
    else updated.notification = next;
    return updated;
  });
  return ok();
}
