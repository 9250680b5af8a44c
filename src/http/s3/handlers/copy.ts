// CopyObject: metadata and tagging directives, a source version, lock settings for the new version.

import { parseChecksumAlgorithm } from '../../../core/checksums.js';
import { AppError } from '../../../core/errors.js';
import { parseStorageClass } from '../../../core/storage-class.js';
import type { ObjectOp } from '../endpoints.js';
import { headerOf, type S3Context, type S3Response } from '../context.js';
import { copySourceConditions, parseCopySource } from '../copy-source.js';
import { readObjectHeaders, readUserMeta } from '../object-headers.js';
import { xmlResponse } from '../respond.js';
import { buildCopyObjectResult } from '../xml/objects.js';
import { requestAcl } from './acl-header.js';
import { checkSseHeaders } from '../sse-header.js';
import { reportedVersionId } from '../../../core/versioning.js';
import { lockHeaders, taggingHeader } from './object-params.js';

type ObjectCtx = S3Context<{ op: ObjectOp; bucket: string; key: string }>;

export async function copyObject(ctx: ObjectCtx): Promise<S3Response> {
  const acl = requestAcl(ctx, ctx.endpoint.bucket);
  checkSseHeaders(ctx.req);
  const directive = (headerOf(ctx.req, 'x-amz-metadata-directive') ?? 'COPY').toUpperCase();
  if (directive !== 'COPY' && directive !== 'REPLACE') {
    throw new AppError('InvalidArgument', {
      message: 'Unknown metadata directive.',
      details: { ArgumentName: 'x-amz-metadata-directive' },
    });
  }
  const taggingDirective = (headerOf(ctx.req, 'x-amz-tagging-directive') ?? 'COPY').toUpperCase();
  if (taggingDirective !== 'COPY' && taggingDirective !== 'REPLACE') {
    throw new AppError('InvalidArgument', {
      message: 'Unknown tagging directive.',
      details: { ArgumentName: 'x-amz-tagging-directive' },
    });
  }
  const algorithmHeader = headerOf(ctx.req, 'x-amz-checksum-algorithm');
  const { row, sourceVersionId } = await ctx.services.objects.copy({
    bucket: ctx.endpoint.bucket,
    key: ctx.endpoint.key,
    source: parseCopySource(ctx.req),
    sourceConditions: copySourceConditions(ctx.req),
    metadataDirective: directive,
    headers: readObjectHeaders(ctx.req),
    userMeta: readUserMeta(ctx.req),
    checksumAlgorithm: algorithmHeader === undefined ? undefined : parseChecksumAlgorithm(algorithmHeader),
    taggingDirective,
    // S3 reads x-amz-tagging only with the REPLACE directive.
    tags: taggingDirective === 'REPLACE' ? (taggingHeader(ctx) ?? []) : undefined,
    lock: lockHeaders(ctx),
    storageClass: parseStorageClass(headerOf(ctx.req, 'x-amz-storage-class')),
    acl,
  });
  return xmlResponse(
    buildCopyObjectResult({
      etag: row.etag,
      lastModified: new Date(row.lastModified),
      ...(row.checksumAlgorithm && row.checksumValue
        ? { checksums: { [row.checksumAlgorithm]: row.checksumValue }, checksumType: 'FULL_OBJECT' as const }
        : {}),
    }),
    200,
    {
      'x-amz-server-side-encryption': 'AES256',
      'x-amz-version-id': reportedVersionId(row.versionId),
      'x-amz-copy-source-version-id': reportedVersionId(sourceVersionId),
    },
  );
}
