// Scoped access keys (docs/access-keys.md): a key's permissions are an identity policy, either written inline (IAM
// grammar,
// no Principal, any bucket) or compiled from a prefix scope {bucket, prefix?, actions?}. evaluate() decides both.

import { AppError } from '../errors.js';
import { validateBucketName } from '../names.js';
import { escapeForPattern } from './context.js';
import type { PolicyDocument } from './model.js';
import { parsePolicy } from './policy-document.js';

export type ScopeAction = 'GetObject' | 'PutObject' | 'DeleteObject' | 'ListBucket';

export interface KeyScope {
  readonly bucket: string;
  /** Objects whose key starts with this; '' or absent for the whole bucket. */
  readonly prefix?: string;
  /** Defaults to all four. */
  readonly actions?: readonly ScopeAction[];
}

export const SCOPE_ACTIONS: readonly ScopeAction[] = ['GetObject', 'PutObject', 'DeleteObject', 'ListBucket'];

// What each scope action grants on the objects under the prefix. PutObject brings the multipart helpers a
// writer needs (an SDK aborts a failed upload and may list its parts); nothing else is implied.
const OBJECT_GRANTS: Readonly<Record<Exclude<ScopeAction, 'ListBucket'>, readonly string[]>> = {
  GetObject: ['s3:GetObject'],
  PutObject: ['s3:PutObject', 's3:AbortMultipartUpload', 's3:ListMultipartUploadParts'],
  DeleteObject: ['s3:DeleteObject'],
};

/**
 * The identity policy for a prefix scope: the object actions on `bucket/prefix*`; ListBucket on the bucket only
 * when the listing's prefix (s3:prefix) starts with the scope prefix, so a key scoped to `photos/` cannot list
 * the rest of the bucket (nor the bucket root); and s3:GetBucketLocation, which clients such as minio-js call
 * before anything else. Special characters in the prefix are matched literally.
 * Throws AppError InvalidBucketName, or InvalidArgument for an unknown or empty action list.
 */
export function compileScope(scope: KeyScope): PolicyDocument {
  return parseIdentityPolicy(JSON.stringify(scopePolicyJson(scope)));
}

/** The JSON form of compileScope's policy (what the admin API shows as the key's effective permissions). */
export function scopePolicyJson(scope: KeyScope): Record<string, unknown> {
  validateBucketName(scope.bucket);
  const actions = scope.actions ?? SCOPE_ACTIONS;
  if (actions.length === 0 || actions.some((a) => !SCOPE_ACTIONS.includes(a))) {
    throw new AppError('InvalidArgument', { message: `Scope actions must be some of ${SCOPE_ACTIONS.join(', ')}` });
  }
  const prefix = escapeForPattern(scope.prefix ?? '');
  const bucketArn = `arn:aws:s3:::${scope.bucket}`;
  const objectActions = [...new Set(actions.flatMap((a) => (a === 'ListBucket' ? [] : OBJECT_GRANTS[a])))];
  const statements: Record<string, unknown>[] = [
    { Sid: 'ScopeBucketLocation', Effect: 'Allow', Action: 's3:GetBucketLocation', Resource: bucketArn },
  ];
  if (objectActions.length > 0) {
    statements.push({
      Sid: 'ScopeObjects',
      Effect: 'Allow',
      Action: objectActions,
      Resource: `${bucketArn}/${prefix}*`,
    });
  }
  if (actions.includes('ListBucket')) {
    const list: Record<string, unknown> = {
      Sid: 'ScopeList',
      Effect: 'Allow',
      Action: 's3:ListBucket',
      Resource: bucketArn,
    };
    if (prefix !== '') list['Condition'] = { StringLike: { 's3:prefix': `${prefix}*` } };
    statements.push(list);
  }
  return { Version: '2012-10-17', Statement: statements };
}

/**
 * Validates an inline scoped-key policy: the bucket-policy grammar without Principal/NotPrincipal (refused),
 * resources in any bucket (`arn:aws:s3:::*` and `*` allowed), same 20 KB limit.
 * Throws AppError MalformedPolicy.
 */
export function parseIdentityPolicy(json: string): PolicyDocument {
  return parsePolicy(json, { kind: 'identity' });
}
