// JSON editors (bucket policy, key policy): parse with the line and column of a syntax error, and the shape checks a
// policy document needs before the server's own validation (which answers MalformedPolicy with its reason).

import { findJsonError } from './json-error';

export type JsonCheck = { ok: true; value: unknown } | { ok: false; message: string; line?: number; column?: number };

/** The line and column (1-based) of a character offset. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, Math.max(0, Math.min(offset, text.length)));
  const lines = before.split('\n');
  return { line: lines.length, column: (lines[lines.length - 1] ?? '').length + 1 };
}

/** JSON.parse with a readable error: "Line 3, column 5: expected ',' or '}', unexpected \"2\"". */
export function parseJson(text: string): JsonCheck {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (err) {
    const found = findJsonError(text);
    if (!found) return { ok: false, message: err instanceof Error ? err.message : String(err) };
    const where = lineColumn(text, found.offset);
    const message = found.message.charAt(0).toUpperCase() + found.message.slice(1);
    return { ok: false, message: `Line ${where.line}, column ${where.column}: ${message}.`, ...where };
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const stringOrStrings = (v: unknown): boolean =>
  typeof v === 'string' || (Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === 'string'));

/**
 * Problems in the shape of an IAM-style policy document (empty when none). `requirePrincipal`: bucket policies need
 * Principal in each statement; key policies must not have one.
 */
export function policyProblems(value: unknown, opts: { requirePrincipal: boolean }): string[] {
  if (!isObject(value)) return ['The policy must be a JSON object.'];
  const problems: string[] = [];
  if (value['Version'] !== undefined && value['Version'] !== '2012-10-17' && value['Version'] !== '2008-10-17') {
    problems.push('Version: use "2012-10-17".');
  }
  const raw = value['Statement'];
  const statements = Array.isArray(raw) ? raw : raw === undefined ? [] : [raw];
  if (statements.length === 0) problems.push('Statement: at least one statement is needed.');
  statements.forEach((s, i) => {
    const at = `Statement ${i + 1}`;
    if (!isObject(s)) {
      problems.push(`${at}: must be an object.`);
      return;
    }
    if (s['Effect'] !== 'Allow' && s['Effect'] !== 'Deny') problems.push(`${at}: Effect must be "Allow" or "Deny".`);
    if (!stringOrStrings(s['Action']) && !stringOrStrings(s['NotAction']))
      problems.push(`${at}: needs Action (a string or a list of strings).`);
    if (!stringOrStrings(s['Resource']) && !stringOrStrings(s['NotResource']))
      problems.push(`${at}: needs Resource (a string or a list of strings).`);
    const hasPrincipal = s['Principal'] !== undefined || s['NotPrincipal'] !== undefined;
    if (opts.requirePrincipal && !hasPrincipal) problems.push(`${at}: a bucket policy statement needs Principal.`);
    if (!opts.requirePrincipal && hasPrincipal)
      problems.push(`${at}: a key policy has no Principal (the key is the principal).`);
    if (s['Condition'] !== undefined && !isObject(s['Condition'])) problems.push(`${at}: Condition must be an object.`);
  });
  return problems;
}
