import { describe, expect, it } from 'vitest';
import { type BucketEncryption, parseSseAlgorithm, validateBucketEncryption } from './bucket-encryption.js';
import { codeOf } from '../../test/helpers/error-code.js';

describe('parseSseAlgorithm', () => {
  it('accepts AES256', () => {
    expect(parseSseAlgorithm('AES256')).toBe('AES256');
  });

  it('refuses KMS with NotImplemented, naming the algorithm', () => {
    expect(codeOf(() => parseSseAlgorithm('aws:kms'))).toBe('NotImplemented');
    expect(codeOf(() => parseSseAlgorithm('aws:kms:dsse'))).toBe('NotImplemented');
    expect(() => parseSseAlgorithm('aws:kms')).toThrow(/aws:kms/);
  });

  it('refuses anything else with InvalidArgument', () => {
    for (const bad of ['aes256', 'AES128', '', 'aws:fsx'])
      expect(codeOf(() => parseSseAlgorithm(bad))).toBe('InvalidArgument');
  });
});

describe('validateBucketEncryption', () => {
  it('accepts AES256 with or without a bucket key flag', () => {
    expect(codeOf(() => validateBucketEncryption({ sseAlgorithm: 'AES256' }))).toBeUndefined();
    expect(codeOf(() => validateBucketEncryption({ sseAlgorithm: 'AES256', bucketKeyEnabled: true }))).toBeUndefined();
  });

  it('refuses what an admin editor could send wrong', () => {
    const kms = JSON.parse('{"sseAlgorithm":"aws:kms"}') as BucketEncryption;
    const flag = JSON.parse('{"sseAlgorithm":"AES256","bucketKeyEnabled":"yes"}') as BucketEncryption;
    expect(codeOf(() => validateBucketEncryption(kms))).toBe('NotImplemented');
    expect(codeOf(() => validateBucketEncryption(flag))).toBe('InvalidArgument');
  });
});
