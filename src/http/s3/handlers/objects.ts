// PutObject, GetObject, HeadObject, DeleteObject (with versions, tags and object lock).

import { Readable } from 'node:stream';
import { checkReadConditions } from '../../../core/conditions.js';
import { AppError, isAppError } from '../../../core/errors.js';
import { parseStorageClass } from '../../../core/storage-class.js';
import { asHeaderBytes, isHeaderValue } from '../../../core/header-text.js';
import { parseRange } from '../../../core/range.js';
import { firstBytes } from '../../../lib/stream-ready.js';
import type { BucketOp, ObjectOp } from '../endpoints.js';
import { headerOf, type S3Context, type S3Response } from '../context.js';
import { bodyInput } from '../request-body.js';
import { httpDate, objectHeaders, readObjectHeaders, readUserMeta } from '../object-headers.js';
import type { ObjectRow, OpenedObject } from '../../../services/objects/object-service.js';
import { requestAcl } from './acl-header.js';
import { checkSseHeaders } from '../sse-header.js';
import { isAnonymous } from '../authenticate.js';
import { OBJECT_SAFETY_HEADERS } from '../content-safety.js';
import { reportedVersionId } from '../../../core/versioning.js';
import { bypassGovernance, lockHeaders, taggingHeader, versionIdParam, versionStateHeaders } from './object-params.js';

type ObjectCtx = S3Context<{ op: ObjectOp; bucket: string; key: string }>;
export type { BucketOp };

/** response-* query overrides of GetObject (https://docs.aws.amazon.com/AmazonS3/latest/API/API_GetObject.html). */
const RESPONSE_OVERRIDES: Record<string, string> = {
  'response-content-type': 'Content-Type',
  'response-content-language': 'Content-Language',
  'response-expires': 'Expires',
  'response-cache-control': 'Cache-Control',
  'response-content-disposition': 'Content-Disposition',
  'response-content-encoding': 'Content-Encoding',
};

function isVersioned(ctx: S3Context, bucket: string): boolean {
  return ctx.services.buckets.get(bucket).versioning !== 'Unversioned';
}

export async function putObject(ctx: ObjectCtx): Promise<S3Response> {
  const { bucket, key } = ctx.endpoint;
  const acl = requestAcl(ctx, bucket);
  checkSseHeaders(ctx.req);
  const row = await ctx.services.objects.put({
    acl,
    bucket,
    key,
    body: bodyInput(ctx.req, ctx.auth),
    headers: readObjectHeaders(ctx.req),
    userMeta: readUserMeta(ctx.req),
    conditions: { ifMatch: headerOf(ctx.req, 'if-match'), ifNoneMatch: headerOf(ctx.req, 'if-none-match') },
    tags: taggingHeader(ctx),
    lock: lockHeaders(ctx),
    storageClass: parseStorageClass(headerOf(ctx.req, 'x-amz-storage-class')),
  });
  const headers: Record<string, string | undefined> = {
    ETag: `"${row.etag}"`,
    'x-amz-server-side-encryption': 'AES256',
    'x-amz-version-id': reportedVersionId(row.versionId),
  };
  if (row.checksumAlgorithm && row.checksumValue) {
    headers[`x-amz-checksum-${row.checksumAlgorithm.toLowerCase()}`] = row.checksumValue;
    headers['x-amz-checksum-type'] = row.checksumType;
  }
  return { status: 200, headers };
}

/** GetObject and HeadObject: conditional headers, single ranges (206/416), partNumber, response-* overrides. */
export async function getObject(ctx: ObjectCtx): Promise<S3Response> {
  const { bucket, key } = ctx.endpoint;
  let opened = ctx.services.objects.open(bucket, key, { versionId: versionIdParam(ctx) });
  checkConditions(ctx, opened.row);
  const isHead = ctx.req.method === 'HEAD';
  if (opened.row.tierState === 'stub' && !isHead && opened.row.size > 0) {
    const tiered = await readThrough(ctx, opened.row);
    if (tiered.redirect !== undefined) return tiered.redirect;
    opened = tiered.opened;
  }
  const { row } = opened;
  const partNumber = ctx.query.get('partNumber');
  let range = partNumber === undefined ? parseRange(headerOf(ctx.req, 'range'), row.size) : undefined;
  // The stored checksum covers the whole object: a range or part of it is served without one (as S3 does), or a
  // client validating it (the SDK asks for checksums on every GET) would reject correct bytes.
  const headers = objectHeaders(row, {
    checksums:
      headerOf(ctx.req, 'x-amz-checksum-mode')?.toUpperCase() === 'ENABLED' &&
      partNumber === undefined &&
      range === undefined,
    versioned: isVersioned(ctx, bucket),
  });
  Object.assign(headers, versionStateHeaders(row));
  headers['x-amz-restore'] = restoreHeader(ctx, row);
  if (partNumber !== undefined) {
    range = partRange(opened.parts, row.size, partNumber);
    headers['x-amz-mp-parts-count'] = row.partCount ?? 1;
  }
  for (const [param, header] of Object.entries(RESPONSE_OVERRIDES)) {
    const value = ctx.query.get(param);
    if (value === undefined) continue;
    // As AWS: an override is for the holder of a signature (a presigned URL), never for anyone with the address
    // (https://docs.aws.amazon.com/AmazonS3/latest/API/API_GetObject.html, "Overriding response header values").
    if (isAnonymous(ctx.auth)) {
      throw new AppError('InvalidRequest', {
        message: 'Request specific response headers cannot be used for anonymous GET requests.',
      });
    }
    // Sent as a header: its UTF-8 bytes, and never a CR, LF or other control (Node would refuse it: a 500).
    const text = asHeaderBytes(value);
    if (!isHeaderValue(text)) {
      throw new AppError('InvalidArgument', {
        message: `${param} holds characters an HTTP header cannot carry.`,
        details: { ArgumentName: param },
      });
    }
    headers[header] = text;
  }
  // The console may share this origin: no stored object may run script here, whatever its type (content-safety.ts).
  Object.assign(headers, OBJECT_SAFETY_HEADERS);
  let status = 200;
  if (range) {
    status = 206;
    headers['Content-Range'] = `bytes ${range.start}-${range.end}/${row.size}`;
  }
  headers['Content-Length'] = range ? range.end - range.start + 1 : row.size;
  if (isHead || row.size === 0) return { status, headers, body: undefined };
  // Bytes that cannot be read intact (a missing or damaged blob) fail here, before any status is sent, as a 500;
  // damage further in fails the stream mid-body and the connection is cut (respond.ts): never wrong bytes.
  const body = await opened.body(range);
  if (body instanceof Readable) await firstBytes(body);
  return { status, headers, body };
}

/**
 * GET of a tiered stub (docs/replication.md "Tiering"): rehydrated and reopened locally, or a 307 to a presigned
 * remote URL for objects above STORE_TIER_INLINE_MAX_BYTES. Throws InvalidObjectState (tiering off), SlowDown
 * (read-through timeout; the stub is intact), ServiceUnavailable, InternalError.
 */
async function readThrough(
  ctx: ObjectCtx,
  row: ObjectRow,
): Promise<{ redirect: S3Response; opened?: never } | { redirect?: never; opened: OpenedObject }> {
  const tiering = ctx.services.tiering;
  if (!tiering)
    throw new AppError('InvalidObjectState', {
      message: 'The object is tiered to the remote target and tiering is not enabled.',
    });
  const answer = await tiering.readThrough(row);
  if (answer.kind === 'redirect') {
    return {
      redirect: {
        status: 307,
        headers: { Location: answer.url, 'x-amz-storage-class': row.storageClass, 'Content-Length': 0 },
      },
    };
  }
  const opened = ctx.services.objects.open(row.bucket, row.key, { versionId: row.versionId });
  // Made a stub again between the flip and this read (a very short restore): the client retries.
  if (opened.row.tierState === 'stub') throw new AppError('SlowDown', { headers: { 'Retry-After': '1' } });
  return { opened };
}

/** x-amz-restore for a tiered version: a restore in progress, or until when a restored copy stays local. */
function restoreHeader(ctx: ObjectCtx, row: ObjectRow): string | undefined {
  if (row.tierState === 'restored' && row.tierRestoredUntil !== undefined) {
    return `ongoing-request="false", expiry-date="${httpDate(row.tierRestoredUntil)}"`;
  }
  if (row.tierState === 'stub' && ctx.services.tiering?.isRestoring(row.id)) return 'ongoing-request="true"';
  return undefined;
}

/**
 * Throws PreconditionFailed or NotModified. A 304 carries the validators a 200 would have had (RFC 9110 15.4.5),
 * so caches can refresh their copy.
 */
function checkConditions(ctx: ObjectCtx, row: ObjectRow): void {
  const conditions = {
    ifMatch: headerOf(ctx.req, 'if-match'),
    ifNoneMatch: headerOf(ctx.req, 'if-none-match'),
    ifModifiedSince: headerOf(ctx.req, 'if-modified-since'),
    ifUnmodifiedSince: headerOf(ctx.req, 'if-unmodified-since'),
  };
  try {
    checkReadConditions(conditions, row);
  } catch (err) {
    if (!isAppError(err) || err.code !== 'NotModified') throw err;
    throw new AppError('NotModified', {
      details: err.details,
      headers: { ETag: `"${row.etag}"`, 'Last-Modified': httpDate(row.lastModified) },
    });
  }
}

/** The byte range of part N of a multipart object (a whole non-multipart object is its own part 1). */
function partRange(parts: { size: number }[], size: number, raw: string): { start: number; end: number } | undefined {
  const n = Number(raw);
  const count = Math.max(parts.length, 1);
  if (!/^\d+$/.test(raw) || n < 1 || n > 10_000) {
    throw new AppError('InvalidArgument', {
      message: 'Part number must be an integer between 1 and 10000, inclusive',
      details: { ArgumentName: 'partNumber' },
    });
  }
  if (n > count) throw new AppError('InvalidPartNumber');
  if (parts.length === 0) return size === 0 ? undefined : { start: 0, end: size - 1 };
  let start = 0;
  for (let i = 0; i < n - 1; i++) start += (parts[i] as { size: number }).size;
  const partSize = (parts[n - 1] as { size: number }).size;
  return partSize === 0 ? undefined : { start, end: start + partSize - 1 };
}

export async function deleteObject(ctx: ObjectCtx): Promise<S3Response> {
  const { bucket, key } = ctx.endpoint;
  const result = ctx.services.objects.delete(bucket, key, {
    versionId: versionIdParam(ctx),
    bypassGovernance: bypassGovernance(ctx),
  });
  return {
    status: 204,
    headers: {
      'x-amz-version-id': result.versionId,
      'x-amz-delete-marker': result.deleteMarker ? 'true' : undefined,
    },
  };
}
