// A bucket's hard quota in the admin API (docs/quotas.md): read it beside the usage it counts, set it (full admin),
// clear it (full admin). The admin auth hook refuses PUT and DELETE to a read-only admin; both are audited.

import type { Static } from '@sinclair/typebox';
import type { BucketQuota } from '../../../core/quota.js';
import type { BucketQuotaView } from '../../../services/bucket-service.js';
import { principalOf } from '../admin-principal.js';
import type { AdminApp } from '../typebox-type-provider.js';
import type { BucketRouteDeps } from './bucket-configs.js';
import { BucketNameParams, NoContent, QuotaBody, QuotaResponse } from './bucket-schemas.js';
import { ErrorBody } from './schemas.js';

const tags = ['bucket configuration'];

function view(v: BucketQuotaView): Static<typeof QuotaResponse> {
  return v.quota === undefined ? { usage: v.usage } : { quota: v.quota, usage: v.usage };
}

export function bucketQuotaRoutes(app: AdminApp, deps: BucketRouteDeps): void {
  app.get(
    '/buckets/:name/quota',
    {
      schema: {
        operationId: 'getBucketQuota',
        tags,
        summary: "The bucket's quota (absent when it has none) and the usage it is checked against",
        params: BucketNameParams,
        response: { 200: QuotaResponse, 401: ErrorBody, 404: ErrorBody },
      },
    },
    async (req) => view(deps.buckets.quota(req.params.name)),
  );

  app.put(
    '/buckets/:name/quota',
    {
      schema: {
        operationId: 'putBucketQuota',
        tags,
        summary: 'Set the bucket quota (replaces the previous one)',
        description:
          'Writes that would take the bucket over it are refused with QuotaExceeded (403). A quota under the ' +
          'current usage deletes nothing. ValidationError (400) for a limit that is not a whole number from 0 to ' +
          '2^53 - 1, an unknown field, or neither limit.',
        params: BucketNameParams,
        body: QuotaBody,
        response: { 200: QuotaResponse, 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody },
      },
    },
    async (req) => {
      const quota: BucketQuota = req.body;
      const result = deps.buckets.setQuota(req.params.name, quota);
      deps.audit.record({
        event: 'bucket.config_updated',
        subject: principalOf(req).username,
        bucket: req.params.name,
        details: { kind: 'quota', maxBytes: quota.maxBytes ?? null, maxObjects: quota.maxObjects ?? null },
      });
      return view(result);
    },
  );

  app.delete(
    '/buckets/:name/quota',
    {
      schema: {
        operationId: 'deleteBucketQuota',
        tags,
        summary: 'Remove the bucket quota (204 whether or not it had one)',
        params: BucketNameParams,
        response: { 204: NoContent, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody },
      },
    },
    async (req, reply) => {
      deps.buckets.clearQuota(req.params.name);
      deps.audit.record({
        event: 'bucket.config_deleted',
        subject: principalOf(req).username,
        bucket: req.params.name,
        details: { kind: 'quota' },
      });
      return reply.status(204).send();
    },
  );
}
