// The per-bucket configuration editors: versioning, tagging, encryption, lifecycle, CORS, object lock and policy as
// JSON (shapes in bucket-schemas.ts). Each is validated by the same core/ function the S3 plane uses, and answers
// the same errors (NoSuchBucket, NoSuch*Configuration, InvalidArgument, MalformedPolicy, ...), with MalformedXML
// reported as ValidationError naming the field (core-validation.ts).

import type { FastifyRequest } from 'fastify';
import type { Static, TSchema } from '@sinclair/typebox';
import { AppError } from '../../../core/errors.js';
import { parseIso8601 } from '../../../core/iso8601.js';
import { validateCorsConfiguration, type CorsConfiguration } from '../../../core/cors.js';
import { validateLifecycleConfiguration, withRuleIds, type LifecycleConfiguration } from '../../../core/lifecycle.js';
import type { AuditSink } from '../../../services/audit/audit-events.js';
import type { BucketConfig, BucketService, ConfigPart } from '../../../services/bucket-service.js';
import { principalOf } from '../admin-principal.js';
import type { AdminApp } from '../typebox-type-provider.js';
import {
  BucketNameParams,
  CorsBody,
  EncryptionBody,
  LifecycleBody,
  NoContent,
  ObjectLockBody,
  PolicyDocument,
  TagSetBody,
  VersioningBody,
  VersioningResponse,
} from './bucket-schemas.js';
import { firstMalformedRule, withFieldErrors } from './core-validation.js';
import { ErrorBody } from './schemas.js';

export interface BucketRouteDeps {
  buckets: BucketService;
  audit: AuditSink;
}

type Value<K extends ConfigPart> = NonNullable<BucketConfig[K]>;

interface Editor<K extends ConfigPart, S extends TSchema = TSchema> {
  part: K;
  /** The path segment under /buckets/:name and the audit details.kind. */
  kind: string;
  /** Operation id stem: getBucket<Name>, putBucket<Name>, deleteBucket<Name>. */
  name: string;
  body: S;
  toJson(value: Value<K>): unknown;
  fromJson(body: Static<S>): Value<K>;
  /** Which field a MalformedXML from core is about. */
  field(value: Value<K>): string;
}

const tags = ['bucket configuration'];
const nameOf = (req: { params: Static<typeof BucketNameParams> }): string => req.params.name;

/** Lifecycle dates as the XML parser stores them (toISOString), so both planes store one form. */
function normaliseDates(config: LifecycleConfiguration): LifecycleConfiguration {
  const iso = (date: string | undefined): string | undefined =>
    date === undefined ? undefined : (parseIso8601(date)?.toISOString() ?? date);
  return {
    rules: config.rules.map((rule) => ({
      ...rule,
      ...(rule.expiration
        ? { expiration: { ...rule.expiration, ...(rule.expiration.date ? { date: iso(rule.expiration.date) } : {}) } }
        : {}),
      ...(rule.transitions
        ? { transitions: rule.transitions.map((t) => ({ ...t, ...(t.date ? { date: iso(t.date) } : {}) })) }
        : {}),
    })),
  };
}

const EDITORS = [
  {
    part: 'tagging',
    kind: 'tagging',
    name: 'Tagging',
    body: TagSetBody,
    toJson: (tags) => ({ tags }),
    fromJson: (body) => body.tags,
    field: () => 'tags',
  } satisfies Editor<'tagging', typeof TagSetBody>,
  {
    part: 'encryption',
    kind: 'encryption',
    name: 'Encryption',
    body: EncryptionBody,
    toJson: (v) => v,
    fromJson: (body) => body as Value<'encryption'>,
    field: () => 'sseAlgorithm',
  } satisfies Editor<'encryption'>,
  {
    part: 'lifecycle',
    kind: 'lifecycle',
    name: 'Lifecycle',
    body: LifecycleBody,
    toJson: (v) => v,
    fromJson: (body) => withRuleIds(normaliseDates(body as LifecycleConfiguration)),
    field: (v) => firstMalformedRule(v.rules, (rule) => validateLifecycleConfiguration({ rules: [rule] })),
  } satisfies Editor<'lifecycle'>,
  {
    part: 'cors',
    kind: 'cors',
    name: 'Cors',
    body: CorsBody,
    toJson: (v) => v,
    fromJson: (body) => body as CorsConfiguration,
    field: (v) => firstMalformedRule(v.rules, (rule) => validateCorsConfiguration({ rules: [rule] })),
  } satisfies Editor<'cors'>,
  {
    part: 'policy',
    kind: 'policy',
    name: 'Policy',
    body: PolicyDocument,
    toJson: (json) => JSON.parse(json) as unknown,
    fromJson: (body) => JSON.stringify(body),
    field: () => 'policy',
  } satisfies Editor<'policy'>,
];

function registerEditor<K extends ConfigPart>(app: AdminApp, deps: BucketRouteDeps, e: Editor<K>): void {
  const path = `/buckets/:name/${e.kind}`;
  type Req = FastifyRequest & { params: Static<typeof BucketNameParams> };
  const audit = (req: Req, event: 'bucket.config_updated' | 'bucket.config_deleted'): void =>
    deps.audit.record({ event, subject: principalOf(req).username, bucket: nameOf(req), details: { kind: e.kind } });

  app.get(
    path,
    {
      schema: {
        operationId: `getBucket${e.name}`,
        tags,
        summary: `The bucket's ${e.kind} configuration`,
        params: BucketNameParams,
        response: { 200: e.body, 401: ErrorBody, 404: ErrorBody },
      },
    },
    async (req) => e.toJson(deps.buckets.getConfig(nameOf(req), e.part)),
  );

  app.put(
    path,
    {
      schema: {
        operationId: `putBucket${e.name}`,
        tags,
        summary: `Set (replace) the bucket's ${e.kind} configuration`,
        params: BucketNameParams,
        body: e.body,
        response: { 200: e.body, 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 501: ErrorBody },
      },
    },
    async (req) => {
      const name = nameOf(req);
      const value = e.fromJson(req.body);
      withFieldErrors(
        () => e.field(value),
        () => deps.buckets.putConfig(name, e.part, value),
      );
      audit(req, 'bucket.config_updated');
      return e.toJson(deps.buckets.getConfig(name, e.part));
    },
  );

  app.delete(
    path,
    {
      schema: {
        operationId: `deleteBucket${e.name}`,
        tags,
        summary: `Remove the bucket's ${e.kind} configuration`,
        params: BucketNameParams,
        response: { 204: NoContent, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody },
      },
    },
    async (req, reply) => {
      deps.buckets.deleteConfig(nameOf(req), e.part);
      audit(req, 'bucket.config_deleted');
      return reply.status(204).send();
    },
  );
}

/** Versioning (GET/PUT) and object lock (GET/PUT: it can be set and changed but never removed), the other five. */
export function bucketConfigRoutes(app: AdminApp, deps: BucketRouteDeps): void {
  app.get(
    '/buckets/:name/versioning',
    {
      schema: {
        operationId: 'getBucketVersioning',
        tags,
        summary: "The bucket's versioning state (Unversioned until first enabled)",
        params: BucketNameParams,
        response: { 200: VersioningResponse, 401: ErrorBody, 404: ErrorBody },
      },
    },
    async (req) => ({ status: deps.buckets.get(nameOf(req)).versioning }),
  );

  app.put(
    '/buckets/:name/versioning',
    {
      schema: {
        operationId: 'putBucketVersioning',
        tags,
        summary: 'Enable or suspend versioning',
        description: 'InvalidBucketState (409) for suspending a bucket with object lock.',
        params: BucketNameParams,
        body: VersioningBody,
        response: {
          200: VersioningResponse,
          400: ErrorBody,
          401: ErrorBody,
          403: ErrorBody,
          404: ErrorBody,
          409: ErrorBody,
        },
      },
    },
    async (req) => {
      const { status } = req.body;
      const bucket = deps.buckets.setVersioning(nameOf(req), status);
      deps.audit.record({
        event: 'bucket.config_updated',
        subject: principalOf(req).username,
        bucket: bucket.name,
        details: { kind: 'versioning', status },
      });
      return { status: bucket.versioning };
    },
  );

  app.get(
    '/buckets/:name/object-lock',
    {
      schema: {
        operationId: 'getBucketObjectLock',
        tags,
        summary: "The bucket's object lock configuration",
        description: 'ObjectLockConfigurationNotFoundError (404) for a bucket without object lock.',
        params: BucketNameParams,
        response: { 200: ObjectLockBody, 401: ErrorBody, 404: ErrorBody },
      },
    },
    async (req) => {
      const bucket = deps.buckets.get(nameOf(req));
      if (!bucket.objectLock) {
        throw new AppError('ObjectLockConfigurationNotFoundError', {
          resource: `/${bucket.name}`,
          details: { BucketName: bucket.name },
        });
      }
      return bucket.config.objectLock ?? { enabled: true };
    },
  );

  app.put(
    '/buckets/:name/object-lock',
    {
      schema: {
        operationId: 'putBucketObjectLock',
        tags,
        summary: 'Turn object lock on (for good) and set or clear the default retention',
        description: 'Versioning must be Enabled (InvalidBucketState, 409).',
        params: BucketNameParams,
        body: ObjectLockBody,
        response: {
          200: ObjectLockBody,
          400: ErrorBody,
          401: ErrorBody,
          403: ErrorBody,
          404: ErrorBody,
          409: ErrorBody,
        },
      },
    },
    async (req) => {
      const body = req.body;
      if (body.enabled === false)
        throw new AppError('ValidationError', { message: 'enabled: object lock cannot be turned off' });
      const config = body.defaultRetention
        ? { enabled: true as const, defaultRetention: body.defaultRetention }
        : { enabled: true as const };
      const bucket = withFieldErrors('defaultRetention', () => deps.buckets.setObjectLock(nameOf(req), config));
      deps.audit.record({
        event: 'bucket.config_updated',
        subject: principalOf(req).username,
        bucket: bucket.name,
        details: { kind: 'object-lock' },
      });
      return bucket.config.objectLock ?? config;
    },
  );

  for (const editor of EDITORS) registerEditor(app, deps, editor as Editor<ConfigPart>);
}
