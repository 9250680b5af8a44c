// DeleteObjects: up to 1000 keys (or versions) in one request, each reported on its own (Quiet reports only
// errors); a version object lock protects is reported as AccessDenied and the others still go.

import { deleteAuthorizer } from '../authorize.js';
import type { BucketOp } from '../endpoints.js';
import type { S3Context, S3Response } from '../context.js';
import { readSmallPayload } from '../request-body.js';
import { xmlResponse } from '../respond.js';
import { buildDeleteResult, type DeleteErrorEntry, type DeletedEntry } from '../xml/objects.js';
import { parseDeleteObjects } from '../xml/parse.js';
import { MAX_DELETE_OBJECTS_BODY_BYTES } from './buckets.js';
import { bypassGovernance } from './object-params.js';

type BucketCtx = S3Context<{ op: BucketOp; bucket: string }>;

export async function deleteObjects(ctx: BucketCtx): Promise<S3Response> {
  const body = await readSmallPayload(ctx, MAX_DELETE_OBJECTS_BODY_BYTES);
  const request = parseDeleteObjects(body);
  const outcomes = ctx.services.objects.deleteBatch(ctx.endpoint.bucket, request.objects, {
    bypassGovernance: bypassGovernance(ctx),
    authorize: deleteAuthorizer(ctx.authz),
  });
  const deleted: DeletedEntry[] = [];
  const errors: DeleteErrorEntry[] = [];
  for (const outcome of outcomes) {
    const { key, versionId } = outcome.item;
    if (outcome.ok) {
      // DeleteMarkerVersionId: the marker created, or the marker removed when a version id named one.
      const result = outcome.result;
      deleted.push({
        key,
        ...(versionId ? { versionId } : {}),
        ...(result.deleteMarker ? { deleteMarker: true } : {}),
        ...(result.deleteMarker && result.versionId ? { deleteMarkerVersionId: result.versionId } : {}),
      });
    } else {
      errors.push({ key, ...(versionId ? { versionId } : {}), code: outcome.code, message: outcome.message });
    }
  }
  return xmlResponse(buildDeleteResult({ quiet: request.quiet, deleted, errors }));
}
