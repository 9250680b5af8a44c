import { describe, expect, it } from 'vitest';
import { type Tag, formatTaggingHeader, parseTaggingHeader, validateTag, validateTagSet } from './tagging.js';
import { codeOf } from '../../test/helpers/error-code.js';

const tags = (n: number): Tag[] => Array.from({ length: n }, (_, i) => ({ key: `k${i}`, value: `v${i}` }));

describe('validateTag', () => {
  it.each([
    ['a plain tag', { key: 'project', value: 'blue' }],
    ['every allowed symbol', { key: 'a_b.c:d/e=f+g-h@i', value: '_.:/=+-@' }],
    ['spaces and unicode letters and digits', { key: 'Größe 名前 ٣', value: 'très bien ① ' }],
    ['an empty value', { key: 'k', value: '' }],
    ['a 128-character key and 256-character value', { key: 'k'.repeat(128), value: 'v'.repeat(256) }],
    ['aws inside the key, not as prefix', { key: 'my-aws:key', value: 'x' }],
  ])('accepts %s', (_name, tag) => {
    expect(codeOf(() => validateTag(tag))).toBeUndefined();
  });

  it.each([
    ['an empty key', { key: '', value: 'v' }, 'The TagKey you have provided is invalid'],
    ['a 129-character key', { key: 'k'.repeat(129), value: '' }, 'The TagKey you have provided is too long, max 128'],
    [
      'a 257-character value',
      { key: 'k', value: 'v'.repeat(257) },
      'The TagValue you have provided is too long, max 256',
    ],
    ['a key with a forbidden character', { key: 'a[b]', value: '' }, 'The TagKey you have provided is invalid'],
    ['a key with a comma', { key: 'a,b', value: '' }, 'The TagKey you have provided is invalid'],
    ['a value with a forbidden character', { key: 'k', value: 'x&y' }, 'The TagValue you have provided is invalid'],
    ['a value with a control character', { key: 'k', value: 'a\nb' }, 'The TagValue you have provided is invalid'],
    ['the reserved aws: prefix', { key: 'aws:createdBy', value: 'x' }, 'Your TagKey cannot be prefixed with aws:'],
    ['the reserved prefix in another case', { key: 'AWS:x', value: 'x' }, 'Your TagKey cannot be prefixed with aws:'],
  ])('refuses %s with InvalidTag', (_name, tag, message) => {
    expect(() => validateTag(tag)).toThrow(message);
    expect(codeOf(() => validateTag(tag))).toBe('InvalidTag');
  });

  it('counts length in UTF-16 code units, as S3 documents', () => {
    // 64 astral characters are 128 UTF-16 units: the limit exactly; one more is over it.
    expect(codeOf(() => validateTag({ key: '𝐀'.repeat(64), value: '' }))).toBeUndefined();
    expect(codeOf(() => validateTag({ key: `${'𝐀'.repeat(64)}a`, value: '' }))).toBe('InvalidTag');
  });
});

describe('validateTagSet', () => {
  it('allows 10 tags on an object and 50 on a bucket, and an empty set', () => {
    expect(codeOf(() => validateTagSet(tags(10), 'object'))).toBeUndefined();
    expect(codeOf(() => validateTagSet(tags(50), 'bucket'))).toBeUndefined();
    expect(codeOf(() => validateTagSet([], 'object'))).toBeUndefined();
  });

  it('refuses 11 object tags and 51 bucket tags with InvalidTag', () => {
    expect(codeOf(() => validateTagSet(tags(11), 'object'))).toBe('InvalidTag');
    expect(() => validateTagSet(tags(11), 'object')).toThrow('Object tags cannot be greater than 10');
    expect(codeOf(() => validateTagSet(tags(11), 'bucket'))).toBeUndefined();
    expect(codeOf(() => validateTagSet(tags(51), 'bucket'))).toBe('InvalidTag');
  });

  it('refuses a repeated key', () => {
    const set = [
      { key: 'a', value: '1' },
      { key: 'b', value: '2' },
      { key: 'a', value: '3' },
    ];
    expect(() => validateTagSet(set, 'object')).toThrow('Cannot provide multiple Tags with the same key');
  });

  it('checks every tag', () => {
    expect(codeOf(() => validateTagSet([...tags(3), { key: 'aws:x', value: '' }], 'bucket'))).toBe('InvalidTag');
  });
});

describe('parseTaggingHeader', () => {
  it.each([
    [
      'k1=v1&k2=v2',
      [
        { key: 'k1', value: 'v1' },
        { key: 'k2', value: 'v2' },
      ],
    ],
    ['', []],
    [
      'foo=bar&bar',
      [
        { key: 'foo', value: 'bar' },
        { key: 'bar', value: '' },
      ],
    ],
    [
      'a=&b=2',
      [
        { key: 'a', value: '' },
        { key: 'b', value: '2' },
      ],
    ],
    [
      'a=1&&b=2&',
      [
        { key: 'a', value: '1' },
        { key: 'b', value: '2' },
      ],
    ],
    ['my+key=a+b%20c', [{ key: 'my key', value: 'a b c' }]],
    ['path=a%2Fb%3Dc', [{ key: 'path', value: 'a/b=c' }]],
    ['name=%C3%A9t%C3%A9', [{ key: 'name', value: 'été' }]],
    ['%E5%90%8D=x', [{ key: '名', value: 'x' }]],
    ['plus=a%2Bb', [{ key: 'plus', value: 'a+b' }]],
  ])('reads %j', (header, expected) => {
    expect(parseTaggingHeader(header)).toEqual(expected);
  });

  it.each([
    ['a raw = in a value', 'TagSet=[{Key=string,Value=string}]'],
    ['a repeated key', 'a=1&a=2'],
    ['a repeated key after decoding', 'a%20b=1&a+b=2'],
    ['a bad escape', 'a=%G1'],
    ['a truncated escape', 'a=%4'],
    ['invalid UTF-8', 'a=%C3%28'],
  ])('refuses %s with InvalidArgument', (_name, header) => {
    expect(codeOf(() => parseTaggingHeader(header))).toBe('InvalidArgument');
  });

  it('refuses decoded characters S3 does not allow with InvalidTag, as S3 answered', () => {
    expect(codeOf(() => parseTaggingHeader('TagSet%3D%5B%7BKey%3Dstring%2CValue%3Dstring%7D%5D'))).toBe('InvalidTag');
  });

  it('applies the object limits', () => {
    const header = tags(11)
      .map((t) => `${t.key}=${t.value}`)
      .join('&');
    expect(codeOf(() => parseTaggingHeader(header))).toBe('InvalidTag');
    expect(codeOf(() => parseTaggingHeader('aws:x=1'))).toBe('InvalidTag');
    expect(codeOf(() => parseTaggingHeader('=v'))).toBe('InvalidTag');
  });

  it('reads back what formatTaggingHeader writes', () => {
    const set = [
      { key: 'a b', value: 'c/d=e+f' },
      { key: 'été', value: '' },
      { key: 'x@y', value: '名前' },
    ];
    expect(parseTaggingHeader(formatTaggingHeader(set))).toEqual(set);
  });
});
