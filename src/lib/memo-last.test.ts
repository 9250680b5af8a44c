import { describe, expect, it } from 'vitest';
import { memoLast } from './memo-last.js';

describe('memoLast', () => {
  it('parses a run of the same text once and every change of text again', () => {
    const seen: string[] = [];
    const length = memoLast((text: string) => {
      seen.push(text);
      return text.length;
    });
    expect(['a', 'a', 'bb', 'bb', 'a', ''].map(length)).toEqual([1, 1, 2, 2, 1, 0]);
    expect(seen).toEqual(['a', 'bb', 'a', '']);
  });

  it('keeps its entry when a parse throws', () => {
    let calls = 0;
    const parse = memoLast((text: string) => {
      calls += 1;
      if (text === 'bad') throw new Error('bad input');
      return text.toUpperCase();
    });
    expect(parse('ok')).toBe('OK');
    expect(() => parse('bad')).toThrow('bad input');
    expect(() => parse('bad')).toThrow('bad input');
    expect(parse('ok')).toBe('OK');
    expect(calls).toBe(3);
  });
});
