// The Condition element: parsing (operators, keys, values checked as S3 does on PutBucketPolicy) and evaluation.
// Semantics follow the IAM User Guide, "Condition operators" and "Conditions with multiple context keys or values":
// operators AND, keys AND, values OR (NOR for negated operators); a missing key fails a positive operator and
// passes a negated one, except ...IfExists (missing passes), Null, and the ForAllValues/ForAnyValue qualifiers.

import { type ConditionContext, expandLiteral, expandPattern, normaliseConditionKey } from './context.js';
import { cidrContains, parseCidr, parseIp } from './ip.js';
import { matchTokens } from './wildcard.js';

/** One operator applied to one key: `{"StringLike": {"s3:prefix": ["a/*"]}}` is one clause. */
export interface ConditionClause {
  /** Canonical base operator name, e.g. StringLike (without IfExists or a qualifier). */
  readonly operator: string;
  readonly qualifier?: 'ForAnyValue' | 'ForAllValues';
  readonly ifExists: boolean;
  /** Normalised key name (see normaliseConditionKey). */
  readonly key: string;
  readonly values: readonly string[];
}

/**
 * What a policy value's variables expand against: the request context, and whether the policy version has variables.
 */
interface Expansion {
  readonly ctx: ConditionContext;
  readonly vars: boolean;
}

interface Operator {
  /** Does one request value match one policy value (the positive sense for negated operators)? */
  readonly test: (request: string, policy: string, env: Expansion) => boolean;
  readonly negated: boolean;
  readonly valid: (value: string) => boolean;
}

const NUMBER = /^-?\d+(\.\d+)?$/;
const ISO_DATE = /^(\d{4}-\d{2}-\d{2})(T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?(Z|[+-]\d{2}:?\d{2})?$/;

function parseNumber(text: string): number | undefined {
  return NUMBER.test(text.trim()) ? Number(text) : undefined;
}

/** ISO 8601 (date, date-time, with or without zone: no zone means UTC) or epoch seconds. */
function parseDate(text: string): number | undefined {
  const trimmed = text.trim();
  if (/^\d{1,12}$/.test(trimmed)) return Number(trimmed) * 1000;
  const m = ISO_DATE.exec(trimmed);
  if (m === null) return undefined;
  const zone = m[3] === undefined ? 'Z' : m[3].replace(/^([+-]\d{2})(\d{2})$/, '$1:$2');
  const ms = Date.parse(m[2] === undefined ? `${m[1]}T00:00:00Z` : `${m[1]}${m[2]}${zone}`);
  return Number.isNaN(ms) ? undefined : ms;
}

function compare(parse: (t: string) => number | undefined, cmp: (a: number, b: number) => boolean) {
  return (request: string, policy: string): boolean => {
    const a = parse(request);
    const b = parse(policy);
    return a !== undefined && b !== undefined && cmp(a, b);
  };
}

const anyString = (): boolean => true;
const isNumber = (v: string): boolean => parseNumber(v) !== undefined;
const isDate = (v: string): boolean => parseDate(v) !== undefined;
const isBool = (v: string): boolean => /^(true|false)$/i.test(v);
const isCidr = (v: string): boolean => parseCidr(v.trim()) !== undefined;

const stringEquals = (r: string, p: string, { ctx, vars }: Expansion): boolean => expandLiteral(p, ctx, vars) === r;
const stringEqualsIgnoreCase = (r: string, p: string, { ctx, vars }: Expansion): boolean =>
  expandLiteral(p, ctx, vars)?.toLowerCase() === r.toLowerCase();
const like = (r: string, p: string, { ctx, vars }: Expansion): boolean => {
  const tokens = expandPattern(p, ctx, vars);
  return tokens !== undefined && matchTokens(tokens, r);
};
const inCidr = (r: string, p: string): boolean => {
  const ip = parseIp(r);
  const cidr = parseCidr(p.trim());
  return ip !== undefined && cidr !== undefined && cidrContains(cidr, ip);
};

const op = (test: Operator['test'], valid: Operator['valid'], negated = false): Operator => ({ test, valid, negated });

const OPERATORS: ReadonlyMap<string, Operator> = new Map([
  ['StringEquals', op(stringEquals, anyString)],
  ['StringNotEquals', op(stringEquals, anyString, true)],
  ['StringEqualsIgnoreCase', op(stringEqualsIgnoreCase, anyString)],
  ['StringNotEqualsIgnoreCase', op(stringEqualsIgnoreCase, anyString, true)],
  ['StringLike', op(like, anyString)],
  ['StringNotLike', op(like, anyString, true)],
  [
    'NumericEquals',
    op(
      compare(parseNumber, (a, b) => a === b),
      isNumber,
    ),
  ],
  [
    'NumericNotEquals',
    op(
      compare(parseNumber, (a, b) => a === b),
      isNumber,
      true,
    ),
  ],
  [
    'NumericLessThan',
    op(
      compare(parseNumber, (a, b) => a < b),
      isNumber,
    ),
  ],
  [
    'NumericLessThanEquals',
    op(
      compare(parseNumber, (a, b) => a <= b),
      isNumber,
    ),
  ],
  [
    'NumericGreaterThan',
    op(
      compare(parseNumber, (a, b) => a > b),
      isNumber,
    ),
  ],
  [
    'NumericGreaterThanEquals',
    op(
      compare(parseNumber, (a, b) => a >= b),
      isNumber,
    ),
  ],
  [
    'DateEquals',
    op(
      compare(parseDate, (a, b) => a === b),
      isDate,
    ),
  ],
  [
    'DateNotEquals',
    op(
      compare(parseDate, (a, b) => a === b),
      isDate,
      true,
    ),
  ],
  [
    'DateLessThan',
    op(
      compare(parseDate, (a, b) => a < b),
      isDate,
    ),
  ],
  [
    'DateLessThanEquals',
    op(
      compare(parseDate, (a, b) => a <= b),
      isDate,
    ),
  ],
  [
    'DateGreaterThan',
    op(
      compare(parseDate, (a, b) => a > b),
      isDate,
    ),
  ],
  [
    'DateGreaterThanEquals',
    op(
      compare(parseDate, (a, b) => a >= b),
      isDate,
    ),
  ],
  ['Bool', op((r, p) => r.toLowerCase() === p.toLowerCase(), isBool)],
  ['BinaryEquals', op((r, p) => r === p, anyString)],
  ['IpAddress', op(inCidr, isCidr)],
  ['NotIpAddress', op(inCidr, isCidr, true)],
  ['ArnEquals', op(like, anyString)],
  ['ArnLike', op(like, anyString)],
  ['ArnNotEquals', op(like, anyString, true)],
  ['ArnNotLike', op(like, anyString, true)],
  ['Null', op(() => false, isBool)],
]);

const CANONICAL_OPERATOR: ReadonlyMap<string, string> = new Map([...OPERATORS.keys()].map((k) => [k.toLowerCase(), k]));

// Global keys (IAM "AWS global condition context keys") and the S3 keys (Service Authorization Reference).
const KNOWN_KEYS: ReadonlySet<string> = new Set(
  `aws:CalledVia aws:CalledViaFirst aws:CalledViaLast aws:CurrentTime aws:EpochTime aws:FederatedProvider
  aws:MultiFactorAuthAge aws:MultiFactorAuthPresent aws:PrincipalAccount aws:PrincipalArn aws:PrincipalIsAWSService
  aws:PrincipalOrgID aws:PrincipalOrgPaths aws:PrincipalServiceName aws:PrincipalServiceNamesList aws:PrincipalType
  aws:Referer aws:RequestedRegion aws:ResourceAccount aws:ResourceOrgID aws:ResourceOrgPaths aws:SecureTransport
  aws:SourceAccount aws:SourceArn aws:SourceIdentity aws:SourceIp aws:SourceOrgID aws:SourceOrgPaths aws:SourceVpc
  aws:SourceVpce aws:SourceVpcArn aws:TagKeys aws:TokenIssueTime aws:UserAgent aws:userid aws:username aws:ViaAWSService
  aws:VpcSourceIp aws:Ec2InstanceSourceVpc aws:Ec2InstanceSourcePrivateIPv4
  s3:AccessGrantsInstanceArn s3:AccessPointNetworkOrigin s3:authType s3:DataAccessPointAccount s3:DataAccessPointArn
  s3:delimiter s3:ExistingJobOperation s3:ExistingJobPriority s3:if-match s3:if-none-match s3:JobSuspendedCause
  s3:LocationConstraint s3:max-keys s3:object-lock-legal-hold s3:object-lock-mode s3:object-lock-remaining-retention-days
  s3:object-lock-retain-until-date s3:ObjectCreationOperation s3:prefix s3:RequestJobOperation s3:RequestJobPriority
  s3:RequestObjectTagKeys s3:ResourceAccount s3:signatureAge s3:signatureversion s3:TlsVersion s3:versionid s3:x-amz-acl
  s3:x-amz-content-sha256 s3:x-amz-copy-source s3:x-amz-grant-full-control s3:x-amz-grant-read s3:x-amz-grant-read-acp
  s3:x-amz-grant-write s3:x-amz-grant-write-acp s3:x-amz-metadata-directive s3:x-amz-object-ownership
  s3:x-amz-server-side-encryption s3:x-amz-server-side-encryption-aws-kms-key-id
  s3:x-amz-server-side-encryption-customer-algorithm s3:x-amz-storage-class s3:x-amz-website-redirect-location`
    .split(/\s+/)
    .filter(Boolean)
    .map((k) => k.toLowerCase()),
);
const KNOWN_KEY_PREFIXES = [
  'aws:principaltag/',
  'aws:requesttag/',
  'aws:resourcetag/',
  's3:existingobjecttag/',
  's3:requestobjecttag/',
  's3:buckettag/',
];

export function isKnownConditionKey(key: string): boolean {
  const k = normaliseConditionKey(key);
  if (KNOWN_KEYS.has(k)) return true;
  return KNOWN_KEY_PREFIXES.some((p) => k.startsWith(p) && k.length > p.length);
}

/** Thrown by parseConditionBlock; the policy parser turns it into AppError MalformedPolicy. */
export class ConditionError extends Error {}

function splitOperator(name: string): Pick<ConditionClause, 'operator' | 'qualifier' | 'ifExists'> | undefined {
  let rest = name;
  let qualifier: ConditionClause['qualifier'];
  const q = /^(ForAnyValue|ForAllValues):/i.exec(rest);
  if (q !== null) {
    qualifier = (q[1] ?? '').toLowerCase() === 'foranyvalue' ? 'ForAnyValue' : 'ForAllValues';
    rest = rest.slice(q[0].length);
  }
  const ifExists = /IfExists$/i.test(rest);
  if (ifExists) rest = rest.slice(0, -'IfExists'.length);
  const operator = CANONICAL_OPERATOR.get(rest.toLowerCase());
  if (operator === undefined || (operator === 'Null' && (ifExists || qualifier !== undefined))) return undefined;
  return qualifier === undefined ? { operator, ifExists } : { operator, qualifier, ifExists };
}

function conditionValues(raw: unknown): string[] | undefined {
  const list = Array.isArray(raw) ? (raw as unknown[]) : [raw];
  if (list.length === 0) return undefined;
  const values: string[] = [];
  for (const v of list) {
    // IAM accepts JSON numbers and booleans as condition values and compares their text.
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') values.push(String(v));
    else return undefined;
  }
  return values;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Parses a Condition element. Throws ConditionError with S3's wording for what is wrong. */
export function parseConditionBlock(raw: unknown): ConditionClause[] {
  if (!isPlainObject(raw)) throw new ConditionError('Invalid Condition: the Condition element must be an object');
  const clauses: ConditionClause[] = [];
  for (const [name, body] of Object.entries(raw)) {
    const parsed = splitOperator(name);
    if (parsed === undefined) throw new ConditionError(`Invalid Condition type : ${name}`);
    if (!isPlainObject(body) || Object.keys(body).length === 0) {
      throw new ConditionError(`Invalid Condition: ${name} must map condition keys to values`);
    }
    const operator = OPERATORS.get(parsed.operator);
    for (const [key, rawValues] of Object.entries(body)) {
      if (!isKnownConditionKey(key)) throw new ConditionError(`Policy has an invalid condition key: ${key}`);
      const values = conditionValues(rawValues);
      if (values === undefined) throw new ConditionError(`Invalid Condition value for ${name} ${key}`);
      const bad = values.find((v) => operator?.valid(v) !== true);
      if (bad !== undefined) throw new ConditionError(`Invalid Condition value for ${name} ${key}: ${bad}`);
      clauses.push({ ...parsed, key: normaliseConditionKey(key), values });
    }
  }
  return clauses;
}

/** Does one clause hold for the request context? `vars` enables policy variables (Version 2012-10-17). */
export function conditionHolds(clause: ConditionClause, ctx: ConditionContext, vars: boolean): boolean {
  const present = ctx.get(clause.key);
  if (clause.operator === 'Null') {
    // Null "true" asks for the key to be absent, "false" for it to be present.
    return clause.values.some((v) => (v.toLowerCase() === 'true') === (present === undefined));
  }
  const operator = OPERATORS.get(clause.operator);
  if (operator === undefined) return false;
  if (present === undefined) {
    if (clause.ifExists || clause.qualifier === 'ForAllValues') return true;
    if (clause.qualifier === 'ForAnyValue') return false;
    return operator.negated;
  }
  const env: Expansion = { ctx, vars };
  const matchesAny = (r: string): boolean => clause.values.some((p) => operator.test(r, p, env));
  const satisfied = (r: string): boolean => (operator.negated ? !matchesAny(r) : matchesAny(r));
  if (clause.qualifier === 'ForAllValues') return present.every(satisfied);
  if (clause.qualifier === 'ForAnyValue') return present.some(satisfied);
  return operator.negated ? present.every(satisfied) : present.some(satisfied);
}

export function conditionsHold(clauses: readonly ConditionClause[], ctx: ConditionContext, vars: boolean): boolean {
  return clauses.every((c) => conditionHolds(c, ctx, vars));
}
