// Multipart uploads through the admin API, for the console's large files: start an upload, send its parts as raw
// bodies (streamed, never buffered), complete it. Listing and aborting uploads live in object-uploads.ts. The
// MultipartService applies S3's rules (5 MiB minimum part but the last, 10,000 parts, ETags checked on completion).

import { Type } from '@sinclair/typebox';
import { reportedVersionId } from '../../../core/versioning.js';
import { MAX_PART_NUMBER } from '../../../services/objects/multipart-service.js';
import { principalOf } from '../admin-principal.js';
import type { AdminApp } from '../typebox-type-provider.js';
import { BucketNameParams, Strict } from './bucket-schemas.js';
import { bucketOf, type ObjectRouteDeps } from './object-deps.js';
import { UploadResponse } from './object-schemas.js';
import { declaredLength, rawBodySchema, rawBodyScope, uploadBytes } from './raw-body.js';
import { ErrorBody } from './schemas.js';

const Key = Type.String({ minLength: 1, description: 'The object key (at most 1024 bytes of UTF-8)' });
const UploadId = Type.String({ minLength: 1, maxLength: 128 });
const PartNumber = Type.Integer({ minimum: 1, maximum: MAX_PART_NUMBER });

const StartBody = Strict({
  key: Key,
  // Served back as the Content-Type header: only characters a header value may hold (no CR, LF or controls).
  contentType: Type.Optional(
    Type.String({
      maxLength: 256,
      pattern: '^[\\t\\x20-\\x7e]*$',
      description: 'Stored with the object on completion',
    }),
  ),
});
const Started = Type.Object({ key: Type.String(), uploadId: Type.String() });
const PartQuery = Type.Object({ key: Key, uploadId: UploadId, partNumber: PartNumber });
const PartStored = Type.Object({
  partNumber: Type.Integer(),
  etag: Type.String({ description: 'Hex MD5 of the part, unquoted; send it back on completion' }),
  size: Type.Integer(),
});
const CompleteBody = Strict({
  key: Key,
  uploadId: UploadId,
  parts: Type.Array(Strict({ partNumber: PartNumber, etag: Type.String({ minLength: 1 }) }), {
    minItems: 1,
    maxItems: MAX_PART_NUMBER,
    description: 'In ascending part number order (InvalidPartOrder)',
  }),
});

const tags = ['object content'];

/** POST /buckets/:name/uploads, PUT /buckets/:name/uploads/part, POST /buckets/:name/uploads/complete. */
export function objectMultipartRoutes(app: AdminApp, deps: ObjectRouteDeps): void {
  app.post(
    '/buckets/:name/uploads',
    {
      schema: {
        operationId: 'startMultipartUpload',
        tags,
        summary: 'Start a multipart upload (for objects too large for one PUT, or sent in parallel parts)',
        params: BucketNameParams,
        body: StartBody,
        response: { 201: Started, 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody },
      },
    },
    async (req, reply) => {
      const body = req.body;
      const bucket = bucketOf(req);
      const upload = deps.multipart.create({
        bucket,
        key: body.key,
        headers: body.contentType ? { contentType: body.contentType } : {},
        userMeta: {},
      });
      deps.audit.record({
        event: 'object.upload_started',
        subject: principalOf(req).username,
        bucket,
        details: { key: body.key, uploadId: upload.uploadId },
      });
      return reply.status(201).send({ key: upload.key, uploadId: upload.uploadId });
    },
  );

  // The part's body is the raw request stream (raw-body.ts); MultipartService enforces the 5 GiB part limit.
  rawBodyScope(app, (scope) => {
    scope.put(
      '/buckets/:name/uploads/part',
      {
        schema: {
          operationId: 'uploadPart',
          tags,
          summary: 'Store the request body as one part of a multipart upload (streamed, up to 5 GiB)',
          description:
            'Sending a part number again replaces that part. Parts are not audited one by one: the start and the completion are.',
          params: BucketNameParams,
          querystring: PartQuery,
          body: rawBodySchema(),
          response: { 200: PartStored, 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody },
        },
      },
      async (req) => {
        const q = req.query;
        const part = await deps.multipart.uploadPart({
          bucket: bucketOf(req),
          key: q.key,
          uploadId: q.uploadId,
          partNumber: q.partNumber,
          body: { source: uploadBytes(req), size: declaredLength(req) },
        });
        return { partNumber: part.partNumber, etag: part.etag, size: part.size };
      },
    );
  });

  app.post(
    '/buckets/:name/uploads/complete',
    {
      schema: {
        operationId: 'completeMultipartUpload',
        tags,
        summary: 'Assemble the listed parts into the object',
        description:
          'InvalidPart (a part missing or its ETag different), InvalidPartOrder, EntityTooSmall (a part but the last under 5 MiB), NoSuchUpload.',
        params: BucketNameParams,
        body: CompleteBody,
        response: { 200: UploadResponse, 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody },
      },
    },
    async (req) => {
      const body = req.body;
      const bucket = bucketOf(req);
      const row = await deps.multipart.complete({
        bucket,
        key: body.key,
        uploadId: body.uploadId,
        parts: body.parts.map((p) => ({ partNumber: p.partNumber, etag: p.etag, checksums: {} })),
      });
      deps.audit.record({
        event: 'object.uploaded',
        subject: principalOf(req).username,
        bucket,
        details: { key: body.key, size: row.size, versionId: row.versionId, parts: body.parts.length },
      });
      const versionId = reportedVersionId(row.versionId);
      return { etag: row.etag, size: row.size, ...(versionId ? { versionId } : {}) };
    },
  );
}
