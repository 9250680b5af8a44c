// The request context that conditions and policy variables read (aws:SourceIp, s3:prefix, ...), and
// policy-variable expansion (`${aws:username}`, `${*}`), which IAM applies only in Version 2012-10-17 policies.

import { type GlobToken, globTokens, literalTokens } from './wildcard.js';

/** Condition keys as the caller supplies them: a value, several values, or undefined for "not present". */
export type ContextInput = Readonly<Record<string, string | readonly string[] | undefined>>;

/** Normalised context: lower-cased key names (a tag key after `/` keeps its case), no empty entries. */
export type ConditionContext = ReadonlyMap<string, readonly string[]>;

/**
 * Condition key names are case-insensitive in IAM (`AWS:SourceIp` is `aws:SourceIp`); the part after a `/`
 * (a tag key in `s3:ExistingObjectTag/<key>`) is user data and keeps its case.
 */
export function normaliseConditionKey(key: string): string {
  const slash = key.indexOf('/');
  return slash < 0 ? key.toLowerCase() : key.slice(0, slash).toLowerCase() + key.slice(slash);
}

export function normaliseContext(input: ContextInput): ConditionContext {
  const ctx = new Map<string, readonly string[]>();
  for (const [key, value] of Object.entries(input)) {
    if (value === undefined) continue;
    const values = typeof value === 'string' ? [value] : value;
    if (values.length > 0) ctx.set(normaliseConditionKey(key), values);
  }
  return ctx;
}

const ESCAPES: Readonly<Record<string, string>> = { '*': '*', '?': '?', $: '$' };

/** The single value a variable stands for, or undefined when the key is absent or multi-valued. */
function variableValue(expr: string, ctx: ConditionContext): string | undefined {
  // `${key, 'default'}` supplies a value for an absent key.
  const match = /^\s*([^,\s]+)\s*(?:,\s*'([^']*)'\s*)?$/.exec(expr);
  if (match === null) return undefined;
  const values = ctx.get(normaliseConditionKey(match[1] ?? ''));
  if (values !== undefined && values.length === 1) return values[0];
  return match[2];
}

type Piece = { kind: 'text'; text: string } | { kind: 'value'; text: string };

/** Splits around `${...}`; undefined when a variable has no value (IAM: the element then does not match). */
function expand(text: string, ctx: ConditionContext, enabled: boolean): Piece[] | undefined {
  if (!enabled || !text.includes('${')) return [{ kind: 'text', text }];
  const pieces: Piece[] = [];
  let rest = text;
  for (let start = rest.indexOf('${'); start >= 0; start = rest.indexOf('${')) {
    const end = rest.indexOf('}', start);
    if (end < 0) break;
    pieces.push({ kind: 'text', text: rest.slice(0, start) });
    const expr = rest.slice(start + 2, end);
    const escaped = ESCAPES[expr];
    const value = escaped ?? variableValue(expr, ctx);
    if (value === undefined) return undefined;
    pieces.push({ kind: 'value', text: value });
    rest = rest.slice(end + 1);
  }
  pieces.push({ kind: 'text', text: rest });
  return pieces;
}

/** A wildcard pattern with variables substituted; substituted text never acts as a wildcard. */
export function expandPattern(text: string, ctx: ConditionContext, enabled: boolean): GlobToken[] | undefined {
  const pieces = expand(text, ctx, enabled);
  return pieces?.flatMap((p) => (p.kind === 'text' ? globTokens(p.text) : literalTokens(p.text)));
}

/** A literal value with variables substituted (for StringEquals and friends). */
export function expandLiteral(text: string, ctx: ConditionContext, enabled: boolean): string | undefined {
  return expand(text, ctx, enabled)
    ?.map((p) => p.text)
    .join('');
}

/** Escapes a literal so that it survives as itself inside a 2012-10-17 pattern (`*` -> `${*}`). */
export function escapeForPattern(literal: string): string {
  return literal.replace(/[$*?]/g, (ch) => '${' + ch + '}');
}
