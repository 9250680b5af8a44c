// The policy document model shared by bucket policies and scoped-key (identity) policies.

import { AppError } from '../errors.js';
import type { ConditionClause } from './conditions.js';

export type PolicyVersion = '2012-10-17' | '2008-10-17';
export type Effect = 'Allow' | 'Deny';

/**
 * Who a bucket-policy statement names. Store has one account and no IAM users, so:
 * - `"*"` or `{"AWS": "*"}`: everyone, including anonymous requests and the root key;
 * - `{"AWS": "<accessKeyId>"}` or `{"AWS": "arn:aws:iam::<any account>:user/<accessKeyId>"}`: that access key;
 * - `{"AWS": "<12-digit account id>"}` or `{"AWS": "arn:aws:iam::<any account>:root"}`: every authenticated key.
 * Service, CanonicalUser and Federated principals name nothing in Store and are refused.
 */
export type PrincipalRef =
  { readonly kind: 'any' } | { readonly kind: 'key'; readonly accessKeyId: string } | { readonly kind: 'account' };

/** A list of patterns from X or NotX (negated). */
export interface MatchList<T> {
  readonly items: readonly T[];
  readonly negated: boolean;
}

export interface PolicyStatement {
  readonly sid?: string;
  readonly effect: Effect;
  /** Principal / NotPrincipal; absent in identity policies. NotPrincipal is accepted only with Deny. */
  readonly principal?: MatchList<PrincipalRef>;
  /** Action / NotAction patterns (`s3:Get*`, `*`), matched case-insensitively. */
  readonly action: MatchList<string>;
  /** Resource / NotResource ARN patterns, matched case-sensitively. */
  readonly resource: MatchList<string>;
  readonly conditions: readonly ConditionClause[];
}

export interface PolicyDocument {
  readonly kind: 'bucket' | 'identity';
  readonly version: PolicyVersion;
  readonly id?: string;
  readonly statements: readonly PolicyStatement[];
}

/** Every policy validation failure: AppError MalformedPolicy (400) with S3's wording. */
export function malformed(message: string): AppError {
  return new AppError('MalformedPolicy', { message });
}
