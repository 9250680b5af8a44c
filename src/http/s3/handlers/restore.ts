// RestoreObject (POST ?restore): a tiered stub starts rehydrating (202 Accepted); a version already restored has its
// restore extended (200 OK); anything else is InvalidObjectState, as S3 answers for a non-archived object.

import { AppError } from '../../../core/errors.js';
import type { ObjectOp } from '../endpoints.js';
import type { S3Context, S3Response } from '../context.js';
import { readSmallPayload } from '../request-body.js';
import { parseRestoreRequest } from '../xml/restore.js';
import { MAX_XML_BODY_BYTES } from './buckets.js';
import { versionIdParam } from './object-params.js';

type ObjectCtx = S3Context<{ op: ObjectOp; bucket: string; key: string }>;

export async function restoreObject(ctx: ObjectCtx): Promise<S3Response> {
  const { days } = parseRestoreRequest(await readSmallPayload(ctx, MAX_XML_BODY_BYTES));
  const { row } = ctx.services.objects.open(ctx.endpoint.bucket, ctx.endpoint.key, { versionId: versionIdParam(ctx) });
  const tiering = ctx.services.tiering;
  if (!tiering)
    throw new AppError('InvalidObjectState', {
      message: "Restore is not allowed for the object's current storage class.",
    });
  const { started } = await tiering.restore(row, days);
  return { status: started ? 202 : 200 };
}
