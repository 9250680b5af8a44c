import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AppError } from './errors.js';
import { etagMatches, md5Hex, multipartEtag, parseContentMd5, quoteEtag, unquoteEtag } from './etag.js';

const md5 = (s: string): Buffer => createHash('md5').update(s).digest();

describe('md5Hex', () => {
  it('is the lower-case hex MD5', () => {
    expect(md5Hex('')).toBe('d41d8cd98f00b204e9800998ecf8427e');
    expect(md5Hex(Buffer.from('hello'))).toBe('5d41402abc4b2a76b9719d911017c592');
  });
});

describe('multipartEtag', () => {
  it('is the MD5 of the concatenated binary part MD5s, dash, part count', () => {
    const parts = [md5('part one'), md5('part two'), md5('3')];
    const expected = createHash('md5').update(Buffer.concat(parts)).digest('hex');
    expect(multipartEtag(parts)).toBe(`${expected}-3`);
  });
  it('of a single part is still suffixed -1 and differs from the part MD5', () => {
    const etag = multipartEtag([md5('x')]);
    expect(etag).toMatch(/^[0-9a-f]{32}-1$/);
    expect(etag.startsWith(md5('x').toString('hex'))).toBe(false);
  });
});

describe('quoteEtag / unquoteEtag', () => {
  it('quotes once', () => {
    expect(quoteEtag('abc')).toBe('"abc"');
    expect(quoteEtag('"abc"')).toBe('"abc"');
    expect(quoteEtag('"')).toBe('"""');
  });
  it('strips quotes and weak prefixes', () => {
    expect(unquoteEtag('"abc"')).toBe('abc');
    expect(unquoteEtag('abc')).toBe('abc');
    expect(unquoteEtag('W/"abc"')).toBe('abc');
    expect(unquoteEtag(' "abc-2" ')).toBe('abc-2');
  });
});

describe('etagMatches', () => {
  const etag = '"5d41402abc4b2a76b9719d911017c592"';
  it('matches quoted, unquoted, weak and listed forms', () => {
    expect(etagMatches('"5d41402abc4b2a76b9719d911017c592"', etag)).toBe(true);
    expect(etagMatches('5d41402abc4b2a76b9719d911017c592', etag)).toBe(true);
    expect(etagMatches('W/"5d41402abc4b2a76b9719d911017c592"', etag)).toBe(true);
    expect(etagMatches('"nope", "5d41402abc4b2a76b9719d911017c592"', etag)).toBe(true);
    expect(etagMatches('"5d41402abc4b2a76b9719d911017c592"', '5d41402abc4b2a76b9719d911017c592')).toBe(true);
  });
  it('matches * against any etag', () => {
    expect(etagMatches('*', etag)).toBe(true);
    expect(etagMatches(' * ', 'anything')).toBe(true);
  });
  it('does not match other values, prefixes, or empty headers', () => {
    expect(etagMatches('"nope"', etag)).toBe(false);
    expect(etagMatches('"5d41402abc4b2a76b9719d911017c59"', etag)).toBe(false);
    expect(etagMatches('', etag)).toBe(false);
    expect(etagMatches(' , ', etag)).toBe(false);
    expect(etagMatches('"5D41402ABC4B2A76B9719D911017C592"', etag)).toBe(false);
  });
});

describe('parseContentMd5', () => {
  it('decodes a 16-byte base64 digest', () => {
    const digest = md5('hello');
    expect(parseContentMd5(digest.toString('base64'))).toEqual(digest);
    expect(parseContentMd5('1B2M2Y8AsgTpgAmY7PhCfg==')).toEqual(md5(''));
  });
  it.each([
    ['empty', ''],
    ['hex instead of base64', '5d41402abc4b2a76b9719d911017c592'],
    ['too short', 'XUFAKrxLKna5cZ2REBfF'],
    ['20 bytes', Buffer.alloc(20).toString('base64')],
    ['unpadded', '1B2M2Y8AsgTpgAmY7PhCfg'],
    ['non-zero padding bits', '1B2M2Y8AsgTpgAmY7PhCfh=='],
    ['garbage', '!!!!!!!!!!!!!!!!!!!!!!=='],
  ])('rejects %s with InvalidDigest', (_name, value) => {
    let code: string | undefined;
    try {
      parseContentMd5(value);
    } catch (err) {
      code = err instanceof AppError ? err.code : 'other';
    }
    expect(code).toBe('InvalidDigest');
  });
});
