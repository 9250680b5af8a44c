// GetBucketPolicyStatus: is a bucket policy "public"? AWS's rule (S3 User Guide, "The meaning of public"):
// a policy is public unless every statement that grants access to a wildcard principal is limited by a
// condition on a fixed value (no wildcard, no policy variable) of one of a few keys: aws:SourceIp (a CIDR set),
// aws:SourceArn, aws:SourceVpc, aws:SourceVpce, aws:SourceOwner, aws:SourceAccount, aws:userid,
// s3:x-amz-server-side-encryption-aws-kms-key-id, s3:DataAccessPointArn, s3:DataAccessPointAccount.

import type { ConditionClause } from './conditions.js';
import type { PolicyDocument, PolicyStatement } from './model.js';
import { hasWildcard } from './wildcard.js';

const LIMITING_KEYS = new Set([
  'aws:sourceip',
  'aws:sourcearn',
  'aws:sourcevpc',
  'aws:sourcevpce',
  'aws:sourceowner',
  'aws:sourceaccount',
  'aws:userid',
  's3:x-amz-server-side-encryption-aws-kms-key-id',
  's3:dataaccesspointarn',
  's3:dataaccesspointaccount',
]);

// Operators that pin a key to the listed values. Negated operators, ...IfExists (an absent key passes) and
// ForAllValues (an empty set passes) do not limit anything.
const PINNING_OPERATORS = new Set([
  'StringEquals',
  'StringEqualsIgnoreCase',
  'StringLike',
  'ArnEquals',
  'ArnLike',
  'IpAddress',
]);

function isFixed(value: string): boolean {
  return !hasWildcard(value) && !value.includes('${');
}

function limits(clause: ConditionClause): boolean {
  if (!LIMITING_KEYS.has(clause.key) || !PINNING_OPERATORS.has(clause.operator)) return false;
  if (clause.ifExists || clause.qualifier === 'ForAllValues') return false;
  if (clause.operator === 'IpAddress') {
    // A /0 block admits every address of its family: that limits nothing.
    return clause.values.every((v) => !/\/0+$/.test(v.trim()));
  }
  return clause.values.every(isFixed);
}

function grantsToEveryone(s: PolicyStatement): boolean {
  if (s.effect !== 'Allow' || s.principal === undefined) return false;
  // NotPrincipal is refused with Allow at parse time; treat it as public should one ever get here.
  return s.principal.negated || s.principal.items.some((p) => p.kind === 'any');
}

/** True when some Allow statement grants to "*" without a limiting condition (GetBucketPolicyStatus IsPublic). */
export function isPublic(doc: PolicyDocument): boolean {
  return doc.statements.some((s) => grantsToEveryone(s) && !s.conditions.some(limits));
}
