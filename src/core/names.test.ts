import { describe, expect, it } from 'vitest';
import { MAX_KEY_BYTES, validateBucketName, validateObjectKey } from './names.js';
import { codeOf } from '../../test/helpers/error-code.js';

describe('validateBucketName', () => {
  it.each([
    'abc',
    'my-bucket',
    'my.bucket.name',
    'a1b2c3',
    '123',
    'a'.repeat(63),
    'docexamplebucket1',
    'xn-a',
    'api1',
    'admins',
    'my-s3alias-x',
    '1.2.3.4.5',
    '256.1.1.1x',
  ])('accepts %s', (name) => {
    expect(codeOf(() => validateBucketName(name))).toBeUndefined();
  });

  it.each([
    ['too short', 'ab'],
    ['too long', 'a'.repeat(64)],
    ['empty', ''],
    ['upper case', 'MyBucket'],
    ['underscore', 'my_bucket'],
    ['space', 'my bucket'],
    ['starts with hyphen', '-bucket'],
    ['ends with hyphen', 'bucket-'],
    ['starts with dot', '.bucket'],
    ['ends with dot', 'bucket.'],
    ['adjacent dots', 'my..bucket'],
    ['IPv4', '192.168.5.4'],
    ['xn-- prefix', 'xn--bucket'],
    ['sthree- prefix', 'sthree-bucket'],
    ['amzn-s3-demo- prefix', 'amzn-s3-demo-bucket'],
    ['-s3alias suffix', 'bucket-s3alias'],
    ['--ol-s3 suffix', 'bucket--ol-s3'],
    ['.mrap suffix', 'bucket.mrap'],
    ['--x-s3 suffix', 'bucket--x-s3'],
    ['--table-s3 suffix', 'bucket--table-s3'],
    ['reserved api', 'api'],
    ['reserved admin', 'admin'],
    ['reserved metrics', 'metrics'],
    ['non-ASCII', 'bücket'],
    ['slash', 'a/b'],
  ])('refuses %s with InvalidBucketName', (_name, name) => {
    expect(codeOf(() => validateBucketName(name))).toBe('InvalidBucketName');
  });
});

describe('validateObjectKey', () => {
  it('accepts ordinary, unicode, control-character and maximum-length keys', () => {
    for (const key of [
      'a',
      'photos/2024/cat.jpg',
      ' spaced ',
      'emoji-😀',
      '日本語',
      'ctl\u0001\r\n',
      'x'.repeat(MAX_KEY_BYTES),
      '€'.repeat(341),
    ]) {
      expect(
        codeOf(() => validateObjectKey(key)),
        JSON.stringify(key).slice(0, 40),
      ).toBeUndefined();
    }
  });

  it('refuses keys over 1024 UTF-8 bytes with KeyTooLongError', () => {
    expect(codeOf(() => validateObjectKey('x'.repeat(MAX_KEY_BYTES + 1)))).toBe('KeyTooLongError');
    // 342 three-byte characters = 1026 bytes though only 342 UTF-16 units
    expect(codeOf(() => validateObjectKey('€'.repeat(342)))).toBe('KeyTooLongError');
    // 257 four-byte characters = 1028 bytes
    expect(codeOf(() => validateObjectKey('😀'.repeat(257)))).toBe('KeyTooLongError');
    expect(codeOf(() => validateObjectKey('😀'.repeat(256)))).toBeUndefined();
  });

  it('refuses empty keys and keys that are not valid UTF-8', () => {
    expect(codeOf(() => validateObjectKey(''))).toBe('InvalidArgument');
    expect(codeOf(() => validateObjectKey('a\uD800b'))).toBe('InvalidArgument');
    expect(codeOf(() => validateObjectKey('a\uDC00'))).toBe('InvalidArgument');
    expect(codeOf(() => validateObjectKey('\uDBFF'))).toBe('InvalidArgument');
    expect(codeOf(() => validateObjectKey(Buffer.from([0x61, 0xff, 0x62]).toString('utf8')))).toBe('InvalidArgument');
  });
});
