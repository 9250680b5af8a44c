// ListObjects (v1) and ListObjectsV2, and the parameter readers ListObjectVersions shares.

import { AppError } from '../../../core/errors.js';
import type { ListPage } from '../../../services/objects/listing-service.js';
import type { BucketOp } from '../endpoints.js';
import type { S3Context, S3Response } from '../context.js';
import { xmlResponse } from '../respond.js';
import { buildListObjectsV1Result, buildListObjectsV2Result, type ObjectSummary } from '../xml/list-objects.js';

type BucketCtx = S3Context<{ op: BucketOp; bucket: string }>;

/** max-keys (default and cap 1000). Throws InvalidArgument for a value that is not a non-negative integer. */
export function maxKeysOf(ctx: S3Context): number {
  const raw = ctx.query.get('max-keys');
  if (raw === undefined) return 1000;
  if (!/^\d{1,10}$/.test(raw)) {
    throw new AppError('InvalidArgument', {
      message: 'Provided max-keys not an integer or within integer range',
      details: { ArgumentName: 'max-keys', ArgumentValue: raw },
    });
  }
  return Math.min(Number(raw), 1000);
}

/** encoding-type: only `url`. Throws InvalidArgument otherwise. */
export function encodingOf(ctx: S3Context): 'url' | undefined {
  const raw = ctx.query.get('encoding-type');
  if (raw === undefined) return undefined;
  if (raw.toLowerCase() !== 'url') {
    throw new AppError('InvalidArgument', {
      message: 'Invalid Encoding Method specified in Request',
      details: { ArgumentName: 'encoding-type' },
    });
  }
  return 'url';
}

function summaries(page: ListPage, owner?: S3Context['owner']): ObjectSummary[] {
  return page.objects.map((o) => ({
    key: o.key,
    lastModified: new Date(o.lastModified),
    etag: o.etag,
    size: o.size,
    storageClass: o.storageClass,
    ...(o.checksumAlgorithm ? { checksumAlgorithm: o.checksumAlgorithm } : {}),
    ...(owner ? { owner } : {}),
  }));
}

export async function listObjects(ctx: BucketCtx): Promise<S3Response> {
  const prefix = ctx.query.get('prefix') ?? '';
  const delimiter = ctx.query.get('delimiter') ?? '';
  const marker = ctx.query.get('marker') ?? '';
  const maxKeys = maxKeysOf(ctx);
  const encodingType = encodingOf(ctx);
  const page = ctx.services.listing.list({ bucket: ctx.endpoint.bucket, prefix, delimiter, after: marker, maxKeys });
  return xmlResponse(
    buildListObjectsV1Result({
      bucket: ctx.endpoint.bucket,
      prefix,
      delimiter,
      maxKeys,
      marker,
      isTruncated: page.isTruncated,
      contents: summaries(page, ctx.owner),
      commonPrefixes: page.commonPrefixes,
      ...(encodingType ? { encodingType } : {}),
      ...(page.isTruncated && delimiter && page.last !== undefined ? { nextMarker: page.last } : {}),
    }),
  );
}

/** Continuation tokens are opaque to clients: base64url of the key (or common prefix) the page ended on. */
function decodeToken(token: string): string {
  if (!/^[A-Za-z0-9_-]+$/.test(token)) {
    throw new AppError('InvalidArgument', {
      message: 'The continuation token provided is incorrect',
      details: { ArgumentName: 'continuation-token' },
    });
  }
  return Buffer.from(token, 'base64url').toString('utf8');
}

export async function listObjectsV2(ctx: BucketCtx): Promise<S3Response> {
  const prefix = ctx.query.get('prefix') ?? '';
  const delimiter = ctx.query.get('delimiter') ?? '';
  const startAfter = ctx.query.get('start-after');
  const token = ctx.query.get('continuation-token');
  const maxKeys = maxKeysOf(ctx);
  const encodingType = encodingOf(ctx);
  const fetchOwner = ctx.query.get('fetch-owner') === 'true';
  const after = token !== undefined ? decodeToken(token) : (startAfter ?? '');
  const page = ctx.services.listing.list({ bucket: ctx.endpoint.bucket, prefix, delimiter, after, maxKeys });
  return xmlResponse(
    buildListObjectsV2Result({
      bucket: ctx.endpoint.bucket,
      prefix,
      delimiter,
      maxKeys,
      isTruncated: page.isTruncated,
      contents: summaries(page, fetchOwner ? ctx.owner : undefined),
      commonPrefixes: page.commonPrefixes,
      fetchOwner,
      ...(encodingType ? { encodingType } : {}),
      ...(token !== undefined ? { continuationToken: token } : {}),
      ...(startAfter !== undefined ? { startAfter } : {}),
      ...(page.isTruncated && page.last !== undefined
        ? { nextContinuationToken: Buffer.from(page.last).toString('base64url') }
        : {}),
    }),
  );
}
