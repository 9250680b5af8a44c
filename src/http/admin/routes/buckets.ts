// Buckets in the admin API: list (with object counts and bytes), create, details and delete, plus the per-bucket
// configuration editors (bucket-configs.ts). Every rule is BucketService's, the same the S3 plane applies.

import type { Static } from '@sinclair/typebox';
import { bucketPublicity } from '../../../core/acl/bucket-publicity.js';
import { effectiveOwnership } from '../../../core/acl/ownership.js';
import { configPartsSet } from '../../../core/bucket-config-parts.js';
import { isAppError } from '../../../core/errors.js';
import type { PolicyDocument } from '../../../core/policy/model.js';
import { parseBucketPolicy } from '../../../core/policy/policy-document.js';
import type { BucketRow, BucketUsage } from '../../../services/bucket-service.js';
import { principalOf } from '../admin-principal.js';
import type { AdminApp } from '../typebox-type-provider.js';
import { bucketConfigRoutes, type BucketRouteDeps } from './bucket-configs.js';
import { bucketQuotaRoutes } from './bucket-quota.js';
import {
  BucketDetails,
  BucketList,
  BucketNameParams,
  BucketSummary,
  CreateBucketBody,
  NoContent,
} from './bucket-schemas.js';
import { ErrorBody } from './schemas.js';

export type { BucketRouteDeps };

type Summary = Static<typeof BucketSummary>;

function summary(bucket: BucketRow, usage: BucketUsage): Summary {
  return {
    name: bucket.name,
    createdAt: new Date(bucket.createdAt).toISOString(),
    region: bucket.region,
    versioning: bucket.versioning,
    objectLock: bucket.objectLock,
    objectCount: usage.objectCount,
    bytes: usage.objectBytes,
    versionCount: usage.versionCount,
    versionBytes: usage.versionBytes,
  };
}

function details(bucket: BucketRow, usage: BucketUsage): Static<typeof BucketDetails> {
  const { isPublic, reasons } = bucketPublicity(bucket.config, readablePolicy(bucket));
  return {
    ...summary(bucket, usage),
    configs: configPartsSet(bucket),
    objectOwnership: effectiveOwnership(bucket.config.ownershipControls),
    public: { isPublic, reasons: [...reasons] },
  };
}

/** The bucket's policy, parsed; undefined when it has none or it no longer parses (then it grants nothing). */
function readablePolicy(bucket: BucketRow): PolicyDocument | undefined {
  if (bucket.config.policy === undefined) return undefined;
  try {
    return parseBucketPolicy(bucket.config.policy, bucket.name);
  } catch (err) {
    if (isAppError(err)) return undefined;
    throw err;
  }
}

const tags = ['buckets'];

/** GET/POST /buckets, GET/DELETE /buckets/:name, and the configuration editors under /buckets/:name. */
export function bucketsRoutes(app: AdminApp, deps: BucketRouteDeps): void {
  app.get(
    '/buckets',
    {
      schema: {
        operationId: 'listBuckets',
        tags,
        summary: 'Every bucket with its object count and bytes',
        description: 'Counts come from per-bucket counters kept in the same transaction as each write: no scan.',
        response: { 200: BucketList, 401: ErrorBody },
      },
    },
    async () => ({ buckets: deps.buckets.listWithUsage().map((b) => summary(b.bucket, b.usage)) }),
  );

  app.post(
    '/buckets',
    {
      schema: {
        operationId: 'createBucket',
        tags,
        summary: 'Create a bucket',
        body: CreateBucketBody,
        response: { 201: BucketDetails, 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 409: ErrorBody },
      },
    },
    async (req, reply) => {
      const body = req.body;
      const bucket = deps.buckets.create(body.name, {
        locationConstraint: body.region,
        objectLock: body.objectLock ?? false,
        versioning: body.versioning ?? false,
        ownership: body.objectOwnership,
      });
      deps.audit.record({
        event: 'bucket.created',
        subject: principalOf(req).username,
        bucket: bucket.name,
        details: { objectLock: bucket.objectLock, versioning: bucket.versioning },
      });
      return reply.status(201).send(details(bucket, deps.buckets.usage(bucket.name)));
    },
  );

  app.get(
    '/buckets/:name',
    {
      schema: {
        operationId: 'getBucket',
        tags,
        summary: 'A bucket: settings, counts, and which configurations are set',
        params: BucketNameParams,
        response: { 200: BucketDetails, 401: ErrorBody, 404: ErrorBody },
      },
    },
    async (req) => {
      const { name } = req.params;
      return details(deps.buckets.get(name), deps.buckets.usage(name));
    },
  );

  app.delete(
    '/buckets/:name',
    {
      schema: {
        operationId: 'deleteBucket',
        tags,
        summary: 'Delete an empty bucket',
        description: 'BucketNotEmpty (409) while any object version, delete marker or multipart upload remains.',
        params: BucketNameParams,
        response: { 204: NoContent, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 409: ErrorBody },
      },
    },
    async (req, reply) => {
      const { name } = req.params;
      deps.buckets.delete(name);
      deps.audit.record({ event: 'bucket.deleted', subject: principalOf(req).username, bucket: name });
      return reply.status(204).send();
    },
  );

  bucketConfigRoutes(app, deps);
  bucketQuotaRoutes(app, deps);
}
