// Object subresources: tagging (Get/Put/DeleteObjectTagging), ACLs (Get/PutObjectAcl, kept per version) and
// GetObjectAttributes. Each addresses the latest version or one named by versionId.

import { aclsEnabled } from '../../../core/acl/ownership.js';
import { AppError } from '../../../core/errors.js';
import type { ObjectRow } from '../../../services/objects/object-service.js';
import type { ObjectOp } from '../endpoints.js';
import { headerOf, type S3Context, type S3Response } from '../context.js';
import { httpDate } from '../object-headers.js';
import { readSmallPayload } from '../request-body.js';
import { xmlResponse } from '../respond.js';
import { buildAccessControlPolicy } from '../xml/acl.js';
import { buildTagging, parseTagging } from '../xml/bucket-config.js';
import { buildObjectAttributes, type ObjectAttributesInput } from '../xml/object-attributes.js';
import { putAcl } from './acl-header.js';
import { MAX_XML_BODY_BYTES } from './buckets.js';
import { versionIdParam } from './object-params.js';

type ObjectCtx = S3Context<{ op: ObjectOp; bucket: string; key: string }>;

const body = (ctx: S3Context): Promise<Buffer> => readSmallPayload(ctx, MAX_XML_BODY_BYTES);

function target(ctx: ObjectCtx): { bucket: string; key: string; versionId: string | undefined } {
  return { bucket: ctx.endpoint.bucket, key: ctx.endpoint.key, versionId: versionIdParam(ctx) };
}

/** x-amz-version-id on subresource responses: the version acted on, except in a bucket that was never versioned. */
function versionHeader(ctx: ObjectCtx, versionId: string): Record<string, string | undefined> {
  const versioned = ctx.services.buckets.get(ctx.endpoint.bucket).versioning !== 'Unversioned';
  return { 'x-amz-version-id': versioned ? versionId : undefined };
}

export async function getObjectTagging(ctx: ObjectCtx): Promise<S3Response> {
  const { versionId, tags } = ctx.services.objects.tagging.get(target(ctx));
  return xmlResponse(buildTagging(tags), 200, versionHeader(ctx, versionId));
}

export async function putObjectTagging(ctx: ObjectCtx): Promise<S3Response> {
  const tags = parseTagging(await body(ctx), 'object');
  const versionId = ctx.services.objects.tagging.put(target(ctx), tags);
  return { status: 200, headers: versionHeader(ctx, versionId) };
}

export async function deleteObjectTagging(ctx: ObjectCtx): Promise<S3Response> {
  const versionId = ctx.services.objects.tagging.delete(target(ctx));
  return { status: 204, headers: versionHeader(ctx, versionId) };
}

/**
 * The version's ACL: the owner's FULL_CONTROL alone where the bucket's ACLs are disabled (AWS: reads "always return
 * full control for the bucket owner"), else what was stored with the version or by PutObjectAcl.
 */
export async function getObjectAcl(ctx: ObjectCtx): Promise<S3Response> {
  const { versionId, acl, bucketConfig } = ctx.services.objects.acl.get(target(ctx));
  const shown = aclsEnabled(bucketConfig.ownershipControls) ? acl : undefined;
  return xmlResponse(buildAccessControlPolicy(ctx.owner, shown), 200, versionHeader(ctx, versionId));
}

/** Sets the version's ACL from headers or an AccessControlPolicy body (handlers/acl-header.ts putAcl). */
export async function putObjectAcl(ctx: ObjectCtx): Promise<S3Response> {
  ctx.services.objects.acl.get(target(ctx));
  const requestBody = await body(ctx);
  const header = (name: string): string | undefined => headerOf(ctx.req, name);
  const versionId = ctx.services.objects.acl.put(target(ctx), (config) =>
    putAcl({ header, ownerId: ctx.owner.id, config, body: requestBody }),
  );
  return { status: 200, headers: versionHeader(ctx, versionId) };
}

const ATTRIBUTES = ['ETag', 'Checksum', 'ObjectParts', 'StorageClass', 'ObjectSize'] as const;
type Attribute = (typeof ATTRIBUTES)[number];

/** x-amz-object-attributes: a comma-separated list (repeated headers are joined). Throws InvalidArgument. */
function requestedAttributes(ctx: ObjectCtx): Set<Attribute> {
  const raw = headerOf(ctx.req, 'x-amz-object-attributes') ?? '';
  const names = raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (names.length === 0) {
    throw new AppError('InvalidArgument', {
      message:
        'The x-amz-object-attributes header specifying the attributes to be retrieved is either missing or empty',
      details: { ArgumentName: 'x-amz-object-attributes' },
    });
  }
  const out = new Set<Attribute>();
  for (const name of names) {
    const known = ATTRIBUTES.find((a) => a === name);
    if (known === undefined) {
      throw new AppError('InvalidArgument', {
        message: 'Invalid attribute name specified.',
        details: { ArgumentName: 'x-amz-object-attributes', ArgumentValue: name },
      });
    }
    out.add(known);
  }
  return out;
}

function intHeader(ctx: ObjectCtx, name: string, { fallback, max }: { fallback: number; max: number }): number {
  const raw = headerOf(ctx.req, name);
  if (raw === undefined) return fallback;
  if (!/^\d{1,10}$/.test(raw.trim()))
    throw new AppError('InvalidArgument', {
      message: `${name} must be a non-negative integer`,
      details: { ArgumentName: name },
    });
  return Math.min(Number(raw), max);
}

/**
 * GetObjectAttributes: only the attributes named; ObjectParts (paged by x-amz-max-parts / x-amz-part-number-marker) for
 * multipart objects.
 */
export async function getObjectAttributes(ctx: ObjectCtx): Promise<S3Response> {
  const wanted = requestedAttributes(ctx);
  const maxParts = intHeader(ctx, 'x-amz-max-parts', { fallback: 1000, max: 1000 });
  const marker = intHeader(ctx, 'x-amz-part-number-marker', { fallback: 0, max: 10_000 });
  const opened = ctx.services.objects.open(ctx.endpoint.bucket, ctx.endpoint.key, { versionId: versionIdParam(ctx) });
  const { row } = opened;
  const input: ObjectAttributesInput = {};
  if (wanted.has('ETag')) input.etag = row.etag;
  if (wanted.has('Checksum') && row.checksumAlgorithm && row.checksumValue) {
    input.checksum = {
      values: { [row.checksumAlgorithm]: row.checksumValue.replace(/-\d+$/, '') },
      ...(row.checksumType ? { type: row.checksumType } : {}),
    };
  }
  if (wanted.has('ObjectParts') && row.partCount !== undefined)
    input.objectParts = objectParts(row, opened.parts, { marker, maxParts });
  if (wanted.has('StorageClass')) input.storageClass = row.storageClass;
  if (wanted.has('ObjectSize')) input.objectSize = row.size;
  return xmlResponse(buildObjectAttributes(input), 200, {
    'Last-Modified': httpDate(row.lastModified),
    ...versionHeader(ctx, row.versionId),
  });
}

/**
 * The ObjectParts element. Like S3, the individual parts are listed only for objects uploaded with a checksum
 * (they carry per-part checksums); the count and paging fields are always there.
 */
function objectParts(
  row: ObjectRow,
  parts: { partNumber: number; size: number; checksum: string | undefined }[],
  { marker, maxParts }: { marker: number; maxParts: number },
): NonNullable<ObjectAttributesInput['objectParts']> {
  const after = parts.filter((p) => p.partNumber > marker);
  const page = after.slice(0, maxParts);
  const isTruncated = after.length > maxParts;
  const last = page[page.length - 1];
  const algorithm = row.checksumAlgorithm;
  return {
    partsCount: row.partCount ?? parts.length,
    partNumberMarker: marker,
    maxParts,
    isTruncated,
    ...(isTruncated && last ? { nextPartNumberMarker: last.partNumber } : {}),
    parts:
      algorithm === undefined
        ? []
        : page.map((p) => ({
            partNumber: p.partNumber,
            size: p.size,
            ...(p.checksum ? { checksums: { [algorithm]: p.checksum } } : {}),
          })),
  };
}
