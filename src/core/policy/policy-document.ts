// parseBucketPolicy: the validation S3's PutBucketPolicy applies (JSON, grammar, 20 KB limit, resources in this
// bucket), and parsePolicy, the parser shared with scoped-key (identity) policies. The model lives in model.ts;
// Store's principal naming is documented on PrincipalRef there.

import { AppError } from '../errors.js';
import { malformed, type PolicyDocument } from './model.js';
import { parseStatement, type StatementMode } from './statement.js';

export type { Effect, MatchList, PolicyDocument, PolicyStatement, PolicyVersion, PrincipalRef } from './model.js';

/** S3's bucket policy limit ("Bucket policies are limited to 20 KB in size"), applied to scoped-key policies too. */
export const MAX_POLICY_BYTES = 20 * 1024;
// Past this we refuse without parsing; between the two we measure the whitespace-free form, as AWS
// normalises before measuring (a pretty-printed policy may be larger than 20 KB on the wire).
const MAX_RAW_BYTES = 256 * 1024;

const utf8Length = (text: string): number => new TextEncoder().encode(text).length;

/**
 * The whitespace-free form of a parsed document. JSON.stringify recurses: arrays nested some 100,000 deep (which fit
 * in the raw limit and which JSON.parse takes) overflow the stack, and no policy is nested like that.
 */
function compactJson(doc: unknown): string {
  try {
    return JSON.stringify(doc);
  } catch (err) {
    throw new AppError('MalformedPolicy', { message: 'This policy contains invalid Json', cause: err });
  }
}

function parseJson(json: string): unknown {
  if (!json.startsWith('{')) throw malformed("Policies must be valid JSON and the first byte must be '{'");
  if (utf8Length(json) > MAX_RAW_BYTES) throw malformed('Policy exceeds the maximum allowed document size.');
  let doc: unknown;
  try {
    doc = JSON.parse(json);
  } catch (err) {
    throw new AppError('MalformedPolicy', { message: 'This policy contains invalid Json', cause: err });
  }
  if (utf8Length(compactJson(doc)) > MAX_POLICY_BYTES)
    throw malformed('Policy exceeds the maximum allowed document size.');
  return doc;
}

/** Parses and validates a policy in either mode; parseBucketPolicy and parseIdentityPolicy are the entry points. */
export function parsePolicy(json: string, mode: StatementMode): PolicyDocument {
  const doc = parseJson(json);
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc))
    throw malformed('This policy contains invalid Json');
  const fields = doc as Record<string, unknown>;
  const unknown = Object.keys(fields).find((k) => k !== 'Version' && k !== 'Id' && k !== 'Statement');
  if (unknown !== undefined) throw malformed(`Policy has an unknown field: ${unknown}`);
  // IAM: a policy without Version is read as 2008-10-17 (no policy variables).
  const version = fields['Version'] ?? '2008-10-17';
  if (version !== '2012-10-17' && version !== '2008-10-17')
    throw malformed('The policy must contain a valid version string');
  const id = fields['Id'];
  if (id !== undefined && typeof id !== 'string') throw malformed('Policy Id must be a string');
  const raw = fields['Statement'];
  if (raw === undefined) throw malformed('Missing required field Statement');
  const list = Array.isArray(raw) ? (raw as unknown[]) : [raw];
  if (list.length === 0) throw malformed('Could not parse the policy: Statement is empty!');
  const statements = list.map((s) => parseStatement(s, mode));
  const sids = new Set<string>();
  for (const { sid } of statements) {
    if (sid === undefined || sid === '') continue;
    if (sids.has(sid)) throw malformed(`Statement IDs (SID) in a single policy must be unique: ${sid}`);
    sids.add(sid);
  }
  return id === undefined ? { kind: mode.kind, version, statements } : { kind: mode.kind, version, id, statements };
}

export interface BucketPolicyOptions {
  /** When given, a principal naming an access key that does not exist is refused ("Invalid principal in policy"). */
  readonly principalExists?: (accessKeyId: string) => boolean;
}

/**
 * Validates a bucket policy as PutBucketPolicy does and returns its model. Resources must be this bucket or
 * objects in it (`*` included); every statement needs Effect, Principal (or NotPrincipal with Deny), Action
 * (or NotAction) and Resource (or NotResource); actions must be S3 actions that apply to the named resources.
 * Throws AppError MalformedPolicy (400) with S3's message for the first problem found.
 */
export function parseBucketPolicy(json: string, bucket: string, options: BucketPolicyOptions = {}): PolicyDocument {
  return parsePolicy(json, { kind: 'bucket', bucket, principalExists: options.principalExists });
}
