import { describe, expect, it } from 'vitest';
import { lineColumn, parseJson, policyProblems } from './json-check';

describe('parseJson', () => {
  it('parses valid JSON', () => {
    expect(parseJson('{"a": [1]}')).toEqual({ ok: true, value: { a: [1] } });
  });

  it('names the line and column of a syntax error', () => {
    const result = parseJson('{\n  "a": 1,\n  "b" 2\n}');
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.line).toBe(3);
      expect(result.message).toMatch(/^Line 3, column \d+: /);
    }
  });

  it('computes line and column from an offset', () => {
    expect(lineColumn('ab\ncd', 4)).toEqual({ line: 2, column: 2 });
  });
});

describe('policyProblems', () => {
  const statement = { Effect: 'Allow', Action: 's3:GetObject', Resource: 'arn:aws:s3:::b/*' };

  it('accepts a well-formed key policy and bucket policy', () => {
    expect(policyProblems({ Version: '2012-10-17', Statement: [statement] }, { requirePrincipal: false })).toEqual([]);
    expect(
      policyProblems(
        { Version: '2012-10-17', Statement: { ...statement, Principal: '*' } },
        { requirePrincipal: true },
      ),
    ).toEqual([]);
  });

  it('names each problem', () => {
    expect(policyProblems([], { requirePrincipal: false })).toEqual(['The policy must be a JSON object.']);
    const problems = policyProblems(
      { Version: '2020', Statement: [{ Effect: 'Maybe' }, { ...statement, Principal: '*' }] },
      { requirePrincipal: false },
    );
    expect(problems).toContain('Version: use "2012-10-17".');
    expect(problems).toContain('Statement 1: Effect must be "Allow" or "Deny".');
    expect(problems).toContain('Statement 1: needs Action (a string or a list of strings).');
    expect(problems).toContain('Statement 2: a key policy has no Principal (the key is the principal).');
    expect(policyProblems({ Statement: [statement] }, { requirePrincipal: true })).toEqual([
      'Statement 1: a bucket policy statement needs Principal.',
    ]);
  });
});
