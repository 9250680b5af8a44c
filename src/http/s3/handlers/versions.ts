// ListObjectVersions.

import type { BucketOp } from '../endpoints.js';
import type { S3Context, S3Response } from '../context.js';
import { xmlResponse } from '../respond.js';
import { buildListVersionsResult } from '../xml/list-versions.js';
import { encodingOf, maxKeysOf } from './list.js';

type BucketCtx = S3Context<{ op: BucketOp; bucket: string }>;

/** Every version and delete marker, by key and newest first; key-marker / version-id-marker paging. */
export async function listObjectVersions(ctx: BucketCtx): Promise<S3Response> {
  const prefix = ctx.query.get('prefix') ?? '';
  const delimiter = ctx.query.get('delimiter') ?? '';
  const keyMarker = ctx.query.get('key-marker') ?? '';
  const versionIdMarker = ctx.query.get('version-id-marker') ?? '';
  const maxKeys = maxKeysOf(ctx);
  const encodingType = encodingOf(ctx);
  const page = ctx.services.listing.listVersions({
    bucket: ctx.endpoint.bucket,
    prefix,
    delimiter,
    keyMarker,
    versionIdMarker,
    maxKeys,
  });
  return xmlResponse(
    buildListVersionsResult({
      bucket: ctx.endpoint.bucket,
      prefix,
      keyMarker,
      versionIdMarker,
      maxKeys,
      delimiter,
      isTruncated: page.isTruncated,
      ...(encodingType ? { encodingType } : {}),
      ...(page.isTruncated && page.nextKeyMarker !== undefined ? { nextKeyMarker: page.nextKeyMarker } : {}),
      ...(page.isTruncated && page.nextVersionIdMarker !== undefined
        ? { nextVersionIdMarker: page.nextVersionIdMarker }
        : {}),
      versions: page.versions.map((v) => ({
        key: v.key,
        versionId: v.versionId,
        isLatest: v.isLatest,
        isDeleteMarker: v.isDeleteMarker,
        lastModified: new Date(v.lastModified),
        etag: v.etag,
        size: v.size,
        storageClass: v.storageClass,
        ...(v.checksumAlgorithm ? { checksumAlgorithm: v.checksumAlgorithm } : {}),
        ...(v.checksumType ? { checksumType: v.checksumType } : {}),
        owner: ctx.owner,
      })),
      commonPrefixes: page.commonPrefixes,
    }),
  );
}
