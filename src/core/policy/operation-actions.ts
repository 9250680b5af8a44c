// Which policy action(s) authorize each S3 operation, keyed by the operation name the router produces.
// Source: S3 User Guide, "Required permissions for Amazon S3 API operations" (general purpose buckets).

import { CONFIG_PART_ACTIONS } from '../bucket-config-parts.js';
import type { ActionLevel } from './s3-actions.js';

export interface OperationAuthorization {
  /** The action checked. DeleteObjects checks it once per key in the request. */
  readonly action: string;
  readonly level: ActionLevel;
  /** Checked instead of `action` when the request names a versionId. */
  readonly versionedAction?: string;
  /** Further actions checked on the same resource, all of which must be allowed too (with versioned forms). */
  readonly alsoRequires?: readonly { readonly action: string; readonly versionedAction?: string }[];
  /**
   * CopyObject/UploadPartCopy: the action checked on the source object (`versionedAction` form with a source
   * versionId).
   */
  readonly source?: { readonly action: string; readonly versionedAction: string };
}

const bucket = (action: string): OperationAuthorization => ({ action: `s3:${action}`, level: 'bucket' });
const object = (action: string, versioned?: string): OperationAuthorization =>
  versioned === undefined
    ? { action: `s3:${action}`, level: 'object' }
    : { action: `s3:${action}`, level: 'object', versionedAction: `s3:${versioned}` };
const COPY_SOURCE = { action: 's3:GetObject', versionedAction: 's3:GetObjectVersion' } as const;

/** S3 operation name -> the action(s) that authorize it. */
export const S3_ACTION_FOR_OPERATION: Readonly<Record<string, OperationAuthorization>> = {
  ListBuckets: { action: 's3:ListAllMyBuckets', level: 'service' },
  CreateBucket: bucket('CreateBucket'),
  HeadBucket: bucket('ListBucket'),
  DeleteBucket: bucket('DeleteBucket'),
  GetBucketLocation: bucket('GetBucketLocation'),
  ListObjects: bucket('ListBucket'),
  ListObjectsV2: bucket('ListBucket'),
  ListObjectVersions: bucket('ListBucketVersions'),
  ListMultipartUploads: bucket('ListBucketMultipartUploads'),
  GetBucketVersioning: bucket('GetBucketVersioning'),
  PutBucketVersioning: bucket('PutBucketVersioning'),
  // Get/Put/Delete of each configuration part (core/bucket-config-parts.ts: tagging, encryption, lifecycle, CORS,
  // policy).
  ...Object.fromEntries([...CONFIG_PART_ACTIONS].map(([op, action]) => [op, { action, level: 'bucket' } as const])),
  GetBucketPolicyStatus: bucket('GetBucketPolicyStatus'),
  GetObjectLockConfiguration: bucket('GetBucketObjectLockConfiguration'),
  PutObjectLockConfiguration: bucket('PutBucketObjectLockConfiguration'),
  GetBucketAcl: bucket('GetBucketAcl'),
  PutBucketAcl: bucket('PutBucketAcl'),
  GetBucketNotificationConfiguration: bucket('GetBucketNotification'),
  PutBucketNotificationConfiguration: bucket('PutBucketNotification'),
  // Features Store never configures, answered with AWS's defaults (handlers/bucket-defaults.ts).
  GetBucketRequestPayment: bucket('GetBucketRequestPayment'),
  PutBucketRequestPayment: bucket('PutBucketRequestPayment'),
  GetBucketAccelerateConfiguration: bucket('GetAccelerateConfiguration'),
  GetBucketLogging: bucket('GetBucketLogging'),
  GetBucketWebsite: bucket('GetBucketWebsite'),
  DeleteBucketWebsite: bucket('DeleteBucketWebsite'),
  GetBucketReplication: bucket('GetReplicationConfiguration'),
  DeleteBucketReplication: bucket('PutReplicationConfiguration'),
  DeleteObjects: object('DeleteObject', 'DeleteObjectVersion'),
  PutObject: object('PutObject'),
  PostObject: object('PutObject'),
  CopyObject: { ...object('PutObject'), source: COPY_SOURCE },
  GetObject: object('GetObject', 'GetObjectVersion'),
  HeadObject: object('GetObject', 'GetObjectVersion'),
  DeleteObject: object('DeleteObject', 'DeleteObjectVersion'),
  CreateMultipartUpload: object('PutObject'),
  UploadPart: object('PutObject'),
  UploadPartCopy: { ...object('PutObject'), source: COPY_SOURCE },
  CompleteMultipartUpload: object('PutObject'),
  AbortMultipartUpload: object('AbortMultipartUpload'),
  ListParts: object('ListMultipartUploadParts'),
  GetObjectTagging: object('GetObjectTagging', 'GetObjectVersionTagging'),
  PutObjectTagging: object('PutObjectTagging', 'PutObjectVersionTagging'),
  RestoreObject: object('RestoreObject'),
  DeleteObjectTagging: object('DeleteObjectTagging', 'DeleteObjectVersionTagging'),
  GetObjectRetention: object('GetObjectRetention'),
  PutObjectRetention: object('PutObjectRetention'),
  GetObjectLegalHold: object('GetObjectLegalHold'),
  PutObjectLegalHold: object('PutObjectLegalHold'),
  GetObjectAcl: object('GetObjectAcl', 'GetObjectVersionAcl'),
  PutObjectAcl: object('PutObjectAcl', 'PutObjectVersionAcl'),
  // "To use GetObjectAttributes, you must have READ access to the object" (API reference): both actions.
  GetObjectAttributes: {
    ...object('GetObjectAttributes', 'GetObjectVersionAttributes'),
    alsoRequires: [{ action: 's3:GetObject', versionedAction: 's3:GetObjectVersion' }],
  },
};

/** One evaluation the S3 plane must run: `action` on the request's own object/bucket, or on the copy source. */
export interface AuthorizationCheck {
  readonly action: string;
  readonly on: 'target' | 'copy-source';
}

export interface CheckOptions {
  /** The request names a versionId (of the target). */
  readonly versionId?: boolean;
  /** CopyObject/UploadPartCopy: the copy source names a versionId. */
  readonly sourceVersionId?: boolean;
  /** PutObject/CopyObject/CreateMultipartUpload carrying x-amz-tagging (S3 also requires s3:PutObjectTagging). */
  readonly tagging?: boolean;
  /** ...carrying x-amz-object-lock-mode / retain-until-date (requires s3:PutObjectRetention). */
  readonly retention?: boolean;
  /** ...carrying x-amz-object-lock-legal-hold (requires s3:PutObjectLegalHold). */
  readonly legalHold?: boolean;
  /**
   * A delete or retention change with x-amz-bypass-governance-retention: true (requires s3:BypassGovernanceRetention).
   */
  readonly bypassGovernance?: boolean;
}

/**
 * Every check an operation needs; the request is allowed only if all of them are. Returns undefined for an
 * operation that is not in the table (the caller should deny, not guess).
 */
export function authorizationChecks(operation: string, options: CheckOptions = {}): AuthorizationCheck[] | undefined {
  const entry = Object.hasOwn(S3_ACTION_FOR_OPERATION, operation) ? S3_ACTION_FOR_OPERATION[operation] : undefined;
  if (entry === undefined) return undefined;
  const pick = (a: { action: string; versionedAction?: string }, versioned: boolean | undefined): string =>
    versioned === true && a.versionedAction !== undefined ? a.versionedAction : a.action;
  const checks: AuthorizationCheck[] = [{ action: pick(entry, options.versionId), on: 'target' }];
  for (const extra of entry.alsoRequires ?? []) checks.push({ action: pick(extra, options.versionId), on: 'target' });
  if (entry.source !== undefined)
    checks.push({ action: pick(entry.source, options.sourceVersionId), on: 'copy-source' });
  const writesObject = entry.action === 's3:PutObject' && operation !== 'UploadPart' && operation !== 'UploadPartCopy';
  if (writesObject && options.tagging === true) checks.push({ action: 's3:PutObjectTagging', on: 'target' });
  if (writesObject && options.retention === true) checks.push({ action: 's3:PutObjectRetention', on: 'target' });
  if (writesObject && options.legalHold === true) checks.push({ action: 's3:PutObjectLegalHold', on: 'target' });
  if (options.bypassGovernance === true) checks.push({ action: 's3:BypassGovernanceRetention', on: 'target' });
  return checks;
}
