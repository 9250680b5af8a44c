// Share links: presigned S3 URLs, each signed by an access key created for it alone (ShareLinkService), for the scheme
// and host the admin request came to, under MOUNT_PATH. POST /buckets/:name/objects/presign creates one (read-only
// admins too, for GET), GET /share-links lists them (full admins all, read-only admins their own) and
// DELETE /share-links/:id revokes one: its key is deleted, so the URL fails at once.

import type { Static } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { AppError } from '../../../core/errors.js';
import { validateObjectKey } from '../../../core/names.js';
import type { ShareLink, ShareLinkService, ShareViewer } from '../../../services/identity/share-link-service.js';
import { uriEncode } from '../../../sigv4/canonical.js';
import { presignUrl } from '../../../sigv4/sign.js';
import { principalOf } from '../admin-principal.js';
import type { AdminApp } from '../typebox-type-provider.js';
import { BucketNameParams, NoContent } from './bucket-schemas.js';
import { bucketOf, type ObjectRouteDeps } from './object-deps.js';
import {
  PresignBody,
  PresignResponse,
  ShareLinkList,
  ShareLinkParams,
  ShareLinkQuery,
  ShareLinkView,
} from './object-schemas.js';
import { ErrorBody } from './schemas.js';

const tags = ['share links'];

/**
 * The scheme and host the admin request came to: what a presigned URL must name for the caller to reach the S3 plane.
 */
function origin(req: FastifyRequest): string {
  const host = req.headers.host;
  if (!host) throw new AppError('ValidationError', { message: 'host: the request has no Host header to presign for' });
  // X-Forwarded-Proto from a TLS-terminating proxy (SPEC "Reverse-proxy rules"); the scheme is not signed, so a wrong
  // value only yields a URL its own caller cannot use.
  const forwarded = String(req.headers['x-forwarded-proto'] ?? '')
    .split(',')[0]
    ?.trim()
    .toLowerCase();
  const scheme = forwarded === 'https' || forwarded === 'http' ? forwarded : req.protocol;
  return `${scheme}://${host}`;
}

function viewerOf(req: FastifyRequest): ShareViewer {
  const admin = principalOf(req);
  return { username: admin.username, isFullAdmin: admin.role === 'full-admin' };
}

const view = (link: ShareLink): Static<typeof ShareLinkView> => ({
  id: link.accessKeyId,
  bucket: link.bucket,
  key: link.key,
  versionId: link.versionId ?? null,
  method: link.method,
  createdBy: link.createdBy,
  createdAt: new Date(link.createdAt).toISOString(),
  expiresAt: new Date(link.expiresAt).toISOString(),
});

export function shareLinkRoutes(app: AdminApp, deps: ObjectRouteDeps): void {
  // Read per request: the routes are also built without services (the OpenAPI test).
  const shares = (): ShareLinkService => deps.presign.shares;

  app.post(
    '/buckets/:name/objects/presign',
    {
      config: { ownGrants: true },
      schema: {
        operationId: 'presignObjectUrl',
        tags,
        summary: 'Create a share link: a presigned S3 URL to GET or PUT one object',
        description:
          'Signed (SigV4, query authentication) by an access key created for this link alone, allowed only this ' +
          'method on this object and expiring with the URL; for the scheme and host of this request, under ' +
          'MOUNT_PATH. Listed under /share-links and revocable there. Read-only admins may create GET links to ' +
          'objects that exist; PUT links need a full admin (Forbidden).',
        params: BucketNameParams,
        body: PresignBody,
        response: { 200: PresignResponse, 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody },
      },
    },
    async (req) => {
      const body = req.body;
      const viewer = viewerOf(req);
      if (body.method === 'PUT' && !viewer.isFullAdmin) {
        throw new AppError('Forbidden', { message: 'A read-only admin can create only GET (download) links' });
      }
      const bucket = deps.buckets.get(bucketOf(req)).name;
      validateObjectKey(body.key);
      // A download link to something that is not there would only ever answer 404: refuse it now (NoSuchKey,
      // NoSuchVersion). This reads metadata only; no bytes are opened.
      if (body.method === 'GET') deps.objects.open(bucket, body.key, { versionId: body.versionId });
      const issued = shares().create({
        bucket,
        key: body.key,
        versionId: body.method === 'GET' ? body.versionId : undefined,
        method: body.method,
        expiresIn: body.expiresIn,
        createdBy: viewer.username,
      });
      const now = deps.presign.now?.() ?? new Date();
      // Each key segment encoded as the S3 plane canonicalises it; `rawPath` keeps `.` and `..` segments, which URL
      // parsing would remove, in the signed path.
      const rawPath = `${deps.presign.mountPath}/${bucket}/${body.key.split('/').map(uriEncode).join('/')}`;
      const query =
        body.method === 'GET' && body.versionId !== undefined ? `?versionId=${uriEncode(body.versionId)}` : '';
      const base = origin(req);
      const signed = presignUrl({
        method: body.method,
        url: new URL(`${base}${rawPath}${query}`),
        rawPath,
        accessKeyId: issued.link.accessKeyId,
        secretAccessKey: issued.secretAccessKey,
        region: deps.presign.region,
        expiresSeconds: body.expiresIn,
        now,
      });
      deps.audit.record({
        event: 'object.presigned',
        subject: viewer.username,
        bucket,
        details: { key: body.key, method: body.method, expiresIn: body.expiresIn, shareId: issued.link.accessKeyId },
      });
      return {
        id: issued.link.accessKeyId,
        url: `${base}${rawPath}${signed.search}`,
        method: body.method,
        expiresAt: new Date(issued.link.expiresAt).toISOString(),
      };
    },
  );

  app.get(
    '/share-links',
    {
      schema: {
        operationId: 'listShareLinks',
        tags,
        summary: 'Live share links, newest first: all for a full admin, their own for a read-only admin',
        querystring: ShareLinkQuery,
        response: { 200: ShareLinkList, 400: ErrorBody, 401: ErrorBody },
      },
    },
    async (req) => ({ items: shares().list(viewerOf(req), req.query).map(view) }),
  );

  app.delete(
    '/share-links/:id',
    {
      config: { ownGrants: true },
      schema: {
        operationId: 'revokeShareLink',
        tags,
        summary: 'Revoke a share link: its key is deleted and the URL fails at once',
        description: 'Full admins revoke any link; read-only admins only their own (Forbidden otherwise).',
        params: ShareLinkParams,
        response: { 204: NoContent, 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody },
      },
    },
    async (req, reply) => {
      const viewer = viewerOf(req);
      const link = shares().revoke(req.params.id, viewer);
      deps.audit.record({
        event: 'share.revoked',
        subject: viewer.username,
        bucket: link.bucket,
        details: { key: link.key, method: link.method, shareId: link.accessKeyId },
      });
      return reply.status(204).send();
    },
  );
}
