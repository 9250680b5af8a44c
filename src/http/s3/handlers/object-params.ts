// Request parameters and response headers shared by the object handlers: versionId, the object lock and tagging
// headers of writes, the bypass-governance flag, and the lock/tag headers GET and HEAD answer with.

import { AppError } from '../../../core/errors.js';
import { parseObjectLockHeaders, type RequestedObjectLock } from '../../../core/object-lock.js';
import { parseTaggingHeader, type TagSet } from '../../../core/tagging.js';
import type { ObjectRow } from '../../../services/objects/object-service.js';
import { headerOf, type S3Context } from '../context.js';

/** The versionId query parameter. Throws InvalidArgument for an empty one (the service checks its shape). */
export function versionIdParam(ctx: S3Context): string | undefined {
  const v = ctx.query.get('versionId');
  if (v === '')
    throw new AppError('InvalidArgument', {
      message: 'Version id cannot be the empty string',
      details: { ArgumentName: 'versionId' },
    });
  return v;
}

/**
 * x-amz-bypass-governance-retention: true. Store has one key with every permission, so s3:BypassGovernanceRetention
 * is always granted (the bucket-policy evaluator may deny it before the handler runs).
 */
export function bypassGovernance(ctx: S3Context): boolean {
  return headerOf(ctx.req, 'x-amz-bypass-governance-retention')?.trim().toLowerCase() === 'true';
}

/** x-amz-object-lock-mode / -retain-until-date / -legal-hold. Throws InvalidArgument (parseObjectLockHeaders). */
export function lockHeaders(ctx: S3Context): RequestedObjectLock | undefined {
  const lock = parseObjectLockHeaders(
    {
      mode: headerOf(ctx.req, 'x-amz-object-lock-mode'),
      retainUntilDate: headerOf(ctx.req, 'x-amz-object-lock-retain-until-date'),
      legalHold: headerOf(ctx.req, 'x-amz-object-lock-legal-hold'),
    },
    new Date(),
  );
  return lock.retention === undefined && lock.legalHold === undefined ? undefined : lock;
}

/** x-amz-tagging, when sent. Throws InvalidArgument (malformed) or InvalidTag (parseTaggingHeader). */
export function taggingHeader(ctx: S3Context): TagSet | undefined {
  const raw = headerOf(ctx.req, 'x-amz-tagging');
  return raw === undefined ? undefined : parseTaggingHeader(raw);
}

/** Tag count and object lock state of a version, as GET and HEAD report them. */
export function versionStateHeaders(row: ObjectRow): Record<string, string | number | undefined> {
  return {
    'x-amz-tagging-count': row.tags && row.tags.length > 0 ? row.tags.length : undefined,
    'x-amz-object-lock-mode': row.retention?.mode,
    'x-amz-object-lock-retain-until-date': row.retention?.retainUntilDate,
    'x-amz-object-lock-legal-hold': row.legalHold ? 'ON' : undefined,
  };
}
