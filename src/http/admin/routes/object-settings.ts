// Per-object settings under /buckets/:name/objects: tagging (GET/PUT/DELETE), retention (GET/PUT) and legal hold
// (GET/PUT), on the current version or the one named by versionId. ObjectService.tagging and .lock apply S3's
// rules, object lock's included, inside their transactions.

import type { FastifyRequest } from 'fastify';
import type { Static } from '@sinclair/typebox';
import { AppError } from '../../../core/errors.js';
import { parseIso8601 } from '../../../core/iso8601.js';
import type { ObjectRetention } from '../../../core/object-lock.js';
import { principalOf } from '../admin-principal.js';
import type { AdminApp } from '../typebox-type-provider.js';
import { BucketNameParams, NoContent, TagSetBody } from './bucket-schemas.js';
import { withFieldErrors } from './core-validation.js';
import {
  LegalHoldBody,
  LegalHoldResponse,
  ObjectKeyQuery,
  ObjectTagging,
  RetentionBody,
  RetentionResponse,
} from './object-schemas.js';
import type { ObjectRouteDeps } from './object-deps.js';
import { ErrorBody } from './schemas.js';

const tags = ['object settings'];

/** What a per-object request carries, as its schemas type it. */
interface Addressed {
  params: Static<typeof BucketNameParams>;
  query: Static<typeof ObjectKeyQuery>;
}

/** The version a request addresses: bucket from the path, key and versionId from the query. */
function target(req: Addressed): { bucket: string; key: string; versionId: string | undefined } {
  const { key, versionId } = req.query;
  return { bucket: req.params.name, key, versionId };
}

/** Lookup errors every per-object route may answer: 404 NoSuchBucket/NoSuchKey/NoSuchVersion, 405 a delete marker. */
const lookupErrors = { 400: ErrorBody, 401: ErrorBody, 404: ErrorBody, 405: ErrorBody };
const writeErrors = { ...lookupErrors, 403: ErrorBody };

/**
 * A retention from the JSON body: undefined (remove) when neither field is sent. The date is normalised as the XML
 * parser does; a malformed one is left for core to refuse. Throws ValidationError when only one field is sent.
 */
function retentionOf(body: Static<typeof RetentionBody>): ObjectRetention | undefined {
  if (body.mode === undefined && body.retainUntilDate === undefined) return undefined;
  if (body.mode === undefined || body.retainUntilDate === undefined) {
    const missing = body.mode === undefined ? 'mode' : 'retainUntilDate';
    throw new AppError('ValidationError', {
      message: `${missing}: mode and retainUntilDate go together (send neither to remove the retention)`,
    });
  }
  return {
    mode: body.mode,
    retainUntilDate: parseIso8601(body.retainUntilDate)?.toISOString() ?? body.retainUntilDate,
  };
}

export function objectSettingsRoutes(app: AdminApp, deps: ObjectRouteDeps): void {
  type Event = 'object.tagging_updated' | 'object.retention_updated' | 'object.legal_hold_updated';
  // `details` names the version first: { versionId, ...what changed }.
  const audit = (
    req: FastifyRequest & Addressed,
    event: Event,
    details: { versionId: string } & Record<string, unknown>,
  ): void => {
    const t = target(req);
    deps.audit.record({
      event,
      subject: principalOf(req).username,
      bucket: t.bucket,
      details: { key: t.key, ...details },
    });
  };

  app.get(
    '/buckets/:name/objects/tagging',
    {
      schema: {
        operationId: 'getObjectTagging',
        tags,
        summary: "A version's tags",
        params: BucketNameParams,
        querystring: ObjectKeyQuery,
        response: { 200: ObjectTagging, ...lookupErrors },
      },
    },
    async (req) => deps.objects.tagging.get(target(req)),
  );

  app.put(
    '/buckets/:name/objects/tagging',
    {
      schema: {
        operationId: 'putObjectTagging',
        tags,
        summary: "Replace a version's tags (at most 10; InvalidTag)",
        params: BucketNameParams,
        querystring: ObjectKeyQuery,
        body: TagSetBody,
        response: { 200: ObjectTagging, ...writeErrors },
      },
    },
    async (req) => {
      const { tags: tagSet } = req.body;
      const versionId = deps.objects.tagging.put(target(req), tagSet);
      audit(req, 'object.tagging_updated', { versionId, count: tagSet.length });
      return { versionId, tags: tagSet };
    },
  );

  app.delete(
    '/buckets/:name/objects/tagging',
    {
      schema: {
        operationId: 'deleteObjectTagging',
        tags,
        summary: "Remove a version's tags",
        params: BucketNameParams,
        querystring: ObjectKeyQuery,
        response: { 204: NoContent, ...writeErrors },
      },
    },
    async (req, reply) => {
      const versionId = deps.objects.tagging.delete(target(req));
      audit(req, 'object.tagging_updated', { versionId, count: 0 });
      return reply.status(204).send();
    },
  );

  app.get(
    '/buckets/:name/objects/retention',
    {
      schema: {
        operationId: 'getObjectRetention',
        tags,
        summary: "A version's retention",
        description:
          'InvalidRequest (400) on a bucket without object lock; NoSuchObjectLockConfiguration (404) when none is set.',
        params: BucketNameParams,
        querystring: ObjectKeyQuery,
        response: { 200: RetentionResponse, ...lookupErrors },
      },
    },
    async (req) => deps.objects.lock.getRetention(target(req)),
  );

  app.put(
    '/buckets/:name/objects/retention',
    {
      schema: {
        operationId: 'putObjectRetention',
        tags,
        summary: "Set, extend, shorten or remove a version's retention",
        description:
          'COMPLIANCE can only be extended. GOVERNANCE can be shortened, removed or made COMPLIANCE only with ' +
          'bypassGovernance (a full admin may always ask for it). Refusals are AccessDenied (403).',
        params: BucketNameParams,
        querystring: ObjectKeyQuery,
        body: RetentionBody,
        response: { 200: RetentionResponse, ...writeErrors },
      },
    },
    async (req) => {
      const body = req.body;
      const retention = retentionOf(body);
      const bypassGovernance = body.bypassGovernance ?? false;
      const versionId = withFieldErrors('retainUntilDate', () =>
        deps.objects.lock.putRetention(target(req), retention, { bypassGovernance }),
      );
      audit(req, 'object.retention_updated', { versionId, ...(retention ?? { removed: true }), bypassGovernance });
      return { versionId, ...retention };
    },
  );

  app.get(
    '/buckets/:name/objects/legal-hold',
    {
      schema: {
        operationId: 'getObjectLegalHold',
        tags,
        summary: "A version's legal hold (OFF when never set)",
        params: BucketNameParams,
        querystring: ObjectKeyQuery,
        response: { 200: LegalHoldResponse, ...lookupErrors },
      },
    },
    async (req) => ({ status: deps.objects.lock.getLegalHold(target(req)) }),
  );

  app.put(
    '/buckets/:name/objects/legal-hold',
    {
      schema: {
        operationId: 'putObjectLegalHold',
        tags,
        summary: "Turn a version's legal hold on or off",
        params: BucketNameParams,
        querystring: ObjectKeyQuery,
        body: LegalHoldBody,
        response: { 200: LegalHoldResponse, ...writeErrors },
      },
    },
    async (req) => {
      const { status } = req.body;
      const versionId = deps.objects.lock.putLegalHold(target(req), status);
      audit(req, 'object.legal_hold_updated', { versionId, status });
      return { versionId, status };
    },
  );
}
