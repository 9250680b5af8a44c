// The POST Object policy document: `{"expiration": ISO 8601, "conditions": [...]}`, base64 in the form's `policy`
// field, and its checks against the form: exact matches, starts-with, content-length-range, and "every field is
// covered by a condition". https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-HTTPPOSTConstructPolicy.html

import { AppError } from '../../core/errors.js';

type Condition =
  | { kind: 'eq' | 'starts-with'; field: string; value: string; text: string }
  | { kind: 'content-length-range'; min: number; max: number; text: string }
  /** A condition S3 cannot apply (unknown operator, wrong arity or types): it fails when checked. */
  | { kind: 'invalid'; field?: string; text: string };

export interface PostPolicy {
  /** Epoch ms. */
  readonly expiration: number;
  readonly conditions: readonly Condition[];
}

/** The size bounds from content-length-range conditions (inclusive); no condition: 0 to Infinity. */
export interface SizeRange {
  readonly min: number;
  readonly max: number;
}

const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/;
// Fields whose conditions must be exact: `starts-with` on them is a failed condition, as in S3.
const EXACT_ONLY = new Set(['bucket', 'success_action_status']);
// Form fields the policy never has to name.
// The signature fields (SigV4's x-amz-signature, SigV2's signature and AWSAccessKeyId) sign the policy itself.
const UNCOVERED = new Set(['policy', 'x-amz-signature', 'signature', 'awsaccesskeyid', 'file']);

function invalidPolicy(message: string): AppError {
  return new AppError('InvalidPolicyDocument', { message: `Invalid Policy: ${message}` });
}

function denied(message: string): AppError {
  return new AppError('AccessDenied', { message: `Invalid according to Policy: ${message}` });
}

/** S3 prints a condition as JSON with ", " between the elements. */
function conditionText(parts: readonly unknown[]): string {
  return `[${parts.map((p) => JSON.stringify(p) ?? 'null').join(', ')}]`;
}

function sizeBound(value: unknown): number | undefined {
  const n =
    typeof value === 'number'
      ? value
      : typeof value === 'string' && /^\d{1,16}$/.test(value.trim())
        ? Number(value)
        : NaN;
  return Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}

function parseCondition(raw: unknown): Condition {
  if (typeof raw === 'object' && raw !== null && !Array.isArray(raw)) {
    const entries = Object.entries(raw as Record<string, unknown>);
    if (entries.length !== 1) {
      throw invalidPolicy('Invalid Simple-Condition: Simple-Conditions must have exactly one property specified.');
    }
    const [name, value] = entries[0] as [string, unknown];
    const text = conditionText(['eq', `$${name}`, value]);
    return typeof value === 'string'
      ? { kind: 'eq', field: name.toLowerCase(), value, text }
      : { kind: 'invalid', field: name.toLowerCase(), text };
  }
  if (!Array.isArray(raw)) return { kind: 'invalid', text: JSON.stringify(raw) ?? 'null' };
  const parts = raw as unknown[];
  const text = conditionText(parts);
  const [op, a, b] = parts;
  if (parts.length !== 3 || typeof op !== 'string') return { kind: 'invalid', text };
  const operator = op.toLowerCase();
  if (operator === 'content-length-range') {
    const min = sizeBound(a);
    const max = sizeBound(b);
    return min === undefined || max === undefined
      ? { kind: 'invalid', text }
      : { kind: 'content-length-range', min, max, text };
  }
  if (typeof a !== 'string' || !a.startsWith('$')) return { kind: 'invalid', text };
  const field = a.slice(1).toLowerCase();
  if ((operator === 'eq' || operator === 'starts-with') && typeof b === 'string')
    return { kind: operator, field, value: b, text };
  return { kind: 'invalid', field, text };
}

/**
 * Decodes and parses the policy field. Throws InvalidPolicyDocument (400) for text that is not base64 JSON, or a
 * document without a valid expiration or a conditions list.
 */
export function decodePostPolicy(base64: string): PostPolicy {
  const compact = base64.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(compact) || compact.length % 4 === 1) throw invalidPolicy('Invalid JSON.');
  let doc: unknown;
  try {
    doc = JSON.parse(Buffer.from(compact, 'base64').toString('utf8'));
  } catch (err) {
    throw new AppError('InvalidPolicyDocument', { message: 'Invalid Policy: Invalid JSON.', cause: err });
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw invalidPolicy('Invalid JSON.');
  const fields = doc as Record<string, unknown>;
  const expiration = fields['expiration'];
  if (expiration === undefined) throw invalidPolicy('Policy missing expiration.');
  const expiresAt = typeof expiration === 'string' && ISO_TIMESTAMP.test(expiration) ? Date.parse(expiration) : NaN;
  if (Number.isNaN(expiresAt)) {
    // Not String(expiration): a JSON object such as {"toString": 1} cannot be made a string that way (TypeError, a
    // 500).
    throw invalidPolicy(
      `Invalid 'expiration' value: '${typeof expiration === 'string' ? expiration : JSON.stringify(expiration).slice(0, 64)}'`,
    );
  }
  const conditions = fields['conditions'];
  if (conditions === undefined) throw invalidPolicy('Policy missing conditions.');
  if (!Array.isArray(conditions)) throw invalidPolicy("Invalid 'conditions' value: must be a list.");
  return { expiration: expiresAt, conditions: (conditions as unknown[]).map(parseCondition) };
}

function holds(c: Condition & { kind: 'eq' | 'starts-with' }, value: string | undefined): boolean {
  if (c.kind === 'eq') return value === c.value;
  if (EXACT_ONLY.has(c.field) || (c.field.startsWith('x-amz-') && !c.field.startsWith('x-amz-meta-'))) return false;
  // An empty prefix accepts anything, the field's absence included.
  if (c.value === '') return true;
  if (value === undefined) return false;
  // Content-Type may list several types; each of them must have the prefix.
  if (c.field === 'content-type') return value.split(',').every((t) => t.trim().startsWith(c.value));
  return value.startsWith(c.value);
}

/**
 * Checks the form against the policy at `now`. `fields` has lower-case names, `bucket` set to the request's bucket and
 * `key` after ${filename} substitution. Returns the size bounds the file must respect (checked while it streams).
 * Throws AccessDenied "Invalid according to Policy: ..." for an expired policy, a failed condition, or a field no
 * condition names (other than policy, the signature fields, file and x-ignore-*).
 */
export function checkPostPolicy(policy: PostPolicy, fields: ReadonlyMap<string, string>, now: Date): SizeRange {
  if (now.getTime() > policy.expiration) throw denied('Policy expired.');
  let min = 0;
  let max = Number.POSITIVE_INFINITY;
  const covered = new Set<string>();
  for (const c of policy.conditions) {
    if ('field' in c && c.field !== undefined) covered.add(c.field);
    if (c.kind === 'invalid') throw denied(`Policy Condition failed: ${c.text}`);
    if (c.kind === 'content-length-range') {
      min = Math.max(min, c.min);
      max = Math.min(max, c.max);
      continue;
    }
    if (!holds(c, fields.get(c.field))) throw denied(`Policy Condition failed: ${c.text}`);
  }
  for (const name of fields.keys()) {
    if (UNCOVERED.has(name) || name.startsWith('x-ignore-') || covered.has(name)) continue;
    throw denied(`Extra input fields: ${name}`);
  }
  return { min, max };
}
