// Parsing and validating one policy statement (Sid, Effect, Principal, Action, Resource, Condition and
// their Not forms) for a bucket policy or an identity (scoped-key) policy. Messages follow S3's MalformedPolicy texts.

import { ConditionError, parseConditionBlock, type ConditionClause } from './conditions.js';
import { malformed, type Effect, type MatchList, type PolicyStatement, type PrincipalRef } from './model.js';
import { canonicalAction, S3_ACTIONS } from './s3-actions.js';
import { hasWildcard, wildcardMatch } from './wildcard.js';

export type StatementMode =
  | {
      readonly kind: 'bucket';
      readonly bucket: string;
      readonly principalExists?: ((accessKeyId: string) => boolean) | undefined;
    }
  | { readonly kind: 'identity' };

const FIELDS = new Set([
  'Sid',
  'Effect',
  'Principal',
  'NotPrincipal',
  'Action',
  'NotAction',
  'Resource',
  'NotResource',
  'Condition',
]);
const ARN_PREFIX = 'arn:aws:s3:::';
const ACCOUNT_ID = /^\d{12}$/;
const IAM_ARN = /^arn:aws:iam::([^:]+):(root|user\/(?:.+\/)?([^/]+))$/;

type Fields = Record<string, unknown>;

function strings(raw: unknown, what: string): string[] {
  const list = Array.isArray(raw) ? (raw as unknown[]) : [raw];
  if (list.length === 0 || !list.every((v): v is string => typeof v === 'string' && v !== '')) {
    throw malformed(`Policy has invalid ${what}`);
  }
  return list as string[];
}

/** Exactly one of X / NotX must be present. */
function pick(fields: Fields, name: string): { raw: unknown; negated: boolean } | undefined {
  const plain = fields[name];
  const not = fields[`Not${name}`];
  if (plain !== undefined && not !== undefined) throw malformed(`Statement cannot contain both ${name} and Not${name}`);
  if (plain !== undefined) return { raw: plain, negated: false };
  if (not !== undefined) return { raw: not, negated: true };
  return undefined;
}

function validateAction(pattern: string): void {
  if (pattern === '*') return;
  if (!pattern.toLowerCase().startsWith('s3:')) throw malformed('Policy has invalid action');
  const known = hasWildcard(pattern)
    ? [...S3_ACTIONS.keys()].some((a) => wildcardMatch(pattern, a, true))
    : canonicalAction(pattern) !== undefined;
  if (!known) throw malformed('Policy has invalid action');
}

function principalRef(value: string, mode: StatementMode & { kind: 'bucket' }): PrincipalRef {
  if (value === '*') return { kind: 'any' };
  // Wildcards are allowed only as the whole principal, as in IAM.
  if (hasWildcard(value)) throw malformed('Invalid principal in policy');
  if (ACCOUNT_ID.test(value)) return { kind: 'account' };
  let accessKeyId = value;
  if (value.startsWith('arn:')) {
    const m = IAM_ARN.exec(value);
    if (m === null) throw malformed('Invalid principal in policy');
    if (m[2] === 'root') return { kind: 'account' };
    accessKeyId = m[3] ?? '';
  }
  if (mode.principalExists !== undefined && !mode.principalExists(accessKeyId))
    throw malformed('Invalid principal in policy');
  return { kind: 'key', accessKeyId };
}

function parsePrincipal(raw: unknown, mode: StatementMode & { kind: 'bucket' }): PrincipalRef[] {
  if (raw === '*') return [{ kind: 'any' }];
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw malformed('Invalid principal in policy');
  const entries = Object.entries(raw as Fields);
  if (entries.length === 0 || entries.some(([type]) => type !== 'AWS')) throw malformed('Invalid principal in policy');
  const values = Array.isArray(entries[0]?.[1]) ? (entries[0]?.[1] as unknown[]) : [entries[0]?.[1]];
  if (values.length === 0 || !values.every((v): v is string => typeof v === 'string' && v !== '')) {
    throw malformed('Invalid principal in policy');
  }
  return values.map((v) => principalRef(v, mode));
}

/** The bucket part of a resource ARN pattern, with policy variables read as wildcards. */
function bucketPattern(rest: string): string {
  const slash = rest.indexOf('/');
  return (slash < 0 ? rest : rest.slice(0, slash)).replace(/\$\{[^}]*\}/g, '*');
}

function validateResource(pattern: string, mode: StatementMode): void {
  if (pattern === '*') return;
  if (!pattern.startsWith(ARN_PREFIX)) throw malformed('Policy has invalid resource');
  const rest = pattern.slice(ARN_PREFIX.length);
  if (rest === '' || rest.startsWith('/')) throw malformed('Policy has invalid resource');
  // A bucket policy may only speak about its own bucket and the objects in it.
  if (mode.kind === 'bucket' && !wildcardMatch(bucketPattern(rest), mode.bucket))
    throw malformed('Policy has invalid resource');
}

/**
 * S3 refuses a statement whose concrete actions cannot apply to any resource it names (PutObject on the bucket ARN).
 */
function checkActionsApply(actions: readonly string[], resources: readonly string[], bucket: string): void {
  const rests = resources.map((r) => (r === '*' ? '*' : r.slice(ARN_PREFIX.length)));
  const coversObjects = rests.some((r) => r.includes('/') || r.includes('*'));
  const coversBucket = rests.some((r) => r === '*' || wildcardMatch(r.replace(/\$\{[^}]*\}/g, '*'), bucket));
  for (const action of actions) {
    if (hasWildcard(action)) continue;
    const level = S3_ACTIONS.get(canonicalAction(action) ?? '');
    const applies = level === 'object' ? coversObjects : level === 'bucket' ? coversBucket : rests.includes('*');
    if (!applies) throw malformed('Action does not apply to any resource(s) in statement');
  }
}

function parseConditions(raw: unknown): ConditionClause[] {
  if (raw === undefined) return [];
  try {
    return parseConditionBlock(raw);
  } catch (err) {
    if (err instanceof ConditionError) throw malformed(err.message);
    throw err;
  }
}

/** Parses one statement; throws AppError MalformedPolicy. */
export function parseStatement(raw: unknown, mode: StatementMode): PolicyStatement {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw malformed('Invalid policy document: a statement must be an object');
  const fields = raw as Fields;
  const unknown = Object.keys(fields).find((k) => !FIELDS.has(k));
  if (unknown !== undefined) throw malformed(`Statement has an unknown field: ${unknown}`);
  const sid = fields['Sid'];
  if (sid !== undefined && typeof sid !== 'string') throw malformed('Statement Sid must be a string');
  const effect = fields['Effect'];
  if (effect === undefined) throw malformed('Missing required field Effect');
  if (effect !== 'Allow' && effect !== 'Deny') {
    // Not String(effect): a JSON object such as {"toString": 1} cannot be made a string that way (TypeError, a 500).
    throw malformed(`Invalid effect: ${typeof effect === 'string' ? effect : JSON.stringify(effect).slice(0, 64)}`);
  }

  let principal: MatchList<PrincipalRef> | undefined;
  const rawPrincipal = pick(fields, 'Principal');
  if (mode.kind === 'identity') {
    if (rawPrincipal !== undefined) throw malformed('Policy document should not specify a principal.');
  } else {
    if (rawPrincipal === undefined) throw malformed('Missing required field Principal');
    // Allow with NotPrincipal would grant to everyone else, anonymous included: Store refuses it.
    if (rawPrincipal.negated && effect !== 'Deny')
      throw malformed('Invalid principal in policy: NotPrincipal is supported only with Deny');
    principal = { items: parsePrincipal(rawPrincipal.raw, mode), negated: rawPrincipal.negated };
  }

  const rawAction = pick(fields, 'Action');
  if (rawAction === undefined) throw malformed('Missing required field Action');
  const actions = strings(rawAction.raw, 'action');
  actions.forEach(validateAction);
  const rawResource = pick(fields, 'Resource');
  if (rawResource === undefined) throw malformed('Missing required field Resource');
  const resources = strings(rawResource.raw, 'resource');
  resources.forEach((r) => validateResource(r, mode));
  if (mode.kind === 'bucket' && !rawAction.negated && !rawResource.negated)
    checkActionsApply(actions, resources, mode.bucket);

  const statement: PolicyStatement = {
    effect: effect satisfies Effect,
    action: { items: actions, negated: rawAction.negated },
    resource: { items: resources, negated: rawResource.negated },
    conditions: parseConditions(fields['Condition']),
    ...(principal === undefined ? {} : { principal }),
  };
  return sid === undefined ? statement : { sid, ...statement };
}
