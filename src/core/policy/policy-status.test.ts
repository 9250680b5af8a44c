import { describe, expect, it } from 'vitest';
import { parseBucketPolicy } from './policy-document.js';
import { isPublic } from './policy-status.js';

const READ = { Effect: 'Allow', Action: 's3:GetObject', Resource: 'arn:aws:s3:::b/*' };
const doc = (...statements: Record<string, unknown>[]) =>
  parseBucketPolicy(JSON.stringify({ Version: '2012-10-17', Statement: statements }), 'b');

describe('isPublic', () => {
  it.each<[string, Record<string, unknown>[], boolean]>([
    ['Allow to "*"', [{ ...READ, Principal: '*' }], true],
    ['Allow to {"AWS": "*"}', [{ ...READ, Principal: { AWS: '*' } }], true],
    ['Allow to a list containing "*"', [{ ...READ, Principal: { AWS: ['AKONE', '*'] } }], true],
    ['Allow to an access key', [{ ...READ, Principal: { AWS: 'AKONE' } }], false],
    ['Allow to the account', [{ ...READ, Principal: { AWS: '123456789012' } }], false],
    ['Deny to "*"', [{ ...READ, Effect: 'Deny', Principal: '*' }], false],
    ['NotPrincipal Deny', [{ ...READ, Effect: 'Deny', NotPrincipal: { AWS: 'AKONE' } }], false],
    [
      'limited to a CIDR',
      [{ ...READ, Principal: '*', Condition: { IpAddress: { 'aws:SourceIp': '192.0.2.0/24' } } }],
      false,
    ],
    [
      'limited to several CIDRs',
      [{ ...READ, Principal: '*', Condition: { IpAddress: { 'aws:SourceIp': ['192.0.2.0/24', '2001:db8::/32'] } } }],
      false,
    ],
    [
      '"limited" to 0.0.0.0/0',
      [{ ...READ, Principal: '*', Condition: { IpAddress: { 'aws:SourceIp': '0.0.0.0/0' } } }],
      true,
    ],
    [
      'excluding a CIDR (NotIpAddress)',
      [{ ...READ, Principal: '*', Condition: { NotIpAddress: { 'aws:SourceIp': '192.0.2.0/24' } } }],
      true,
    ],
    [
      'limited to a fixed VPC',
      [{ ...READ, Principal: '*', Condition: { StringEquals: { 'aws:SourceVpc': 'vpc-91237329' } } }],
      false,
    ],
    [
      '"limited" to a VPC pattern',
      [{ ...READ, Principal: '*', Condition: { StringLike: { 'aws:SourceVpc': 'vpc-*' } } }],
      true,
    ],
    [
      'limited IfExists (an absent key passes)',
      [{ ...READ, Principal: '*', Condition: { StringEqualsIfExists: { 'aws:SourceVpc': 'vpc-1' } } }],
      true,
    ],
    [
      'limited by a policy variable',
      [{ ...READ, Principal: '*', Condition: { StringEquals: { 'aws:SourceAccount': '${aws:username}' } } }],
      true,
    ],
    [
      'limited to a fixed source account',
      [{ ...READ, Principal: '*', Condition: { StringEquals: { 'aws:SourceAccount': '111122223333' } } }],
      false,
    ],
    [
      'only TLS-restricted',
      [{ ...READ, Principal: '*', Condition: { Bool: { 'aws:SecureTransport': 'true' } } }],
      true,
    ],
    [
      'only referer-restricted',
      [{ ...READ, Principal: '*', Condition: { StringLike: { 'aws:Referer': 'https://example.com/*' } } }],
      true,
    ],
    [
      'one private and one public statement',
      [
        { ...READ, Sid: 'A', Principal: { AWS: 'AKONE' } },
        { ...READ, Sid: 'B', Principal: '*' },
      ],
      true,
    ],
  ])('%s -> %s', (_name, statements, expected) => {
    expect(isPublic(doc(...statements))).toBe(expected);
  });
});
