// DeleteObjects: up to 1000 keys (or versions) in one request, each reported on its own (Quiet reports only
// errors); a version object lock protects is reported as AccessDenied and the others still go.

import { isAppError } from '../../../core/errors.js';
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
  const body = await readSmallPayload(ctx.req, ctx.auth, MAX_DELETE_OBJECTS_BODY_BYTES);
  const request = parseDeleteObjects(body);
  ctx.services.buckets.get(ctx.endpoint.bucket);
  const bypass = bypassGovernance(ctx);
  const deleted: DeletedEntry[] = [];
  const errors: DeleteErrorEntry[] = [];
  for (const item of request.objects) {
    try {
      const result = ctx.services.objects.delete(ctx.endpoint.bucket, item.key, item.versionId, { bypassGovernance: bypass });
      // DeleteMarkerVersionId: the marker created, or the marker removed when a version id named one.
      deleted.push({
        key: item.key,
        ...(item.versionId ? { versionId: item.versionId } : {}),
        ...(result.deleteMarker ? { deleteMarker: true } : {}),
        ...(result.deleteMarker && result.versionId ? { deleteMarkerVersionId: result.versionId } : {}),
      });
    } catch (err) {
      if (!isAppError(err) || err.statusCode >= 500) throw err;
      errors.push({ key: item.key, ...(item.versionId ? { versionId: item.versionId } : {}), code: err.code, message: err.message });
    }
  }
  return xmlResponse(buildDeleteResult({ quiet: request.quiet, deleted, errors }));
}
