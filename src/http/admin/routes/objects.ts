// Objects in the admin API, under /buckets/:name/objects: browse (prefix, delimiter, cursor), versions, one
// object's metadata, and batch delete, plus the per-object settings (object-settings.ts) and the bytes themselves
// with presigned URLs (object-content.ts). Listing, deletes and object lock are the S3 plane's own services.

import { fromHeaderBytes } from '../../../core/header-text.js';
import { ALLOW_EVERY_KEY } from '../../../services/objects/delete-authorizer.js';
import { principalOf } from '../admin-principal.js';
import type { AdminApp } from '../typebox-type-provider.js';
import { BucketNameParams } from './bucket-schemas.js';
import { decodeCursor, encodeCursor } from './cursor.js';
import { objectContentRoutes } from './object-content.js';
import { shareLinkRoutes } from './share-links.js';
import { objectCopyRoutes } from './object-copy.js';
import { bucketEmptyRoutes } from './bucket-empty.js';
import { objectMetadataRoutes } from './object-metadata.js';
import { objectSummaryRoutes } from './object-summary.js';
import { objectTransferRoutes } from './object-transfer.js';
import { bucketOf, type ObjectRouteDeps, type PresignDeps } from './object-deps.js';
import {
  BatchDeleteBody,
  BatchDeleteResponse,
  BrowsePage,
  BrowseQuery,
  ObjectInfo,
  ObjectKeyQuery,
  VersionsPageSchema,
  VersionsQuery,
} from './object-schemas.js';
import { objectMultipartRoutes } from './object-multipart.js';
import { objectSettingsRoutes } from './object-settings.js';
import { objectUploadsRoutes } from './object-uploads.js';
import { ErrorBody } from './schemas.js';

export type { ObjectRouteDeps, PresignDeps };

const tags = ['objects'];
const iso = (ms: number): string => new Date(ms).toISOString();

/** Every route under /buckets/:name/objects, and /buckets/:name/uploads. */
export function objectsRoutes(app: AdminApp, deps: ObjectRouteDeps): void {
  app.get(
    '/buckets/:name/objects',
    {
      schema: {
        operationId: 'browseObjects',
        tags,
        summary: 'Current objects by prefix, rolled up at a delimiter, one page at a time',
        params: BucketNameParams,
        querystring: BrowseQuery,
        response: { 200: BrowsePage, 400: ErrorBody, 401: ErrorBody, 404: ErrorBody },
      },
    },
    async (req) => {
      const q = req.query;
      const page = deps.listing.list({
        bucket: bucketOf(req),
        prefix: q.prefix,
        delimiter: q.delimiter,
        maxKeys: q.limit,
        after: q.cursor === undefined ? '' : decodeCursor(q.cursor).k,
      });
      return {
        objects: page.objects.map((o) => ({
          key: o.key,
          size: o.size,
          etag: o.etag,
          lastModified: iso(o.lastModified),
          storageClass: o.storageClass,
        })),
        prefixes: page.commonPrefixes,
        ...(page.isTruncated && page.last !== undefined ? { nextCursor: encodeCursor({ k: page.last }) } : {}),
      };
    },
  );

  app.get(
    '/buckets/:name/objects/versions',
    {
      schema: {
        operationId: 'listObjectVersions',
        tags,
        summary: 'Every version and delete marker, by key and newest first',
        params: BucketNameParams,
        querystring: VersionsQuery,
        response: { 200: VersionsPageSchema, 400: ErrorBody, 401: ErrorBody, 404: ErrorBody },
      },
    },
    async (req) => {
      const q = req.query;
      const cursor = q.cursor === undefined ? undefined : decodeCursor(q.cursor);
      const page = deps.listing.listVersions({
        bucket: bucketOf(req),
        prefix: q.prefix,
        delimiter: q.delimiter,
        maxKeys: q.limit,
        keyMarker: cursor?.k ?? '',
        versionIdMarker: cursor?.v ?? '',
      });
      return {
        versions: page.versions.map((v) => ({
          key: v.key,
          versionId: v.versionId,
          isLatest: v.isLatest,
          isDeleteMarker: v.isDeleteMarker,
          size: v.size,
          etag: v.etag,
          lastModified: iso(v.lastModified),
          storageClass: v.storageClass,
        })),
        prefixes: page.commonPrefixes,
        ...(page.isTruncated && page.nextKeyMarker !== undefined
          ? { nextCursor: encodeCursor({ k: page.nextKeyMarker, v: page.nextVersionIdMarker }) }
          : {}),
      };
    },
  );

  app.get(
    '/buckets/:name/objects/info',
    {
      schema: {
        operationId: 'getObjectInfo',
        tags,
        summary: "One version's metadata, tags and lock state (no bytes)",
        params: BucketNameParams,
        querystring: ObjectKeyQuery,
        response: { 200: ObjectInfo, 400: ErrorBody, 401: ErrorBody, 404: ErrorBody, 405: ErrorBody },
      },
    },
    async (req) => {
      const { key, versionId } = req.query;
      const { row } = deps.objects.open(bucketOf(req), key, { versionId });
      return {
        key: row.key,
        versionId: row.versionId,
        isLatest: row.isLatest,
        size: row.size,
        etag: row.etag,
        // Stored as the header bytes clients sent; shown as the UTF-8 text they spell.
        lastModified: iso(row.lastModified),
        storageClass: row.storageClass,
        ...textOf(row.headers),
        userMetadata: textOf(row.userMeta),
        partCount: row.partCount,
        checksum:
          row.checksumAlgorithm && row.checksumValue
            ? { algorithm: row.checksumAlgorithm, value: row.checksumValue, type: row.checksumType }
            : undefined,
        tags: row.tags ?? [],
        retention: row.retention,
        legalHold: row.legalHold ?? false,
      };
    },
  );

  app.post(
    '/buckets/:name/objects/delete',
    {
      schema: {
        operationId: 'deleteObjects',
        tags,
        summary: 'Delete up to 1000 objects or versions, each reported on its own',
        description:
          'As S3 DeleteObjects: a version object lock protects is reported as AccessDenied and the others still go.',
        params: BucketNameParams,
        body: BatchDeleteBody,
        response: { 200: BatchDeleteResponse, 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody },
      },
    },
    async (req) => {
      const body = req.body;
      const bucket = bucketOf(req);
      // The role guard authorized the whole request: an admin may delete every key (object lock still applies).
      const outcomes = deps.objects.deleteBatch(bucket, body.keys, {
        bypassGovernance: body.bypassGovernance ?? false,
        authorize: ALLOW_EVERY_KEY,
      });
      const results = outcomes.map((o) =>
        o.ok
          ? {
              key: o.item.key,
              versionId: o.item.versionId,
              ok: true,
              ...(o.result.deleteMarker ? { deleteMarker: true, deleteMarkerVersionId: o.result.versionId } : {}),
            }
          : { key: o.item.key, versionId: o.item.versionId, ok: false, error: o.code, message: o.message },
      );
      const deleted = results.filter((r) => r.ok).length;
      if (deleted > 0) {
        deps.audit.record({
          event: 'object.batch_deleted',
          subject: principalOf(req).username,
          bucket,
          details: {
            count: deleted,
            failed: results.length - deleted,
            bypassGovernance: body.bypassGovernance ?? false,
          },
        });
      }
      return { deleted, failed: results.length - deleted, results };
    },
  );

  objectSettingsRoutes(app, deps);
  objectContentRoutes(app, deps);
  shareLinkRoutes(app, deps);
  objectUploadsRoutes(app, deps);
  objectMultipartRoutes(app, deps);
  objectCopyRoutes(app, deps);
  objectTransferRoutes(app, deps);
  objectMetadataRoutes(app, deps);
  objectSummaryRoutes(app, deps);
  bucketEmptyRoutes(app, deps);
}

/** Header-form values as the text they spell (core/header-text.ts fromHeaderBytes). */
function textOf<T extends { [K in keyof T]?: string | undefined }>(values: T): T {
  const entries = Object.entries(values as Record<string, string | undefined>);
  return Object.fromEntries(entries.map(([k, v]) => [k, v === undefined ? v : fromHeaderBytes(v)])) as T;
}
