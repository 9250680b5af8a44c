import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { escapeXml, isoTimestamp, s3UrlEncode } from './escape.js';

describe('escapeXml', () => {
  it('returns plain text unchanged', () => {
    expect(escapeXml('photos/2024/cat.jpg')).toBe('photos/2024/cat.jpg');
    expect(escapeXml('日本語 😀 tab\there')).toBe('日本語 😀 tab\there');
  });
  it('escapes markup characters', () => {
    expect(escapeXml(`<a href="x">&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&amp;&apos;&lt;/a&gt;');
    expect(escapeXml('&amp;')).toBe('&amp;amp;');
  });
  it('writes CR and LF as character references so end-of-line normalisation cannot alter keys', () => {
    expect(escapeXml('a\r\nb\rc\nd')).toBe('a&#xD;&#xA;b&#xD;c&#xA;d');
  });
  it('writes other control characters and U+FFFE/U+FFFF as character references, as S3 does', () => {
    expect(escapeXml('a\u0001b\u001Fc\u0000')).toBe('a&#x1;b&#x1F;c&#x0;');
    expect(escapeXml('\uFFFE\uFFFF')).toBe('&#xFFFE;&#xFFFF;');
  });
});

describe('s3UrlEncode', () => {
  it('keeps unreserved characters and slashes', () => {
    expect(s3UrlEncode('photos/2024/cat-1_a.b*c')).toBe('photos/2024/cat-1_a.b*c');
  });
  it('encodes like S3: space as +, plus and parentheses percent-encoded', () => {
    expect(s3UrlEncode('a+b (1).txt')).toBe('a%2Bb+%281%29.txt');
    expect(s3UrlEncode("run books/x y%z~!'")).toBe('run+books/x+y%25z%7E%21%27');
    expect(s3UrlEncode('日本')).toBe('%E6%97%A5%E6%9C%AC');
    expect(s3UrlEncode('\u0001\r\n<&>"')).toBe('%01%0D%0A%3C%26%3E%22');
  });
  it('round-trips through form decoding (what unquote_plus and the SDKs do)', () => {
    const decode = (s: string): string => decodeURIComponent(s.replace(/\+/g, ' '));
    for (let i = 0; i < 200; i++) {
      const text = randomBytes(24).toString('latin1') + '😀 +/%';
      const encoded = s3UrlEncode(text);
      expect(encoded).toMatch(/^[A-Za-z0-9\-_.*/%+]*$/);
      expect(decode(encoded)).toBe(text);
    }
  });
});

describe('isoTimestamp', () => {
  it('renders UTC with milliseconds', () => {
    expect(isoTimestamp(new Date(Date.UTC(2009, 9, 12, 17, 50, 30)))).toBe('2009-10-12T17:50:30.000Z');
    expect(isoTimestamp(new Date(Date.UTC(2024, 0, 2, 3, 4, 5, 67)))).toBe('2024-01-02T03:04:05.067Z');
  });
});
