// The one authorization decision for the S3 plane and the admin simulator: bucket policy plus the caller's
// identity policy (a scoped key's permissions). Store's rules (ARCHITECTURE, "scoped key permissions"):
// - an explicit Deny in either policy wins;
// - the root key is allowed unless a bucket-policy statement denies it; as in S3, the root can always
//   Get/Put/DeleteBucketPolicy, so a policy can never lock the owner out of fixing it;
// - a scoped key needs an Allow in its identity policy and no Deny; a bucket-policy Allow alone does not grant
//   it anything ("key policy AND bucket policy"), unlike AWS, where either suffices within one account;
// - an anonymous request needs a bucket-policy Allow whose principal is "*" (or {"AWS": "*"}).

import { type ContextInput, type ConditionContext, expandPattern, normaliseContext } from './context.js';
import { conditionsHold } from './conditions.js';
import type { PolicyDocument, PolicyStatement, PrincipalRef } from './model.js';
import { actionResourceArn, canonicalAction } from './s3-actions.js';
import { matchTokens, wildcardMatch } from './wildcard.js';

export { actionResourceArn } from './s3-actions.js';
export { S3_ACTION_FOR_OPERATION, authorizationChecks } from './operation-actions.js';

export type AuthzPrincipal = { readonly type: 'anonymous' } | { readonly type: 'key'; readonly accessKeyId: string };

export interface AuthzRequest {
  /** A policy action, e.g. `s3:GetObject` (see S3_ACTION_FOR_OPERATION / authorizationChecks). */
  readonly action: string;
  readonly bucket: string;
  /** The object key, for object-level actions. */
  readonly key?: string;
  readonly principal: AuthzPrincipal;
  /** Condition keys, e.g. `aws:SecureTransport: 'false'`, `aws:SourceIp: '127.0.0.1'`, `s3:prefix: 'photos/'`. */
  readonly context: ContextInput;
}

export interface PolicySet {
  readonly bucketPolicy?: PolicyDocument | undefined;
  /** The scoped key's permissions; ignored for the root key and anonymous requests. */
  readonly identityPolicy?: PolicyDocument | undefined;
  /** The request is signed by the root key. */
  readonly isRoot: boolean;
}

export interface DecidingStatement {
  readonly source: 'bucket-policy' | 'identity';
  readonly sid?: string;
  /** Index in the policy's Statement list. */
  readonly index: number;
}

/** `allow` without a statement means the root key's default allowance. */
export interface Decision {
  readonly allowed: boolean;
  readonly reason: 'explicit-deny' | 'allow' | 'implicit-deny';
  readonly statement?: DecidingStatement;
}

// S3: "the root user of the AWS account that owns a bucket can always use this operation, even if the policy
// explicitly denies the root user" (PutBucketPolicy, GetBucketPolicy, DeleteBucketPolicy API reference).
const ROOT_ALWAYS = new Set(['s3:GetBucketPolicy', 's3:PutBucketPolicy', 's3:DeleteBucketPolicy']);

interface Evaluation {
  readonly action: string;
  readonly resource: string;
  readonly principal: AuthzPrincipal;
  readonly ctx: ConditionContext;
}

function principalMatches(refs: readonly PrincipalRef[], principal: AuthzPrincipal): boolean {
  return refs.some((ref) => {
    if (ref.kind === 'any') return true;
    if (principal.type !== 'key') return false;
    return ref.kind === 'account' || ref.accessKeyId === principal.accessKeyId;
  });
}

function statementApplies(s: PolicyStatement, e: Evaluation, vars: boolean): boolean {
  if (s.principal !== undefined && principalMatches(s.principal.items, e.principal) === s.principal.negated)
    return false;
  const actionHit = s.action.items.some((p) => wildcardMatch(p, e.action, true));
  if (actionHit === s.action.negated) return false;
  const resourceHit = s.resource.items.some((p) => {
    const tokens = expandPattern(p, e.ctx, vars);
    return tokens !== undefined && matchTokens(tokens, e.resource);
  });
  if (resourceHit === s.resource.negated) return false;
  return conditionsHold(s.conditions, e.ctx, vars);
}

function firstMatch(
  policy: { doc: PolicyDocument | undefined; source: DecidingStatement['source'] },
  effect: PolicyStatement['effect'],
  e: Evaluation,
): DecidingStatement | undefined {
  const { doc, source } = policy;
  if (doc === undefined) return undefined;
  const vars = doc.version === '2012-10-17';
  const index = doc.statements.findIndex((s) => s.effect === effect && statementApplies(s, e, vars));
  if (index < 0) return undefined;
  const sid = doc.statements[index]?.sid;
  return sid === undefined ? { source, index } : { source, sid, index };
}

/**
 * Decides one action on one resource. Never throws: anything unrecognised is an implicit deny.
 * For operations needing several actions (CopyObject, GetObjectAttributes, ...), call it once per
 * authorizationChecks() entry and allow only if every decision allows.
 */
export function evaluate(request: AuthzRequest, policies: PolicySet): Decision {
  const action = canonicalAction(request.action) ?? request.action;
  const isRoot = policies.isRoot && request.principal.type === 'key';
  if (isRoot && ROOT_ALWAYS.has(action)) return { allowed: true, reason: 'allow' };
  const e: Evaluation = {
    action,
    resource: actionResourceArn(action, request.bucket, request.key),
    principal: request.principal,
    ctx: normaliseContext(request.context),
  };
  const identity = request.principal.type === 'key' && !isRoot ? policies.identityPolicy : undefined;
  const bucketPolicy = { doc: policies.bucketPolicy, source: 'bucket-policy' } as const;
  const identityPolicy = { doc: identity, source: 'identity' } as const;
  const deny = firstMatch(bucketPolicy, 'Deny', e) ?? firstMatch(identityPolicy, 'Deny', e);
  if (deny !== undefined) return { allowed: false, reason: 'explicit-deny', statement: deny };
  if (isRoot) return { allowed: true, reason: 'allow' };
  const allow =
    request.principal.type === 'key' ? firstMatch(identityPolicy, 'Allow', e) : firstMatch(bucketPolicy, 'Allow', e);
  if (allow !== undefined) return { allowed: true, reason: 'allow', statement: allow };
  return { allowed: false, reason: 'implicit-deny' };
}
