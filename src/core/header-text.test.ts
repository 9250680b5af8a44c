import { describe, expect, it } from 'vitest';
import { asHeaderBytes, isHeaderName, isHeaderValue } from './header-text.js';

describe('header text', () => {
  it('accepts what a header can carry and refuses controls', () => {
    for (const ok of ['text/html; charset=utf-8', 'a\tb', '', 'Ã©', '\x80\xff'])
      expect(isHeaderValue(ok), JSON.stringify(ok)).toBe(true);
    for (const bad of ['a\r\nX-Evil: 1', 'a\nb', '\u0000', '\u0001', '\u007f', '日'])
      expect(isHeaderValue(bad), JSON.stringify(bad)).toBe(false);
  });

  it('names must be tokens', () => {
    expect(isHeaderName('original-name_1')).toBe(true);
    for (const bad of ['', 'a b', 'a:b', 'é', 'a\r\n']) expect(isHeaderName(bad), JSON.stringify(bad)).toBe(false);
  });

  it('turns decoded text into its UTF-8 bytes, one character each, as Node reads a header', () => {
    expect(asHeaderBytes('plain ascii')).toBe('plain ascii');
    expect(asHeaderBytes('résumé 日本')).toBe(Buffer.from('résumé 日本', 'utf8').toString('latin1'));
    expect(isHeaderValue(asHeaderBytes('日本 😀'))).toBe(true);
    expect(Buffer.from(asHeaderBytes('日本'), 'latin1').toString('utf8')).toBe('日本');
  });
});
