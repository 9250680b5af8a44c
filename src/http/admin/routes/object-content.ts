// An object's bytes in the admin API: raw GET (streamed, one Range), raw PUT (the request stream straight into
// ObjectService, never buffered) and DELETE, under /buckets/:name/objects with the key in the `key` query parameter.
// Presigned URLs are share links (share-links.ts).

import { Readable } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import { reportedVersionId } from '../../../core/versioning.js';
import { AppError } from '../../../core/errors.js';
import { parseRange } from '../../../core/range.js';
import { firstBytes } from '../../../lib/stream-ready.js';
import { principalOf } from '../admin-principal.js';
import type { AdminApp } from '../typebox-type-provider.js';
import { BucketNameParams, NoContent } from './bucket-schemas.js';
import { Binary, DeleteObjectQuery, ObjectKeyQuery, UploadResponse } from './object-schemas.js';
import { bucketOf, type ObjectRouteDeps } from './object-deps.js';
import { declaredLength, rawBodySchema, rawBodyScope, uploadBytes } from './raw-body.js';
import { ErrorBody } from './schemas.js';

const tags = ['object content'];

/** The response headers of a raw GET, documented for the OpenAPI document. */
const stringHeader = (description: string) => ({ type: 'string', description }) as const;
const downloadHeaders = {
  'content-type': stringHeader('The Content-Type stored with the object'),
  etag: stringHeader('Quoted hex MD5'),
  'last-modified': stringHeader('HTTP date of the write'),
  'x-amz-version-id': stringHeader('The version served'),
  'content-range': stringHeader('bytes first-last/size (206 only)'),
};
const binaryContent = (description: string) => ({
  description,
  headers: downloadHeaders,
  content: { 'application/octet-stream': { schema: Binary } },
});

/**
 * Content-Disposition for a download: always an attachment (object bytes must never render in the console's origin,
 * ARCHITECTURE "Known pitfalls"), named after the key's last segment, RFC 6266 with an ASCII fallback.
 */
export function attachmentDisposition(key: string): string {
  const name = key.slice(key.lastIndexOf('/') + 1) || 'download';
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

/** Content-MD5 decoded, when sent. Throws InvalidDigest for anything but base64 of 16 bytes, as S3 does. */
function contentMd5(req: FastifyRequest): Buffer | undefined {
  const header = req.headers['content-md5'];
  if (header === undefined) return undefined;
  const raw = String(header).trim();
  const digest = Buffer.from(raw, 'base64');
  if (digest.length !== 16 || digest.toString('base64') !== raw) throw new AppError('InvalidDigest');
  return digest;
}

export function objectContentRoutes(app: AdminApp, deps: ObjectRouteDeps): void {
  app.get(
    '/buckets/:name/objects/content',
    {
      schema: {
        operationId: 'downloadObject',
        tags,
        summary: "A version's bytes, streamed; one Range (206, or 416)",
        description:
          'Always Content-Disposition: attachment, nosniff and a sandbox CSP, so stored content never renders here.',
        params: BucketNameParams,
        querystring: ObjectKeyQuery,
        response: {
          200: binaryContent('The whole object'),
          206: binaryContent('The requested range'),
          400: ErrorBody,
          401: ErrorBody,
          404: ErrorBody,
          405: ErrorBody,
          416: ErrorBody,
          500: {
            ...ErrorBody,
            description: 'InternalError: the stored bytes cannot be read intact (the version is marked corrupt)',
          },
        },
      },
    },
    async (req, reply) => {
      const { key, versionId } = req.query;
      const opened = deps.objects.open(bucketOf(req), key, { versionId });
      const { row } = opened;
      const range = parseRange(req.headers.range, row.size);
      // HEAD (Fastify's automatic twin of this route) opens no blob: an empty stream keeps our Content-Length, where a
      // string would make Fastify's HEAD handler overwrite it, and the object's stream would be read whole and dropped.
      // A GET opens the bytes before any header is set, so a blob that cannot be read intact is a clean 500 envelope;
      // damage further in cuts the connection mid-body: never wrong bytes.
      let body: Readable | string;
      if (req.method === 'HEAD') body = Readable.from([]);
      else if (row.size === 0) body = '';
      else {
        body = opened.stream(range);
        await firstBytes(body);
      }
      void reply.headers({
        'content-type': row.headers.contentType ?? 'application/octet-stream',
        'content-length': range ? range.end - range.start + 1 : row.size,
        etag: `"${row.etag}"`,
        'last-modified': new Date(row.lastModified).toUTCString(),
        'accept-ranges': 'bytes',
        'x-amz-version-id': row.versionId,
        'content-disposition': attachmentDisposition(key),
        'x-content-type-options': 'nosniff',
        'content-security-policy': "sandbox; default-src 'none'",
      });
      if (range) void reply.status(206).header('content-range', `bytes ${range.start}-${range.end}/${row.size}`);
      return reply.send(body);
    },
  );

  // The upload's body is the raw request stream (raw-body.ts); ObjectService enforces S3's 5 GiB single-PUT limit.
  rawBodyScope(app, (scope) => {
    scope.put(
      '/buckets/:name/objects/content',
      {
        schema: {
          operationId: 'uploadObject',
          tags,
          summary: 'Store the request body as the object (streamed, up to 5 GiB)',
          description:
            'The Content-Type header is stored with the object; Content-MD5, when sent, is verified (BadDigest).',
          params: BucketNameParams,
          querystring: ObjectKeyQuery,
          body: rawBodySchema(),
          response: { 200: UploadResponse, 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody },
        },
      },
      async (req) => {
        const { key } = req.query;
        const bucket = bucketOf(req);
        const contentType = req.headers['content-type'];
        const row = await deps.objects.put({
          bucket,
          key,
          body: { source: uploadBytes(req), size: declaredLength(req), contentMd5: contentMd5(req) },
          headers: contentType ? { contentType } : {},
          userMeta: {},
        });
        const versionId = reportedVersionId(row.versionId);
        deps.audit.record({
          event: 'object.uploaded',
          subject: principalOf(req).username,
          bucket,
          details: { key, size: row.size, versionId: row.versionId },
        });
        return { etag: row.etag, size: row.size, ...(versionId ? { versionId } : {}) };
      },
    );
  });

  app.delete(
    '/buckets/:name/objects/content',
    {
      schema: {
        operationId: 'deleteObject',
        tags,
        summary: 'Delete the object (a delete marker when versioned) or one version',
        description: 'AccessDenied (403) for a version object lock protects (bypassGovernance lifts GOVERNANCE).',
        params: BucketNameParams,
        querystring: DeleteObjectQuery,
        response: { 204: NoContent, 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody },
      },
    },
    async (req, reply) => {
      const { key, versionId, bypassGovernance } = req.query;
      const bucket = bucketOf(req);
      const result = deps.objects.delete(bucket, key, { versionId, bypassGovernance: bypassGovernance ?? false });
      deps.audit.record({
        event: 'object.deleted',
        subject: principalOf(req).username,
        bucket,
        details: { key, versionId: result.versionId, deleteMarker: result.deleteMarker },
      });
      if (result.versionId !== undefined) void reply.header('x-amz-version-id', result.versionId);
      if (result.deleteMarker) void reply.header('x-amz-delete-marker', 'true');
      return reply.status(204).send();
    },
  );
}
