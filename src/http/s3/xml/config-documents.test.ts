import { describe, expect, it } from 'vitest';
import type { ObjectLockConfiguration } from '../../../core/object-lock.js';
import {
  buildBucketEncryption,
  buildLegalHold,
  buildObjectLockConfiguration,
  buildRetention,
  buildTagging,
  buildVersioningConfiguration,
  parseBucketEncryption,
  parseLegalHold,
  parseObjectLockConfiguration,
  parseRetention,
  parseTagging,
  parseVersioningConfiguration,
} from './bucket-config.js';
import { codeOf } from '../../../../test/helpers/error-code.js';

const NS = 'xmlns="http://s3.amazonaws.com/doc/2006-03-01/"';
const NOW = new Date('2030-06-15T12:00:00Z');

describe('Tagging', () => {
  const doc = (tags: string): string => `<Tagging ${NS}><TagSet>${tags}</TagSet></Tagging>`;
  const tag = (k: string, v: string): string => `<Tag><Key>${k}</Key><Value>${v}</Value></Tag>`;

  it('parses tags exactly as sent, namespaced or not', () => {
    expect(parseTagging(doc(tag('a b', ' x ') + tag('c', '')), 'object')).toEqual([
      { key: 'a b', value: ' x ' },
      { key: 'c', value: '' },
    ]);
    expect(parseTagging('<Tagging><TagSet/></Tagging>', 'bucket')).toEqual([]);
    expect(parseTagging(Buffer.from(doc(tag('k', 'caf&#xE9; au lait'))), 'object')).toEqual([
      { key: 'k', value: 'café au lait' },
    ]);
  });

  it('round-trips through the builder', () => {
    const tags = [
      { key: 'project', value: 'a/b=c' },
      { key: 'été', value: '' },
      { key: 'x@y', value: '+-=._:/@' },
    ];
    expect(parseTagging(buildTagging(tags), 'object')).toEqual(tags);
    expect(buildTagging([])).toContain('<TagSet></TagSet>');
  });

  it.each([
    ['an empty body', '', 'MissingRequestBodyError'],
    ['another root', '<TagSet></TagSet>', 'MalformedXML'],
    ['no TagSet', '<Tagging></Tagging>', 'MalformedXML'],
    ['two TagSets', '<Tagging><TagSet/><TagSet/></Tagging>', 'MalformedXML'],
    ['a Tag without Value', doc('<Tag><Key>k</Key></Tag>'), 'MalformedXML'],
    ['a Tag without Key', doc('<Tag><Value>v</Value></Tag>'), 'MalformedXML'],
    ['a Tag with two Keys', doc('<Tag><Key>a</Key><Key>b</Key><Value>v</Value></Tag>'), 'MalformedXML'],
    ['a duplicate key', doc(tag('a', '1') + tag('a', '2')), 'InvalidTag'],
    ['a reserved key', doc(tag('aws:x', '1')), 'InvalidTag'],
    ['11 object tags', doc(Array.from({ length: 11 }, (_, i) => tag(`k${i}`, 'v')).join('')), 'InvalidTag'],
  ])('refuses %s', (_name, body, code) => {
    expect(codeOf(() => parseTagging(body, 'object'))).toBe(code);
  });

  it('allows 50 bucket tags but not 51', () => {
    const many = (n: number): string => doc(Array.from({ length: n }, (_, i) => tag(`k${i}`, 'v')).join(''));
    expect(parseTagging(many(50), 'bucket')).toHaveLength(50);
    expect(codeOf(() => parseTagging(many(51), 'bucket'))).toBe('InvalidTag');
  });
});

describe('VersioningConfiguration', () => {
  it('parses Enabled and Suspended, tolerating MfaDelete Disabled', () => {
    expect(
      parseVersioningConfiguration(`<VersioningConfiguration ${NS}><Status>Enabled</Status></VersioningConfiguration>`),
    ).toEqual({ status: 'Enabled' });
    expect(
      parseVersioningConfiguration(
        '<VersioningConfiguration><MfaDelete>Disabled</MfaDelete><Status>Suspended</Status></VersioningConfiguration>',
      ),
    ).toEqual({
      status: 'Suspended',
    });
  });

  it('builds an empty document for a never-versioned bucket', () => {
    const xml = buildVersioningConfiguration('Unversioned');
    expect(xml).toContain(`<VersioningConfiguration ${NS}></VersioningConfiguration>`);
    expect(xml).not.toContain('Status');
  });

  it('round-trips both states', () => {
    for (const status of ['Enabled', 'Suspended'] as const) {
      expect(parseVersioningConfiguration(buildVersioningConfiguration(status))).toEqual({ status });
    }
  });

  it.each([
    ['no Status (the unversioned document)', buildVersioningConfiguration('Unversioned'), 'MalformedXML'],
    ['Disabled', '<VersioningConfiguration><Status>Disabled</Status></VersioningConfiguration>', 'MalformedXML'],
    ['lower case', '<VersioningConfiguration><Status>enabled</Status></VersioningConfiguration>', 'MalformedXML'],
    [
      'MfaDelete Enabled',
      '<VersioningConfiguration><Status>Enabled</Status><MfaDelete>Enabled</MfaDelete></VersioningConfiguration>',
      'NotImplemented',
    ],
    [
      'an unknown MfaDelete',
      '<VersioningConfiguration><Status>Enabled</Status><MfaDelete>On</MfaDelete></VersioningConfiguration>',
      'MalformedXML',
    ],
    ['an empty body', '  ', 'MissingRequestBodyError'],
  ])('refuses %s', (_name, body, code) => {
    expect(codeOf(() => parseVersioningConfiguration(body))).toBe(code);
  });
});

describe('ObjectLockConfiguration', () => {
  const doc = (inner: string): string =>
    `<ObjectLockConfiguration ${NS}><ObjectLockEnabled>Enabled</ObjectLockEnabled>${inner}</ObjectLockConfiguration>`;

  it('parses with and without a default rule', () => {
    expect(parseObjectLockConfiguration(doc(''))).toEqual({ enabled: true });
    expect(
      parseObjectLockConfiguration(
        doc('<Rule><DefaultRetention><Mode>GOVERNANCE</Mode><Days>7</Days></DefaultRetention></Rule>'),
      ),
    ).toEqual({
      enabled: true,
      defaultRetention: { mode: 'GOVERNANCE', days: 7 },
    });
  });

  it.each<ObjectLockConfiguration>([
    { enabled: true },
    { enabled: true, defaultRetention: { mode: 'COMPLIANCE', years: 3 } },
    { enabled: true, defaultRetention: { mode: 'GOVERNANCE', days: 36500 } },
  ])('round-trips %j', (config) => {
    expect(parseObjectLockConfiguration(buildObjectLockConfiguration(config))).toEqual(config);
  });

  it.each([
    ['no ObjectLockEnabled', '<ObjectLockConfiguration></ObjectLockConfiguration>', 'MalformedXML'],
    [
      'ObjectLockEnabled Disabled',
      '<ObjectLockConfiguration><ObjectLockEnabled>Disabled</ObjectLockEnabled></ObjectLockConfiguration>',
      'MalformedXML',
    ],
    ['an empty Rule', doc('<Rule></Rule>'), 'MalformedXML'],
    ['an empty DefaultRetention', doc('<Rule><DefaultRetention></DefaultRetention></Rule>'), 'MalformedXML'],
    [
      'a mode without a period',
      doc('<Rule><DefaultRetention><Mode>GOVERNANCE</Mode></DefaultRetention></Rule>'),
      'MalformedXML',
    ],
    [
      'a period without a mode',
      doc('<Rule><DefaultRetention><Days>1</Days></DefaultRetention></Rule>'),
      'MalformedXML',
    ],
    [
      'a bad mode',
      doc('<Rule><DefaultRetention><Mode>BAD-VALUE</Mode><Days>1</Days></DefaultRetention></Rule>'),
      'MalformedXML',
    ],
    [
      'days and years',
      doc('<Rule><DefaultRetention><Mode>GOVERNANCE</Mode><Days>1</Days><Years>1</Years></DefaultRetention></Rule>'),
      'MalformedXML',
    ],
    [
      'days that are not a number',
      doc('<Rule><DefaultRetention><Mode>GOVERNANCE</Mode><Days>one</Days></DefaultRetention></Rule>'),
      'MalformedXML',
    ],
    [
      'zero days',
      doc('<Rule><DefaultRetention><Mode>GOVERNANCE</Mode><Days>0</Days></DefaultRetention></Rule>'),
      'InvalidArgument',
    ],
    [
      'negative years',
      doc('<Rule><DefaultRetention><Mode>COMPLIANCE</Mode><Years>-1</Years></DefaultRetention></Rule>'),
      'InvalidArgument',
    ],
    [
      'too many days',
      doc('<Rule><DefaultRetention><Mode>COMPLIANCE</Mode><Days>999999999</Days></DefaultRetention></Rule>'),
      'InvalidArgument',
    ],
  ])('refuses %s', (_name, body, code) => {
    expect(codeOf(() => parseObjectLockConfiguration(body))).toBe(code);
  });
});

describe('Retention and LegalHold', () => {
  it('parses a retention, normalising the date', () => {
    const body = `<Retention ${NS}><Mode>COMPLIANCE</Mode><RetainUntilDate>2030-07-01T00:00:00Z</RetainUntilDate></Retention>`;
    expect(parseRetention(body, NOW)).toEqual({ mode: 'COMPLIANCE', retainUntilDate: '2030-07-01T00:00:00.000Z' });
  });

  it('reads an empty Retention as removal', () => {
    expect(parseRetention('<Retention/>', NOW)).toBeUndefined();
  });

  it('round-trips', () => {
    const retention = { mode: 'GOVERNANCE' as const, retainUntilDate: '2031-01-02T03:04:05.678Z' };
    expect(parseRetention(buildRetention(retention), NOW)).toEqual(retention);
    expect(parseLegalHold(buildLegalHold('ON'))).toBe('ON');
    expect(parseLegalHold(buildLegalHold('OFF'))).toBe('OFF');
  });

  it.each([
    ['a mode only', '<Retention><Mode>GOVERNANCE</Mode></Retention>', 'MalformedXML'],
    ['a date only', '<Retention><RetainUntilDate>2031-01-01T00:00:00Z</RetainUntilDate></Retention>', 'MalformedXML'],
    [
      'a bad mode',
      '<Retention><Mode>governance</Mode><RetainUntilDate>2031-01-01T00:00:00Z</RetainUntilDate></Retention>',
      'MalformedXML',
    ],
    [
      'a bad date',
      '<Retention><Mode>GOVERNANCE</Mode><RetainUntilDate>soon</RetainUntilDate></Retention>',
      'MalformedXML',
    ],
    [
      'a past date',
      '<Retention><Mode>GOVERNANCE</Mode><RetainUntilDate>2030-01-01T00:00:00Z</RetainUntilDate></Retention>',
      'InvalidArgument',
    ],
    ['an empty body', '', 'MissingRequestBodyError'],
  ])('refuses a retention with %s', (_name, body, code) => {
    expect(codeOf(() => parseRetention(body, NOW))).toBe(code);
  });

  it.each([
    ['no Status', '<LegalHold></LegalHold>'],
    ['a lower-case status', '<LegalHold><Status>on</Status></LegalHold>'],
    ['another root', '<Retention><Status>ON</Status></Retention>'],
  ])('refuses a legal hold with %s', (_name, body) => {
    expect(codeOf(() => parseLegalHold(body))).toBe('MalformedXML');
  });
});

describe('ServerSideEncryptionConfiguration', () => {
  const doc = (alg: string, extra = '', ruleExtra = ''): string =>
    `<ServerSideEncryptionConfiguration ${NS}><Rule><ApplyServerSideEncryptionByDefault><SSEAlgorithm>${alg}</SSEAlgorithm>${extra}</ApplyServerSideEncryptionByDefault>${ruleExtra}</Rule></ServerSideEncryptionConfiguration>`;

  it('parses AES256 with BucketKeyEnabled tolerated', () => {
    expect(parseBucketEncryption(doc('AES256'))).toEqual({ sseAlgorithm: 'AES256' });
    expect(parseBucketEncryption(doc('AES256', '', '<BucketKeyEnabled>true</BucketKeyEnabled>'))).toEqual({
      sseAlgorithm: 'AES256',
      bucketKeyEnabled: true,
    });
  });

  it('round-trips', () => {
    for (const config of [
      { sseAlgorithm: 'AES256' as const },
      { sseAlgorithm: 'AES256' as const, bucketKeyEnabled: false },
    ]) {
      expect(parseBucketEncryption(buildBucketEncryption(config))).toEqual(config);
    }
  });

  it.each([
    ['aws:kms', doc('aws:kms', '<KMSMasterKeyID>arn:aws:kms:us-east-1:1:key/x</KMSMasterKeyID>'), 'NotImplemented'],
    ['aws:kms:dsse', doc('aws:kms:dsse'), 'NotImplemented'],
    ['a KMS key with AES256', doc('AES256', '<KMSMasterKeyID>k</KMSMasterKeyID>'), 'InvalidArgument'],
    ['an unknown algorithm', doc('AES128'), 'MalformedXML'],
    ['no rule', '<ServerSideEncryptionConfiguration></ServerSideEncryptionConfiguration>', 'MalformedXML'],
    [
      'two rules',
      doc('AES256').replace(
        '</ServerSideEncryptionConfiguration>',
        '<Rule><ApplyServerSideEncryptionByDefault><SSEAlgorithm>AES256</SSEAlgorithm></ApplyServerSideEncryptionByDefault></Rule></ServerSideEncryptionConfiguration>',
      ),
      'MalformedXML',
    ],
    [
      'a rule without a default',
      '<ServerSideEncryptionConfiguration><Rule><BucketKeyEnabled>true</BucketKeyEnabled></Rule></ServerSideEncryptionConfiguration>',
      'MalformedXML',
    ],
    ['a bad BucketKeyEnabled', doc('AES256', '', '<BucketKeyEnabled>yes</BucketKeyEnabled>'), 'MalformedXML'],
  ])('refuses %s', (_name, body, code) => {
    expect(codeOf(() => parseBucketEncryption(body))).toBe(code);
  });
});
