// Fixtures for the policy evaluation tests (src/core/policy/evaluate*.test.ts): principals, policies built from
// statements, and a request and its decision in one call.

import {
  evaluate,
  type AuthzPrincipal,
  type AuthzRequest,
  type Decision,
  type PolicySet,
} from '../../src/core/policy/evaluate.js';
import { parseBucketPolicy } from '../../src/core/policy/policy-document.js';
import { parseIdentityPolicy } from '../../src/core/policy/scoped-key.js';
import type { ContextInput } from '../../src/core/policy/context.js';

export type Json = Record<string, unknown>;

export const ANON: AuthzPrincipal = { type: 'anonymous' };
export const ROOT: AuthzPrincipal = { type: 'key', accessKeyId: 'AKROOT' };
export const K1: AuthzPrincipal = { type: 'key', accessKeyId: 'AKONE' };
export const K2: AuthzPrincipal = { type: 'key', accessKeyId: 'AKTWO' };

export const bucketPolicy = (...statements: Json[]) =>
  parseBucketPolicy(JSON.stringify({ Version: '2012-10-17', Statement: statements }), 'b');
export const identityPolicy = (...statements: Json[]) =>
  parseIdentityPolicy(JSON.stringify({ Version: '2012-10-17', Statement: statements }));

/** `target` is the key, or the key with a request context and a bucket other than `b`. */
export function req(
  principal: AuthzPrincipal,
  action: string,
  target: string | { key?: string | undefined; context?: ContextInput; bucket?: string } = {},
): AuthzRequest {
  const { key, context = {}, bucket = 'b' } = typeof target === 'string' ? { key: target } : target;
  return key === undefined ? { action, bucket, principal, context } : { action, bucket, key, principal, context };
}

export function decide(r: AuthzRequest, set: Partial<PolicySet> = {}): Decision {
  return evaluate(r, { isRoot: r.principal === ROOT, ...set });
}

export const PUBLIC_READ: Json = {
  Sid: 'PublicRead',
  Effect: 'Allow',
  Principal: '*',
  Action: 's3:GetObject',
  Resource: 'arn:aws:s3:::b/*',
};
