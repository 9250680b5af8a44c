// Authorization of S3 requests: who is asking (a Principal), each bucket's policy (parsed once per stored text),
// and the decision for every check an operation needs, made by core/policy evaluate(). The plane authorizes each
// request after authentication and before its handler; POST Object authorizes from its form (post-object.ts).

import type { Acl } from '../../core/acl/acl.js';
import { aclAllows, aclScopeOf } from '../../core/acl/acl-eval.js';
import { aclsEnabled } from '../../core/acl/ownership.js';
import type { BucketConfig } from '../../core/bucket-config-parts.js';
import { AppError, isAppError } from '../../core/errors.js';
import type { ContextInput } from '../../core/policy/context.js';
import { authorizationChecks, evaluate, type AuthzPrincipal, type Decision } from '../../core/policy/evaluate.js';
import type { PolicyDocument } from '../../core/policy/model.js';
import { parseBucketPolicy } from '../../core/policy/policy-document.js';
import { isPublic } from '../../core/policy/policy-status.js';
import type { Tag } from '../../core/tagging.js';
import type { DeleteAuthorizer } from '../../services/objects/delete-authorizer.js';

/**
 * The caller. A key is the root key (allowed unless the bucket policy denies) or a scoped key whose permissions are
 * its identity policy (the admin API creates those); anonymous requests carry no authentication at all.
 */
export type Principal =
  | { readonly type: 'anonymous' }
  | {
      readonly type: 'key';
      readonly accessKeyId: string;
      readonly isRoot: boolean;
      readonly identityPolicy?: PolicyDocument | undefined;
    };

export const ANONYMOUS: Principal = { type: 'anonymous' };

/** What authorization needs to know about one bucket. */
export interface BucketPolicyView {
  readonly exists: boolean;
  readonly policy?: PolicyDocument | undefined;
  /** The stored policy no longer validates (a newer Store is stricter): fail closed, see decide(). */
  readonly unreadable?: boolean;
  /** Some condition reads s3:ExistingObjectTag/<key>: only then are an object's tags looked up. */
  readonly readsObjectTags?: boolean;
  /** The policy is public (GetBucketPolicyStatus's rule): RestrictPublicBuckets then keeps anonymous callers out. */
  readonly isPublicPolicy?: boolean;
  /** Present when the bucket's ACLs take part in authorization (its ownership is not BucketOwnerEnforced). */
  readonly acl?: { readonly bucketAcl: Acl | undefined; readonly ignorePublicAcls: boolean } | undefined;
  /** RestrictPublicBuckets: a public policy grants nothing to anonymous callers. */
  readonly restrictPublicBuckets?: boolean;
}

const NO_BUCKET: BucketPolicyView = { exists: false };
const OWNER_POLICY_ACTIONS = new Set(['s3:GetBucketPolicy', 's3:PutBucketPolicy', 's3:DeleteBucketPolicy']);

type CacheEntry = { policy: PolicyDocument; readsObjectTags: boolean; isPublicPolicy: boolean } | { unreadable: true };

/**
 * Parsed bucket policies, keyed by bucket and the stored JSON text itself: a changed policy is a new key, so the
 * cache never serves a stale document and needs no invalidation. Bounded; the oldest entry goes first.
 */
export class BucketPolicyCache {
  private readonly entries = new Map<string, CacheEntry>();

  constructor(private readonly maxEntries = 512) {}

  /** The view of a bucket from its row (undefined: the bucket does not exist). */
  view(bucket: string, row: { config: BucketConfig } | undefined): BucketPolicyView {
    if (row === undefined) return NO_BUCKET;
    const access = accessOf(row.config);
    const json = row.config.policy;
    if (json === undefined) return { exists: true, ...access };
    const cacheKey = `${bucket}\n${json}`;
    let entry = this.entries.get(cacheKey);
    if (entry === undefined) {
      entry = parseEntry(json, bucket);
      if (this.entries.size >= this.maxEntries) {
        const oldest = this.entries.keys().next();
        if (oldest.done !== true) this.entries.delete(oldest.value);
      }
      this.entries.set(cacheKey, entry);
    }
    return 'unreadable' in entry ? { exists: true, unreadable: true } : { exists: true, ...entry, ...access };
  }
}

/** The ACL and public-access-block parts of a bucket's view (nothing for a bucket with ACLs disabled and no block). */
function accessOf(config: BucketConfig): Pick<BucketPolicyView, 'acl' | 'restrictPublicBuckets'> {
  const block = config.publicAccessBlock;
  return {
    ...(aclsEnabled(config.ownershipControls)
      ? { acl: { bucketAcl: config.acl, ignorePublicAcls: block?.ignorePublicAcls === true } }
      : {}),
    ...(block?.restrictPublicBuckets === true ? { restrictPublicBuckets: true } : {}),
  };
}

function parseEntry(json: string, bucket: string): CacheEntry {
  try {
    const policy = parseBucketPolicy(json, bucket);
    return { policy, readsObjectTags: readsObjectTags(policy), isPublicPolicy: isPublic(policy) };
  } catch (err) {
    if (isAppError(err)) return { unreadable: true };
    throw err;
  }
}

function readsObjectTags(doc: PolicyDocument | undefined): boolean {
  return doc?.statements.some((s) => s.conditions.some((c) => c.key.startsWith('s3:existingobjecttag/'))) === true;
}

/** One action on one resource. `bucket` is '' for account-level actions (ListAllMyBuckets). */
export interface AuthorizeCheck {
  readonly action: string;
  readonly bucket: string;
  readonly key?: string | undefined;
  /** The version the request names (s3:versionid). */
  readonly versionId?: string | undefined;
}

export interface RequestAuthorizerOptions {
  principal: Principal;
  /** The policy view of a bucket (memoised per request by the caller). */
  policies: (bucket: string) => BucketPolicyView;
  /** The request's condition keys (policy-context.ts); a function is called once, when a policy first needs them. */
  context: ContextInput | (() => ContextInput);
  /** An object's current tags (or the named version's), for s3:ExistingObjectTag; undefined when it does not exist. */
  objectTags?: (bucket: string, key: string, versionId: string | undefined) => readonly Tag[] | undefined;
  /** An object version's stored ACL (undefined: none, or no such object), for ACL grants on object actions. */
  objectAcl?: (bucket: string, key: string, versionId: string | undefined) => Acl | undefined;
}

/** Decides the checks of one request. Never throws except require(), which throws AccessDenied. */
export class RequestAuthorizer {
  private context: ContextInput | undefined;

  constructor(private readonly opts: RequestAuthorizerOptions) {}

  get principal(): Principal {
    return this.opts.principal;
  }

  /**
   * The policies' decision (explicit Deny wins), then, for a caller they do not allow, the bucket's and object's ACL
   * grants where the bucket's ACLs are enabled: ACLs only ever add access (S3 User Guide, "How Amazon S3 authorizes a
   * request"), and the public access block limits both (RestrictPublicBuckets, IgnorePublicAcls).
   */
  decide(check: AuthorizeCheck): Decision {
    const view = check.bucket === '' ? NO_BUCKET : this.opts.policies(check.bucket);
    const decision = this.policyDecision(check, view);
    if (decision.allowed || decision.reason !== 'implicit-deny' || view.acl === undefined) return decision;
    return this.aclAllows(check, view.acl) ? { allowed: true, reason: 'allow' } : decision;
  }

  private aclAllows(check: AuthorizeCheck, acl: NonNullable<BucketPolicyView['acl']>): boolean {
    const scope = aclScopeOf(check.action);
    if (scope === undefined) return false;
    const objectAcl =
      scope === 'object' && check.key !== undefined
        ? this.opts.objectAcl?.(check.bucket, check.key, check.versionId)
        : undefined;
    return aclAllows({
      action: check.action,
      caller: this.opts.principal.type === 'anonymous' ? 'anonymous' : 'authenticated',
      bucketAcl: acl.bucketAcl,
      objectAcl,
      ignorePublicAcls: acl.ignorePublicAcls,
    });
  }

  private policyDecision(check: AuthorizeCheck, view: BucketPolicyView): Decision {
    const { principal } = this.opts;
    // Anonymous callers learn nothing about buckets that do not exist: the same AccessDenied as a private bucket.
    if (principal.type === 'anonymous' && (check.bucket === '' || !view.exists))
      return { allowed: false, reason: 'implicit-deny' };
    const isRoot = principal.type === 'key' && principal.isRoot;
    if (view.unreadable === true) {
      // Fail closed, but leave the owner able to read, replace or delete the policy that no longer parses.
      const allowed = isRoot && OWNER_POLICY_ACTIONS.has(check.action);
      return allowed ? { allowed, reason: 'allow' } : { allowed, reason: 'implicit-deny' };
    }
    const identityPolicy = principal.type === 'key' ? principal.identityPolicy : undefined;
    // Nothing to evaluate: the root key is allowed and an anonymous caller refused, without building any context.
    if (view.policy === undefined && identityPolicy === undefined && (isRoot || principal.type === 'anonymous')) {
      return isRoot ? { allowed: true, reason: 'allow' } : { allowed: false, reason: 'implicit-deny' };
    }
    const authzPrincipal: AuthzPrincipal =
      principal.type === 'key' ? { type: 'key', accessKeyId: principal.accessKeyId } : { type: 'anonymous' };
    const decision = evaluate(
      {
        action: check.action,
        bucket: check.bucket,
        ...(check.key === undefined ? {} : { key: check.key }),
        principal: authzPrincipal,
        context: this.contextFor(check, view),
      },
      { bucketPolicy: view.policy, identityPolicy, isRoot },
    );
    // RestrictPublicBuckets: "only AWS service principals and authorized users within the bucket owner's account" may
    // use what a public policy grants; an anonymous caller is neither.
    if (
      decision.allowed &&
      principal.type === 'anonymous' &&
      view.restrictPublicBuckets === true &&
      view.isPublicPolicy === true
    ) {
      return { allowed: false, reason: 'implicit-deny' };
    }
    return decision;
  }

  allows(check: AuthorizeCheck): boolean {
    return this.decide(check).allowed;
  }

  /**
   * Throws AccessDenied when an anonymous caller names a bucket that does not exist. Every check does this already;
   * DeleteObjects, whose keys are checked one by one, has no request-level check and needs it explicitly.
   */
  requireVisible(bucket: string): void {
    if (this.opts.principal.type === 'anonymous' && !this.opts.policies(bucket).exists)
      throw new AppError('AccessDenied');
  }

  /** Throws AccessDenied (403) unless every check is allowed. */
  require(checks: readonly AuthorizeCheck[]): void {
    for (const check of checks) {
      if (!this.allows(check)) throw new AppError('AccessDenied');
    }
  }

  private contextFor(check: AuthorizeCheck, view: BucketPolicyView): ContextInput {
    const extra: Record<string, string | string[] | undefined> = { 's3:versionid': check.versionId };
    const identityReadsTags = this.opts.principal.type === 'key' && readsObjectTags(this.opts.principal.identityPolicy);
    if ((view.readsObjectTags === true || identityReadsTags) && check.key !== undefined && this.opts.objectTags) {
      for (const tag of this.opts.objectTags(check.bucket, check.key, check.versionId) ?? []) {
        extra[`s3:ExistingObjectTag/${tag.key}`] = tag.value;
      }
    }
    if (this.context === undefined) {
      const { context } = this.opts;
      this.context = typeof context === 'function' ? context() : context;
    }
    return { ...this.context, ...extra };
  }
}

/** What operationChecks needs from the request besides its endpoint. */
export interface OperationFacts {
  readonly op: string;
  readonly bucket?: string | undefined;
  readonly key?: string | undefined;
  /** The versionId query parameter. */
  readonly versionId?: string | undefined;
  /** A request header by lower-case name. */
  readonly header: (name: string) => string | undefined;
  /** CopyObject / UploadPartCopy: the parsed x-amz-copy-source. */
  readonly copySource?: { bucket: string; key: string; versionId?: string | undefined } | undefined;
}

/**
 * The checks an operation needs (core/policy authorizationChecks), bound to the request's bucket, key, version and
 * copy source. DeleteObjects has none at the request level: its keys are checked one by one (deleteAuthorizer).
 * An operation missing from the table gets a check no policy grants (`s3:<op>` on the bucket), so only the root key
 * passes: never a guess.
 */
export function operationChecks(facts: OperationFacts): AuthorizeCheck[] {
  const bucket = facts.bucket ?? '';
  if (facts.op === 'DeleteObjects') return [];
  const header = facts.header;
  const retention =
    header('x-amz-object-lock-mode') !== undefined || header('x-amz-object-lock-retain-until-date') !== undefined;
  const checks = authorizationChecks(facts.op, {
    versionId: facts.versionId !== undefined,
    sourceVersionId: facts.copySource?.versionId !== undefined,
    tagging: header('x-amz-tagging') !== undefined,
    retention,
    legalHold: header('x-amz-object-lock-legal-hold') !== undefined,
    bypassGovernance: header('x-amz-bypass-governance-retention')?.toLowerCase() === 'true',
  });
  if (checks === undefined) return [{ action: `s3:${facts.op}`, bucket }];
  return checks.map((c) => {
    if (c.on === 'copy-source' && facts.copySource) {
      return {
        action: c.action,
        bucket: facts.copySource.bucket,
        key: facts.copySource.key,
        versionId: facts.copySource.versionId,
      };
    }
    return { action: c.action, bucket, key: facts.key, versionId: facts.versionId };
  });
}

/**
 * The per-key check of DeleteObjects, for ObjectService.deleteBatch: s3:DeleteObject, or s3:DeleteObjectVersion with
 * a version id, plus s3:BypassGovernanceRetention when bypassing. A denied key throws AccessDenied, which deleteBatch
 * reports for that key as S3 does (DeleteObjects API reference: each key is authorized on its own).
 */
export function deleteAuthorizer(authz: RequestAuthorizer): DeleteAuthorizer {
  return ({ bucket, key, versionId, bypassGovernance }) => {
    const checks = authorizationChecks('DeleteObject', { versionId: versionId !== undefined, bypassGovernance }) ?? [];
    authz.require(checks.map((c) => ({ action: c.action, bucket, key, versionId })));
  };
}

/**
 * S3 answers a missing key with 404 only to callers allowed to list the bucket; anyone else gets 403 AccessDenied,
 * so a policy granting GetObject does not reveal which keys exist (GetObject / HeadObject API reference).
 */
export function hideMissingKey(
  err: unknown,
  { op, bucket }: { op: string; bucket: string | undefined },
  authz: RequestAuthorizer,
): unknown {
  if (!isAppError(err) || err.code !== 'NoSuchKey' || bucket === undefined) return err;
  if (op !== 'GetObject' && op !== 'HeadObject') return err;
  return authz.allows({ action: 's3:ListBucket', bucket }) ? err : new AppError('AccessDenied', { cause: err });
}
