// Multipart uploads in progress, under /buckets/:name/uploads: list them and abort one. A bucket with an unfinished
// upload cannot be deleted (BucketNotEmpty), so the console needs both. MultipartService applies S3's rules.

import { Type } from '@sinclair/typebox';
import { principalOf } from '../admin-principal.js';
import type { AdminApp } from '../typebox-type-provider.js';
import { BucketNameParams, NoContent } from './bucket-schemas.js';
import { decodeCursor, encodeCursor } from './cursor.js';
import { bucketOf, type ObjectRouteDeps } from './object-deps.js';
import { MAX_PAGE } from './object-schemas.js';
import { ErrorBody } from './schemas.js';

const UploadsQuery = Type.Object({
  prefix: Type.String({ default: '', description: 'Only uploads whose key starts with this' }),
  cursor: Type.Optional(Type.String({ minLength: 1, description: 'nextCursor of the previous page, unchanged' })),
  limit: Type.Integer({ minimum: 1, maximum: MAX_PAGE, default: MAX_PAGE }),
});
const UploadsPage = Type.Object({
  uploads: Type.Array(
    Type.Object({
      key: Type.String(),
      uploadId: Type.String(),
      initiated: Type.String({ format: 'date-time' }),
    }),
    { description: 'By key, then upload id' },
  ),
  nextCursor: Type.Optional(Type.String()),
});
const AbortQuery = Type.Object({ key: Type.String({ minLength: 1 }), uploadId: Type.String({ minLength: 1 }) });

const tags = ['objects'];

export function objectUploadsRoutes(app: AdminApp, deps: ObjectRouteDeps): void {
  app.get(
    '/buckets/:name/uploads',
    {
      schema: {
        operationId: 'listMultipartUploads',
        tags,
        summary: 'Multipart uploads in progress',
        params: BucketNameParams,
        querystring: UploadsQuery,
        response: { 200: UploadsPage, 400: ErrorBody, 401: ErrorBody, 404: ErrorBody },
      },
    },
    async (req) => {
      const q = req.query;
      const cursor = q.cursor === undefined ? undefined : decodeCursor(q.cursor);
      const page = deps.multipart.listUploads(bucketOf(req), {
        prefix: q.prefix,
        keyMarker: cursor?.k ?? '',
        uploadIdMarker: cursor?.v ?? '',
        maxUploads: q.limit,
      });
      const last = page.uploads[page.uploads.length - 1];
      return {
        uploads: page.uploads.map((u) => ({
          key: u.key,
          uploadId: u.uploadId,
          initiated: new Date(u.initiated).toISOString(),
        })),
        ...(page.isTruncated && last ? { nextCursor: encodeCursor({ k: last.key, v: last.uploadId }) } : {}),
      };
    },
  );

  app.delete(
    '/buckets/:name/uploads',
    {
      schema: {
        operationId: 'abortMultipartUpload',
        tags,
        summary: 'Abort a multipart upload and free its parts',
        params: BucketNameParams,
        querystring: AbortQuery,
        response: { 204: NoContent, 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody },
      },
    },
    async (req, reply) => {
      const { key, uploadId } = req.query;
      const bucket = bucketOf(req);
      deps.multipart.abort(bucket, key, uploadId);
      deps.audit.record({
        event: 'object.upload_aborted',
        subject: principalOf(req).username,
        bucket,
        details: { key, uploadId },
      });
      return reply.status(204).send();
    },
  );
}
