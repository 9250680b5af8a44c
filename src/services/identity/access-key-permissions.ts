// A scoped key's permissions: the two accepted forms (a prefix scope, or an inline IAM-style policy), how they are
// validated and stored, the policy in force (core/policy compileScope / parseIdentityPolicy), and the simulator,
// which asks core/policy evaluate() exactly what the S3 plane asks it.

import { AppError, isAppError } from '../../core/errors.js';
import { validateBucketName } from '../../core/names.js';
import type { ContextInput } from '../../core/policy/context.js';
import { evaluate, type DecidingStatement } from '../../core/policy/evaluate.js';
import type { PolicyDocument } from '../../core/policy/model.js';
import { canonicalAction, S3_ACTIONS } from '../../core/policy/s3-actions.js';
import { parseIdentityPolicy, scopePolicyJson, type KeyScope } from '../../core/policy/scoped-key.js';

export type { KeyScope, ScopeAction } from '../../core/policy/scoped-key.js';

/** What a key's permissions are, as given and as stored. */
export type KeyPermissions = { readonly scope: KeyScope } | { readonly policy: Record<string, unknown> };

/** The permissions as an admin sends them: exactly one of `scope` and `policy` (an object or its JSON text). */
export interface PermissionsInput {
  readonly scope?: KeyScope | undefined;
  readonly policy?: Record<string, unknown> | string | undefined;
}

/** The policy in force for a key; `policy` is null for a key without permissions (denied everything). */
export interface EffectivePermissions {
  readonly form: 'none' | 'scope' | 'policy';
  readonly scope?: KeyScope;
  readonly policy: Record<string, unknown> | null;
}

const invalid = (field: string, message: string, cause?: unknown): AppError =>
  new AppError('ValidationError', { message: `${field}: ${message}`, cause });

/**
 * Validates permissions given by an admin and returns their stored form. Throws ValidationError naming the field
 * (`permissions`, `permissions.scope.bucket`, `permissions.scope.actions`) or MalformedPolicy for an inline policy
 * that does not follow the grammar (Principal is refused: the key is the principal).
 */
export function validatePermissions(input: PermissionsInput): KeyPermissions {
  const hasScope = input.scope !== undefined;
  const hasPolicy = input.policy !== undefined;
  if (hasScope === hasPolicy) throw invalid('permissions', 'give exactly one of scope or policy');
  if (input.scope !== undefined) {
    const scope: KeyScope = {
      bucket: input.scope.bucket,
      ...(input.scope.prefix === undefined || input.scope.prefix === '' ? {} : { prefix: input.scope.prefix }),
      ...(input.scope.actions === undefined ? {} : { actions: [...new Set(input.scope.actions)] }),
    };
    try {
      scopePolicyJson(scope);
    } catch (err) {
      if (isAppError(err) && err.code === 'InvalidBucketName')
        throw invalid('permissions.scope.bucket', err.message, err);
      if (isAppError(err)) throw invalid('permissions.scope.actions', err.message, err);
      throw err;
    }
    return { scope };
  }
  const text = typeof input.policy === 'string' ? input.policy : JSON.stringify(input.policy);
  parseIdentityPolicy(text);
  return { policy: JSON.parse(text) as Record<string, unknown> };
}

/** The stored JSON text of permissions (undefined: none) read back. */
export function readPermissions(stored: string | undefined): KeyPermissions | undefined {
  return stored === undefined ? undefined : (JSON.parse(stored) as KeyPermissions);
}

/** The policy JSON in force: the inline policy, or the one compiled from the scope. */
export function effectivePermissions(permissions: KeyPermissions | undefined): EffectivePermissions {
  if (permissions === undefined) return { form: 'none', policy: null };
  if ('scope' in permissions)
    return { form: 'scope', scope: permissions.scope, policy: scopePolicyJson(permissions.scope) };
  return { form: 'policy', policy: permissions.policy };
}

/**
 * The identity policy evaluate() needs. Throws MalformedPolicy / InvalidBucketName if a stored document no longer
 * validates (a newer Store may be stricter); callers on the S3 path treat that as "no permissions".
 */
export function compilePermissions(permissions: KeyPermissions | undefined): PolicyDocument | undefined {
  const policy = effectivePermissions(permissions).policy;
  return policy === null ? undefined : parseIdentityPolicy(JSON.stringify(policy));
}

export interface SimulationRequest {
  /** An S3 action, `s3:GetObject` or `GetObject` (case-insensitive); no wildcards. */
  readonly action: string;
  /** The bucket; ignored (may be '') for account-level actions such as ListAllMyBuckets. */
  readonly bucket: string;
  /** The object key for object actions; for list actions, the listing prefix (s3:prefix). */
  readonly key?: string | undefined;
  /** Extra condition keys (`aws:SourceIp`, `aws:SecureTransport`, ...); everything else is absent. */
  readonly context?: Readonly<Record<string, string | readonly string[]>> | undefined;
}

export interface SimulationResult {
  readonly decision: 'allow' | 'deny';
  readonly reason: 'explicit-deny' | 'allowed' | 'implicit-deny';
  /** The statement that decided (Allow or Deny), with its index in the key's effective policy or the bucket policy. */
  readonly statement?: { readonly source: 'key' | 'bucket'; readonly sid?: string; readonly index: number };
}

/** What a simulation evaluates, after SimulationRequest was checked. */
export interface SimulationInput {
  readonly accessKeyId: string;
  readonly identityPolicy: PolicyDocument | undefined;
  /** The bucket's policy, or 'unreadable' when the stored one no longer parses (the S3 plane then fails closed). */
  readonly bucketPolicy: PolicyDocument | 'unreadable' | undefined;
  readonly action: string;
  readonly bucket: string;
  readonly key?: string | undefined;
  readonly context?: SimulationRequest['context'];
  readonly now: Date;
}

const LIST_ACTIONS = new Set(['s3:ListBucket', 's3:ListBucketVersions', 's3:ListBucketMultipartUploads']);

/**
 * Checks a simulation request and returns the canonical action. Throws ValidationError naming `action` (unknown, or
 * a wildcard), `bucket` (not a valid bucket name, for bucket and object actions) or `key` (missing for an object
 * action).
 */
export function checkSimulation(request: SimulationRequest): string {
  const raw = request.action.includes(':') ? request.action : `s3:${request.action}`;
  const action = canonicalAction(raw);
  if (action === undefined) throw invalid('action', `${request.action} is not an S3 action`);
  const level = S3_ACTIONS.get(action);
  if (level === 'service') return action;
  try {
    validateBucketName(request.bucket);
  } catch (err) {
    throw invalid('bucket', isAppError(err) ? err.message : 'is not a valid bucket name', err);
  }
  if (level === 'object' && (request.key === undefined || request.key === ''))
    throw invalid('key', `is required for ${action}`);
  return action;
}

/** Decides one action as the S3 plane would for this key: key policy AND bucket policy, an explicit Deny wins. */
export function simulate(input: SimulationInput): SimulationResult {
  if (input.bucketPolicy === 'unreadable') return { decision: 'deny', reason: 'implicit-deny' };
  const isList = LIST_ACTIONS.has(input.action);
  const context: ContextInput = {
    'aws:PrincipalType': 'User',
    'aws:userid': input.accessKeyId,
    'aws:username': input.accessKeyId,
    'aws:CurrentTime': input.now.toISOString(),
    'aws:EpochTime': String(Math.floor(input.now.getTime() / 1000)),
    ...(isList && input.key !== undefined ? { 's3:prefix': input.key } : {}),
    ...input.context,
  };
  const decision = evaluate(
    {
      action: input.action,
      bucket: input.bucket,
      ...(isList || input.key === undefined ? {} : { key: input.key }),
      principal: { type: 'key', accessKeyId: input.accessKeyId },
      context,
    },
    { bucketPolicy: input.bucketPolicy, identityPolicy: input.identityPolicy, isRoot: false },
  );
  const reason = decision.reason === 'allow' ? 'allowed' : decision.reason;
  const result: SimulationResult = { decision: decision.allowed ? 'allow' : 'deny', reason };
  return decision.statement === undefined ? result : { ...result, statement: statementOf(decision.statement) };
}

function statementOf(s: DecidingStatement): NonNullable<SimulationResult['statement']> {
  const source = s.source === 'identity' ? 'key' : 'bucket';
  return s.sid === undefined ? { source, index: s.index } : { source, sid: s.sid, index: s.index };
}
