// CreateMultipartUpload, UploadPart, UploadPartCopy, CompleteMultipartUpload, AbortMultipartUpload, ListParts,
// ListMultipartUploads.

import {
  CHECKSUM_ALGORITHMS,
  checksumHeader,
  parseChecksumAlgorithm,
  type ChecksumAlgorithm,
} from '../../../core/checksums.js';
import { AppError } from '../../../core/errors.js';
import { parseStorageClass } from '../../../core/storage-class.js';
import { parseCopySourceRange } from '../../../core/range.js';
import { checkReadConditions } from '../../../core/conditions.js';
import type { BucketOp, ObjectOp } from '../endpoints.js';
import { headerOf, type S3Context, type S3Response } from '../context.js';
import { copySourceConditions, parseCopySource } from '../copy-source.js';
import { readObjectHeaders, readUserMeta } from '../object-headers.js';
import { bodyInput, readSmallPayload } from '../request-body.js';
import { xmlResponse } from '../respond.js';
import {
  buildCompleteMultipartUploadResult,
  buildInitiateMultipartUploadResult,
  buildListMultipartUploadsResult,
  buildListPartsResult,
} from '../xml/multipart.js';
import { buildCopyPartResult } from '../xml/objects.js';
import { parseCompleteMultipartUpload } from '../xml/parse.js';
import { requestAcl } from './acl-header.js';
import { encodingOf } from './list.js';
import { checkSseHeaders } from '../sse-header.js';
import { MAX_COMPLETE_MULTIPART_BODY_BYTES } from './buckets.js';
import { reportedVersionId } from '../../../core/versioning.js';
import { lockHeaders, taggingHeader } from './object-params.js';

type ObjectCtx = S3Context<{ op: ObjectOp; bucket: string; key: string }>;
type BucketCtx = S3Context<{ op: BucketOp; bucket: string }>;

const SSE = { 'x-amz-server-side-encryption': 'AES256' };

function uploadIdOf(ctx: S3Context): string {
  const id = ctx.query.get('uploadId');
  if (!id) throw new AppError('NoSuchUpload');
  return id;
}

function partNumberOf(ctx: S3Context): number {
  const raw = ctx.query.get('partNumber') ?? '';
  const n = /^\d{1,5}$/.test(raw) ? Number(raw) : NaN;
  if (!(n >= 1 && n <= 10_000)) {
    throw new AppError('InvalidArgument', {
      message: 'Part number must be an integer between 1 and 10000, inclusive',
      details: { ArgumentName: 'partNumber', ArgumentValue: raw },
    });
  }
  return n;
}

function intParam(ctx: S3Context, name: string, { fallback, max }: { fallback: number; max: number }): number {
  const raw = ctx.query.get(name);
  if (raw === undefined) return fallback;
  if (!/^\d{1,10}$/.test(raw))
    throw new AppError('InvalidArgument', {
      message: `${name} must be a non-negative integer`,
      details: { ArgumentName: name },
    });
  return Math.min(Number(raw), max);
}

function checksumTypeOf(ctx: S3Context): 'COMPOSITE' | 'FULL_OBJECT' | undefined {
  const typeHeader = headerOf(ctx.req, 'x-amz-checksum-type')?.toUpperCase();
  if (typeHeader !== undefined && typeHeader !== 'COMPOSITE' && typeHeader !== 'FULL_OBJECT') {
    throw new AppError('InvalidRequest', { message: 'Value for x-amz-checksum-type header is invalid.' });
  }
  return typeHeader;
}

/**
 * The object checksum a CompleteMultipartUpload states in an x-amz-checksum-* header (it describes the object, not the
 * XML).
 */
function statedChecksum(ctx: S3Context): { algorithm: ChecksumAlgorithm; value: string } | undefined {
  const stated = CHECKSUM_ALGORITHMS.filter((alg) => ctx.req.headers[checksumHeader(alg)] !== undefined);
  if (stated.length > 1) {
    throw new AppError('InvalidRequest', {
      message: 'Expecting a single x-amz-checksum- header. Multiple checksum Types are not allowed.',
    });
  }
  const algorithm = stated[0];
  return algorithm === undefined ? undefined : { algorithm, value: headerOf(ctx.req, checksumHeader(algorithm)) ?? '' };
}

export async function createMultipartUpload(ctx: ObjectCtx): Promise<S3Response> {
  const acl = requestAcl(ctx, ctx.endpoint.bucket);
  checkSseHeaders(ctx.req);
  const algorithmHeader = headerOf(ctx.req, 'x-amz-checksum-algorithm');
  const typeHeader = checksumTypeOf(ctx);
  const upload = ctx.services.multipart.create({
    bucket: ctx.endpoint.bucket,
    key: ctx.endpoint.key,
    headers: readObjectHeaders(ctx.req),
    userMeta: readUserMeta(ctx.req),
    checksumAlgorithm: algorithmHeader === undefined ? undefined : parseChecksumAlgorithm(algorithmHeader),
    checksumType: typeHeader,
    tags: taggingHeader(ctx),
    lock: lockHeaders(ctx),
    storageClass: parseStorageClass(headerOf(ctx.req, 'x-amz-storage-class')),
    acl,
  });
  return xmlResponse(
    buildInitiateMultipartUploadResult({ bucket: upload.bucket, key: upload.key, uploadId: upload.uploadId }),
    200,
    {
      ...SSE,
      'x-amz-checksum-algorithm': upload.checksumAlgorithm,
      'x-amz-checksum-type': upload.checksumType,
    },
  );
}

export async function uploadPart(ctx: ObjectCtx): Promise<S3Response> {
  checkSseHeaders(ctx.req);
  const part = await ctx.services.multipart.uploadPart({
    bucket: ctx.endpoint.bucket,
    key: ctx.endpoint.key,
    uploadId: uploadIdOf(ctx),
    partNumber: partNumberOf(ctx),
    body: bodyInput(ctx.req, ctx.auth),
  });
  const headers: Record<string, string> = { ETag: `"${part.etag}"`, ...SSE };
  for (const [alg, value] of Object.entries(part.checksums)) headers[`x-amz-checksum-${alg.toLowerCase()}`] = value;
  return { status: 200, headers };
}

export async function uploadPartCopy(ctx: ObjectCtx): Promise<S3Response> {
  const uploadId = uploadIdOf(ctx);
  const partNumber = partNumberOf(ctx);
  ctx.services.multipart.getUpload(ctx.endpoint.bucket, ctx.endpoint.key, uploadId);
  const source = parseCopySource(ctx.req);
  const opened = ctx.services.objects.openCopySource(source);
  checkReadConditions(copySourceConditions(ctx.req), opened.row, true);
  const rangeHeader = headerOf(ctx.req, 'x-amz-copy-source-range');
  const range = rangeHeader === undefined ? undefined : parseCopySourceRange(rangeHeader, opened.row.size);
  const size = range ? range.end - range.start + 1 : opened.row.size;
  const part = await ctx.services.multipart.uploadPartCopy({
    bucket: ctx.endpoint.bucket,
    key: ctx.endpoint.key,
    uploadId,
    partNumber,
    source: { stream: () => opened.stream(range), size },
  });
  return xmlResponse(
    buildCopyPartResult({ etag: part.etag, lastModified: new Date(part.lastModified), checksums: part.checksums }),
    200,
    { ...SSE, 'x-amz-copy-source-version-id': reportedVersionId(opened.row.versionId) },
  );
}

export async function completeMultipartUpload(ctx: ObjectCtx): Promise<S3Response> {
  const uploadId = uploadIdOf(ctx);
  const body = await readSmallPayload(ctx, MAX_COMPLETE_MULTIPART_BODY_BYTES, { checksumHeaders: 'object' });
  const request = parseCompleteMultipartUpload(body);
  const row = await ctx.services.multipart.complete({
    bucket: ctx.endpoint.bucket,
    key: ctx.endpoint.key,
    uploadId,
    parts: request.parts,
    expectedChecksum: statedChecksum(ctx),
    expectedChecksumType: checksumTypeOf(ctx),
    conditions: { ifMatch: headerOf(ctx.req, 'if-match'), ifNoneMatch: headerOf(ctx.req, 'if-none-match') },
  });
  const host = headerOf(ctx.req, 'host') ?? 'localhost';
  const path = (ctx.req.url ?? '').split('?')[0] ?? '';
  return xmlResponse(
    buildCompleteMultipartUploadResult({
      location: `http://${host}${path}`,
      bucket: row.bucket,
      key: row.key,
      etag: row.etag,
      ...(row.checksumAlgorithm && row.checksumValue
        ? {
            checksums: { [row.checksumAlgorithm]: row.checksumValue },
            ...(row.checksumType ? { checksumType: row.checksumType } : {}),
          }
        : {}),
    }),
    200,
    { ...SSE, 'x-amz-version-id': reportedVersionId(row.versionId) },
  );
}

export async function abortMultipartUpload(ctx: ObjectCtx): Promise<S3Response> {
  ctx.services.multipart.abort(ctx.endpoint.bucket, ctx.endpoint.key, uploadIdOf(ctx));
  return { status: 204 };
}

export async function listParts(ctx: ObjectCtx): Promise<S3Response> {
  const uploadId = uploadIdOf(ctx);
  const marker = intParam(ctx, 'part-number-marker', { fallback: 0, max: 10_000 });
  const maxParts = intParam(ctx, 'max-parts', { fallback: 1000, max: 1000 });
  const { upload, parts, isTruncated } = ctx.services.multipart.listParts(
    { bucket: ctx.endpoint.bucket, key: ctx.endpoint.key, uploadId },
    { afterPart: marker, maxParts },
  );
  const last = parts[parts.length - 1];
  return xmlResponse(
    buildListPartsResult({
      bucket: upload.bucket,
      key: upload.key,
      uploadId,
      partNumberMarker: marker,
      maxParts,
      isTruncated,
      ...(isTruncated && last ? { nextPartNumberMarker: last.partNumber } : {}),
      parts: parts.map((p) => ({
        partNumber: p.partNumber,
        lastModified: new Date(p.lastModified),
        etag: p.etag,
        size: p.size,
        checksums: p.checksums,
      })),
      initiator: ctx.owner,
      owner: ctx.owner,
      storageClass: upload.storageClass,
      ...(upload.checksumAlgorithm ? { checksumAlgorithm: parseChecksumAlgorithm(upload.checksumAlgorithm) } : {}),
      ...(upload.checksumType ? { checksumType: upload.checksumType } : {}),
    }),
  );
}

export async function listMultipartUploads(ctx: BucketCtx): Promise<S3Response> {
  const keyMarker = ctx.query.get('key-marker') ?? '';
  const uploadIdMarker = ctx.query.get('upload-id-marker') ?? '';
  const prefix = ctx.query.get('prefix') ?? '';
  const delimiter = ctx.query.get('delimiter') ?? '';
  const encodingType = encodingOf(ctx);
  const maxUploads = intParam(ctx, 'max-uploads', { fallback: 1000, max: 1000 });
  const page = ctx.services.multipart.listUploads(ctx.endpoint.bucket, {
    prefix,
    delimiter,
    keyMarker,
    uploadIdMarker,
    maxUploads,
  });
  return xmlResponse(
    buildListMultipartUploadsResult({
      bucket: ctx.endpoint.bucket,
      keyMarker,
      uploadIdMarker,
      prefix,
      delimiter,
      maxUploads,
      isTruncated: page.isTruncated,
      ...(page.isTruncated ? { nextKeyMarker: page.nextKeyMarker, nextUploadIdMarker: page.nextUploadIdMarker } : {}),
      uploads: page.uploads.map((u) => ({
        key: u.key,
        uploadId: u.uploadId,
        initiated: new Date(u.initiated),
        owner: ctx.owner,
        storageClass: u.storageClass,
      })),
      commonPrefixes: page.commonPrefixes,
      ...(encodingType ? { encodingType } : {}),
    }),
  );
}
