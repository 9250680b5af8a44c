import { describe, expect, it } from 'vitest';
import { ANY_RUN, type GlobToken, literalTokens, matchTokens, wildcardMatch } from './wildcard.js';

describe('wildcardMatch', () => {
  it.each([
    ['*', '', true],
    ['*', 'anything/at/all', true],
    ['s3:Get*', 's3:GetObject', true],
    ['s3:Get*', 's3:PutObject', false],
    ['s3:*Object', 's3:GetObject', true],
    ['s3:*Object', 's3:GetObjectAcl', false],
    ['s3:?etObject', 's3:GetObject', true],
    ['s3:?etObject', 's3:GGetObject', false],
    ['a*b*c', 'abc', true],
    ['a*b*c', 'aXXbYYc', true],
    ['a*b*c', 'aXXbYY', false],
    ['b/photos/*', 'b/photos/2024/a.jpg', true],
    ['b/photos/*', 'b/photos', false],
    ['b/file?.txt', 'b/file1.txt', true],
    ['b/file?.txt', 'b/file10.txt', false],
    ['b/file?.txt', 'b/file.txt', false],
    ['exact', 'exact', true],
    ['exact', 'exactly', false],
    ['**', 'x', true],
    ['*a', 'aaaa', true],
    ['?', '😀', true],
  ])('%s ~ %s -> %s', (pattern, text, expected) => {
    expect(wildcardMatch(pattern, text)).toBe(expected);
  });

  it('is case-sensitive unless asked', () => {
    expect(wildcardMatch('s3:getobject', 's3:GetObject')).toBe(false);
    expect(wildcardMatch('s3:get*', 's3:GetObject', true)).toBe(true);
  });

  it('treats literal tokens as literal even when they contain * or ?', () => {
    const tokens: GlobToken[] = [...literalTokens('a*'), ANY_RUN];
    expect(matchTokens(tokens, 'a*b')).toBe(true);
    expect(matchTokens(tokens, 'aXb')).toBe(false);
  });

  it('stays fast on a pathological pattern', () => {
    const start = Date.now();
    expect(wildcardMatch('*a*a*a*a*a*a*a*a*b', 'a'.repeat(2000))).toBe(false);
    expect(Date.now() - start).toBeLessThan(500);
  });
});
