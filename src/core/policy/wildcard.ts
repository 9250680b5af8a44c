// IAM-style wildcard patterns: `*` matches any run of characters (including `/` and none), `?` exactly one.
// Patterns are token lists so that text substituted from a policy variable stays literal.
// Matching is iterative (no regular expressions), so a hostile pattern cannot cause catastrophic backtracking.

/** One unit of a pattern: a literal character (a whole code point), or a wildcard. */
export type GlobToken = string | typeof ANY_RUN | typeof ANY_ONE;

/** The `*` wildcard: any run of characters. */
export const ANY_RUN: unique symbol = Symbol('*');
/** The `?` wildcard: exactly one character. */
export const ANY_ONE: unique symbol = Symbol('?');

/** Splits a pattern string into tokens; `*` and `?` become wildcards, everything else is literal. */
export function globTokens(pattern: string): GlobToken[] {
  const tokens: GlobToken[] = [];
  for (const ch of pattern) tokens.push(ch === '*' ? ANY_RUN : ch === '?' ? ANY_ONE : ch);
  return tokens;
}

/** Tokens that match `text` literally (for substituted variable values). */
export function literalTokens(text: string): GlobToken[] {
  return Array.from(text);
}

export function hasWildcard(pattern: string): boolean {
  return pattern.includes('*') || pattern.includes('?');
}

/**
 * Does `text` match the token pattern? With `ignoreCase`, literal characters compare case-insensitively
 * (action names are case-insensitive in IAM; resources and condition values are not).
 */
export function matchTokens(tokens: readonly GlobToken[], text: string, ignoreCase = false): boolean {
  const chars = Array.from(ignoreCase ? text.toLowerCase() : text);
  const pat = ignoreCase ? tokens.map((t) => (typeof t === 'string' ? t.toLowerCase() : t)) : tokens;
  let p = 0;
  let t = 0;
  // The position after the last `*` seen and the text position it was tried at: on a mismatch, let that
  // `*` swallow one more character and retry. Linear in practice, O(n*m) at worst.
  let starP = -1;
  let starT = 0;
  while (t < chars.length) {
    const token = pat[p];
    if (p < pat.length && (token === ANY_ONE || token === chars[t])) {
      p += 1;
      t += 1;
    } else if (p < pat.length && token === ANY_RUN) {
      starP = p;
      starT = t;
      p += 1;
    } else if (starP >= 0) {
      p = starP + 1;
      starT += 1;
      t = starT;
    } else {
      return false;
    }
  }
  while (p < pat.length && pat[p] === ANY_RUN) p += 1;
  return p === pat.length;
}

/** Convenience: match a plain pattern string (no variables). */
export function wildcardMatch(pattern: string, text: string, ignoreCase = false): boolean {
  return matchTokens(globTokens(pattern), text, ignoreCase);
}
