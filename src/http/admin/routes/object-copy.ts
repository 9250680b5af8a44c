// Server-side copy in the admin API: an object version written as a new object, without the bytes passing through
// the browser. The console restores an older version by copying it over its own key (what S3's CopyObject with a
// versionId source does, and what the AWS console's "restore" amounts to).

import { Type } from '@sinclair/typebox';
import { reportedVersionId } from '../../../core/versioning.js';
import { principalOf } from '../admin-principal.js';
import type { AdminApp } from '../typebox-type-provider.js';
import { BucketNameParams, Strict } from './bucket-schemas.js';
import { bucketOf, type ObjectRouteDeps } from './object-deps.js';
import { ErrorBody } from './schemas.js';

const CopyBody = Strict({
  key: Type.String({ minLength: 1, description: 'The key to write (in the bucket of the path)' }),
  sourceBucket: Type.Optional(
    Type.String({ minLength: 1, maxLength: 255, description: 'Default: the bucket of the path' }),
  ),
  sourceKey: Type.Optional(Type.String({ minLength: 1, description: 'Default: key' })),
  sourceVersionId: Type.Optional(Type.String({ minLength: 1, description: 'Default: the current version' })),
});
const Copied = Type.Object({
  etag: Type.String({ description: 'Hex MD5, unquoted' }),
  size: Type.Integer(),
  versionId: Type.Optional(Type.String({ description: 'The new version, when the bucket is versioned' })),
  sourceVersionId: Type.String({ description: 'The version that was copied' }),
});

/** POST /buckets/:name/objects/copy. */
export function objectCopyRoutes(app: AdminApp, deps: ObjectRouteDeps): void {
  app.post(
    '/buckets/:name/objects/copy',
    {
      schema: {
        operationId: 'copyObject',
        tags: ['object content'],
        summary:
          'Copy an object version to a key: metadata and tags come along; copying an older version over its key restores it',
        description:
          'NoSuchKey / NoSuchVersion for the source; InvalidRequest to copy the current version over itself (nothing would change).',
        params: BucketNameParams,
        body: CopyBody,
        response: { 200: Copied, 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody },
      },
    },
    async (req) => {
      const body = req.body;
      const bucket = bucketOf(req);
      const source = {
        bucket: body.sourceBucket ?? bucket,
        key: body.sourceKey ?? body.key,
        versionId: body.sourceVersionId,
      };
      const { row, sourceVersionId } = await deps.objects.copy({
        bucket,
        key: body.key,
        source,
        metadataDirective: 'COPY',
        headers: {},
        userMeta: {},
      });
      deps.audit.record({
        event: 'object.copied',
        subject: principalOf(req).username,
        bucket,
        details: {
          key: body.key,
          versionId: row.versionId,
          sourceBucket: source.bucket,
          sourceKey: source.key,
          sourceVersionId,
        },
      });
      const versionId = reportedVersionId(row.versionId);
      return { etag: row.etag, size: row.size, ...(versionId ? { versionId } : {}), sourceVersionId };
    },
  );
}
