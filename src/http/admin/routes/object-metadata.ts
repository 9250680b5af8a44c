// Editing content type, cache headers and user metadata in the admin API, as S3 does it: a copy of the current version
// onto its own key with MetadataDirective REPLACE (ObjectService.copy), tags, storage class and ACL kept. A versioned
// bucket gets a new version. One request serves one object (every field sent) or a selection (only what changes).

import type { Static } from '@sinclair/typebox';
import { AppError, isAppError } from '../../../core/errors.js';
import { asHeaderBytes, isHeaderValue } from '../../../core/header-text.js';
import { parseStorageClass } from '../../../core/storage-class.js';
import { checkUserMetaSize, isUserMetaName } from '../../../core/user-metadata.js';
import { reportedVersionId } from '../../../core/versioning.js';
import type { ObjectHeaders } from '../../../services/objects/object-service.js';
import { principalOf } from '../admin-principal.js';
import type { AdminApp } from '../typebox-type-provider.js';
import { BucketNameParams } from './bucket-schemas.js';
import { bucketOf, type ObjectRouteDeps } from './object-deps.js';
import { MetadataBody, MetadataResponse } from './object-work-schemas.js';
import { ErrorBody } from './schemas.js';

type Body = Static<typeof MetadataBody>;
type Result = Static<typeof MetadataResponse>['results'][number];
type HeaderName = keyof ObjectHeaders;

const HEADER_NAMES: Record<HeaderName, string> = {
  contentType: 'Content-Type',
  cacheControl: 'Cache-Control',
  contentDisposition: 'Content-Disposition',
  contentEncoding: 'Content-Encoding',
  contentLanguage: 'Content-Language',
  expires: 'Expires',
};

/** Text from JSON in the header form Store stores; InvalidArgument for what no header can carry (CR, LF, NUL). */
function headerText(value: string, name: string): string {
  const bytes = asHeaderBytes(value);
  if (!isHeaderValue(bytes)) {
    throw new AppError('InvalidArgument', { message: `${name}: a header value cannot hold control characters` });
  }
  return bytes;
}

/** The request's changes, checked once before any object is touched. Throws InvalidArgument. */
function parseChanges(body: Body): {
  headers: Partial<Record<HeaderName, string | null>>;
  meta: Map<string, string | null>;
} {
  const headers: Partial<Record<HeaderName, string | null>> = {};
  for (const [field, value] of Object.entries(body.headers ?? {}) as Array<[HeaderName, string | null | undefined]>) {
    if (value === undefined) continue;
    headers[field] = value === null || value === '' ? null : headerText(value, HEADER_NAMES[field]);
  }
  const meta = new Map<string, string | null>();
  for (const [rawName, value] of Object.entries(body.userMetadata ?? {})) {
    const name = rawName.toLowerCase();
    if (!isUserMetaName(name)) {
      throw new AppError('InvalidArgument', { message: `x-amz-meta-${rawName}: not a valid metadata name` });
    }
    meta.set(name, value === null ? null : headerText(value, `x-amz-meta-${name}`));
  }
  return { headers, meta };
}

function applyChanges(
  current: { headers: ObjectHeaders; userMeta: Record<string, string> },
  changes: ReturnType<typeof parseChanges>,
  replaceMeta: boolean,
): { headers: ObjectHeaders; userMeta: Record<string, string> } {
  const headers: ObjectHeaders = { ...current.headers };
  for (const [field, value] of Object.entries(changes.headers) as Array<[HeaderName, string | null]>) {
    if (value === null) delete headers[field];
    else headers[field] = value;
  }
  const userMeta: Record<string, string> = replaceMeta ? {} : { ...current.userMeta };
  for (const [name, value] of changes.meta) {
    if (value === null) delete userMeta[name];
    else userMeta[name] = value;
  }
  checkUserMetaSize(userMeta);
  return { headers, userMeta };
}

/** POST /buckets/:name/objects/metadata. */
export function objectMetadataRoutes(app: AdminApp, deps: ObjectRouteDeps): void {
  app.post(
    '/buckets/:name/objects/metadata',
    {
      schema: {
        operationId: 'editObjectMetadata',
        tags: ['object content'],
        summary: 'Set content type, cache headers and user metadata of up to 1000 objects (a copy in place)',
        description:
          'Each current object is copied onto its own key with MetadataDirective REPLACE: a versioned bucket gets a ' +
          'new version; tags, storage class and ACL stay. Absent fields keep each object its own value. ' +
          'InvalidArgument (400) for a value no header can carry or a bad metadata name, before any object. Per ' +
          'entry: NoSuchKey, MetadataTooLarge (over 2 KB of user metadata).',
        params: BucketNameParams,
        body: MetadataBody,
        response: { 200: MetadataResponse, 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody },
      },
    },
    async (req) => {
      const bucket = bucketOf(req);
      deps.buckets.get(bucket);
      const changes = parseChanges(req.body);
      const replaceMeta = req.body.replaceUserMetadata ?? false;
      const results: Result[] = [];
      for (const key of req.body.keys) {
        try {
          const source = deps.objects.open(bucket, key).row;
          const next = applyChanges(source, changes, replaceMeta);
          const { row } = await deps.objects.copy({
            bucket,
            key,
            source: { bucket, key, versionId: source.versionId },
            metadataDirective: 'REPLACE',
            headers: next.headers,
            userMeta: next.userMeta,
            storageClass: parseStorageClass(source.storageClass),
            acl: source.acl,
          });
          const versionId = reportedVersionId(row.versionId);
          results.push({ key, ok: true, ...(versionId ? { versionId } : {}) });
        } catch (err) {
          if (!isAppError(err) || err.statusCode >= 500) throw err;
          results.push({ key, ok: false, error: err.code, message: err.message });
        }
      }
      const done = results.filter((r) => r.ok).length;
      if (done > 0) {
        deps.audit.record({
          event: 'object.metadata_updated',
          subject: principalOf(req).username,
          bucket,
          details: {
            count: done,
            failed: results.length - done,
            fields: [...Object.keys(changes.headers), ...[...changes.meta.keys()].map((n) => `x-amz-meta-${n}`)],
            ...(req.body.keys.length === 1 ? { key: req.body.keys[0] } : {}),
          },
        });
      }
      return { done, failed: results.length - done, results };
    },
  );
}
