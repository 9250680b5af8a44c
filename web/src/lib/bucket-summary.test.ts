import { describe, expect, it } from 'vitest';
import {
  corsSummary,
  encryptionSummary,
  lifecycleSummary,
  policySummary,
  publicGrants,
  tagsSummary,
} from './bucket-summary';

describe('bucket setting summaries', () => {
  it('says what each setting does', () => {
    expect(encryptionSummary({ sseAlgorithm: 'AES256' })).toBe('SSE-S3 (AES-256) for every new object');
    expect(encryptionSummary(undefined)).toMatch(/^None/);
    expect(corsSummary([{ allowedOrigins: ['https://a.example'], allowedMethods: ['GET', 'PUT'] }])).toEqual([
      'https://a.example: GET, PUT',
    ]);
    expect(tagsSummary([{ key: 'team', value: 'media' }])).toBe('team=media');
    expect(tagsSummary([])).toBe('None');
  });

  it('marks lifecycle transitions as doing nothing while tiering is off', () => {
    const rules = [
      { status: 'Enabled' as const, filter: { prefix: 'logs/' }, transitions: [{ days: 30, storageClass: 'GLACIER' }] },
      { status: 'Enabled' as const, expiration: { days: 7 } },
    ];
    const off = lifecycleSummary(rules, false);
    expect(off[0]).toMatch(/move to GLACIER after 30 days.*Its transitions do nothing: tiering is off\.$/);
    expect(off[1]).not.toMatch(/tiering/);
    expect(lifecycleSummary(rules, true)[0]).not.toMatch(/tiering/);
  });

  it('finds the statements that make a bucket public, and when they apply', () => {
    const policy = {
      Version: '2012-10-17',
      Statement: [
        { Sid: 'Read', Effect: 'Allow', Principal: '*', Action: 's3:GetObject', Resource: 'arn:aws:s3:::b/*' },
        {
          Effect: 'Allow',
          Principal: { AWS: ['*'] },
          Action: ['s3:ListBucket'],
          Resource: 'arn:aws:s3:::b',
          Condition: { IpAddress: { 'aws:SourceIp': '203.0.113.0/24' } },
        },
        { Effect: 'Deny', Principal: '*', Action: 's3:DeleteBucket', Resource: 'arn:aws:s3:::b' },
        { Effect: 'Allow', Principal: { AWS: 'arn:aws:iam::1:root' }, Action: 's3:*', Resource: '*' },
      ],
    };
    expect(publicGrants(policy)).toEqual([
      {
        sid: 'Read',
        actions: ['s3:GetObject'],
        resources: ['arn:aws:s3:::b/*'],
        when: 'always, for anyone on the internet',
      },
      {
        sid: undefined,
        actions: ['s3:ListBucket'],
        resources: ['arn:aws:s3:::b'],
        when: 'only when aws:SourceIp IpAddress 203.0.113.0/24',
      },
    ]);
    expect(policySummary(policy)[2]).toBe('Deny s3:DeleteBucket to everyone on arn:aws:s3:::b');
    expect(publicGrants(null)).toEqual([]);
  });
});
