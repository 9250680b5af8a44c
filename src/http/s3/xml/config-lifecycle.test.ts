import { describe, expect, it } from 'vitest';
import type { LifecycleConfiguration } from '../../../core/lifecycle.js';
import { buildLifecycleConfiguration, parseLifecycleConfiguration } from './config-lifecycle.js';
import { codeOf } from '../../../../test/helpers/error-code.js';

const NS = 'xmlns="http://s3.amazonaws.com/doc/2006-03-01/"';
const doc = (...rules: string[]): string => `<LifecycleConfiguration ${NS}>${rules.join('')}</LifecycleConfiguration>`;
const ruleXml = (inner: string, id = 'r'): string => `<Rule><ID>${id}</ID><Status>Enabled</Status>${inner}</Rule>`;
const expire = '<Expiration><Days>30</Days></Expiration>';

describe('parseLifecycleConfiguration', () => {
  it('parses the AWS sample (V2 filter, transition, expiration)', () => {
    const body = doc(
      ruleXml(
        '<Filter><Prefix>documents/</Prefix></Filter><Transition><Days>30</Days><StorageClass>GLACIER</StorageClass></Transition>',
        'id1',
      ),
      ruleXml('<Filter><Prefix>logs/</Prefix></Filter><Expiration><Days>365</Days></Expiration>', 'id2'),
    );
    expect(parseLifecycleConfiguration(body)).toEqual({
      rules: [
        {
          id: 'id1',
          status: 'Enabled',
          filter: { prefix: 'documents/' },
          transitions: [{ days: 30, storageClass: 'GLACIER' }],
        },
        { id: 'id2', status: 'Enabled', filter: { prefix: 'logs/' }, expiration: { days: 365 } },
      ],
    });
  });

  it('parses an And filter, a key-only tag, sizes and every action', () => {
    const body = doc(
      ruleXml(
        '<Filter><And><Prefix>a/</Prefix><Tag><Key>k</Key><Value>v</Value></Tag><Tag><Key>flag</Key></Tag>' +
          '<ObjectSizeGreaterThan>10</ObjectSizeGreaterThan><ObjectSizeLessThan>1099511627776</ObjectSizeLessThan></And></Filter>' +
          '<Expiration><Date>2031-01-01T00:00:00Z</Date></Expiration>' +
          '<Transition><Date>2030-01-01</Date><StorageClass>DEEP_ARCHIVE</StorageClass></Transition>' +
          '<NoncurrentVersionTransition><NoncurrentDays>30</NoncurrentDays><StorageClass>STANDARD_IA</StorageClass><NewerNoncurrentVersions>3</NewerNoncurrentVersions></NoncurrentVersionTransition>' +
          '<NoncurrentVersionExpiration><NoncurrentDays>90</NoncurrentDays><NewerNoncurrentVersions>5</NewerNoncurrentVersions></NoncurrentVersionExpiration>',
      ),
    );
    expect(parseLifecycleConfiguration(body).rules[0]).toEqual({
      id: 'r',
      status: 'Enabled',
      filter: {
        prefix: 'a/',
        tags: [
          { key: 'k', value: 'v' },
          { key: 'flag', value: '' },
        ],
        objectSizeGreaterThan: 10,
        objectSizeLessThan: 1099511627776,
      },
      expiration: { date: '2031-01-01T00:00:00.000Z' },
      transitions: [{ date: '2030-01-01T00:00:00.000Z', storageClass: 'DEEP_ARCHIVE' }],
      noncurrentVersionTransitions: [{ noncurrentDays: 30, storageClass: 'STANDARD_IA', newerNoncurrentVersions: 3 }],
      noncurrentVersionExpiration: { noncurrentDays: 90, newerNoncurrentVersions: 5 },
    });
  });

  it('keeps a legacy rule-level prefix and an empty filter as they were', () => {
    const parsed = parseLifecycleConfiguration(
      doc(
        ruleXml(`<Prefix>projectdocs/</Prefix>${expire}`, 'a'),
        ruleXml(
          '<Prefix></Prefix><AbortIncompleteMultipartUpload><DaysAfterInitiation>7</DaysAfterInitiation></AbortIncompleteMultipartUpload>',
          'b',
        ),
      ),
    );
    expect(parsed.rules.map((r) => [r.prefix, r.filter])).toEqual([
      ['projectdocs/', undefined],
      ['', undefined],
    ]);
    expect(parseLifecycleConfiguration(doc(ruleXml(`<Filter/>${expire}`))).rules[0]?.filter).toEqual({});
  });

  it('gives rules without an ID one', () => {
    const parsed = parseLifecycleConfiguration(
      doc(
        `<Rule><Filter/><Status>Enabled</Status>${expire}</Rule>`,
        `<Rule><ID></ID><Filter/><Status>Disabled</Status>${expire}</Rule>`,
      ),
    );
    const [a, b] = parsed.rules.map((r) => r.id ?? '');
    expect(a).toHaveLength(48);
    expect(b).toHaveLength(48);
    expect(a).not.toBe(b);
  });

  it('reads ExpiredObjectDeleteMarker as a boolean', () => {
    const parsed = parseLifecycleConfiguration(
      doc(ruleXml('<Filter/><Expiration><ExpiredObjectDeleteMarker>true</ExpiredObjectDeleteMarker></Expiration>')),
    );
    expect(parsed.rules[0]?.expiration).toEqual({ expiredObjectDeleteMarker: true });
  });

  it.each([
    ['an empty body', '', 'MissingRequestBodyError'],
    ['another root', '<LifeCycleConfiguration></LifeCycleConfiguration>', 'MalformedXML'],
    ['no rules', doc(), 'InvalidRequest'],
    ['a rule without Status', doc(`<Rule><ID>x</ID><Filter/>${expire}</Rule>`), 'MalformedXML'],
    ['Status enabled', doc(`<Rule><Filter/><Status>enabled</Status>${expire}</Rule>`), 'MalformedXML'],
    ['neither Filter nor Prefix', doc(ruleXml(expire)), 'MalformedXML'],
    [
      'two predicates directly in a Filter',
      doc(ruleXml(`<Filter><Prefix>a</Prefix><ObjectSizeGreaterThan>1</ObjectSizeGreaterThan></Filter>${expire}`)),
      'MalformedXML',
    ],
    [
      'two tags directly in a Filter',
      doc(
        ruleXml(
          `<Filter><Tag><Key>a</Key><Value>1</Value></Tag><Tag><Key>b</Key><Value>2</Value></Tag></Filter>${expire}`,
        ),
      ),
      'MalformedXML',
    ],
    [
      'an And beside a Prefix',
      doc(
        ruleXml(
          `<Filter><Prefix>a</Prefix><And><Prefix>b</Prefix><Tag><Key>k</Key><Value>v</Value></Tag></And></Filter>${expire}`,
        ),
      ),
      'MalformedXML',
    ],
    [
      'an And with one predicate',
      doc(ruleXml(`<Filter><And><Prefix>a</Prefix></And></Filter>${expire}`)),
      'MalformedXML',
    ],
    ['two Filters', doc(ruleXml(`<Filter/><Filter/>${expire}`)), 'MalformedXML'],
    ['two Expirations', doc(ruleXml(`<Filter/>${expire}${expire}`)), 'MalformedXML'],
    [
      'Days that are not an integer',
      doc(ruleXml('<Filter/><Expiration><Days>1.5</Days></Expiration>')),
      'MalformedXML',
    ],
    ['Days beyond an int', doc(ruleXml('<Filter/><Expiration><Days>2147483648</Days></Expiration>')), 'MalformedXML'],
    [
      'a Date in RFC 1123 form',
      doc(ruleXml('<Filter/><Expiration><Date>Fri, 01 Jan 2016 00:00:00 GMT</Date></Expiration>')),
      'MalformedXML',
    ],
    [
      'a Date not at midnight',
      doc(ruleXml('<Filter/><Expiration><Date>2030-01-01T10:00:00Z</Date></Expiration>')),
      'InvalidArgument',
    ],
    [
      'a bad boolean',
      doc(ruleXml('<Filter/><Expiration><ExpiredObjectDeleteMarker>yes</ExpiredObjectDeleteMarker></Expiration>')),
      'MalformedXML',
    ],
    [
      'ExpiredObjectDeleteMarker with Days',
      doc(
        ruleXml(
          '<Filter/><Expiration><Days>1</Days><ExpiredObjectDeleteMarker>true</ExpiredObjectDeleteMarker></Expiration>',
        ),
      ),
      'MalformedXML',
    ],
    ['zero Days', doc(ruleXml('<Filter/><Expiration><Days>0</Days></Expiration>')), 'InvalidArgument'],
    [
      'a transition without StorageClass',
      doc(ruleXml('<Filter/><Transition><Days>1</Days></Transition>')),
      'MalformedXML',
    ],
    [
      'an unknown StorageClass',
      doc(ruleXml('<Filter/><Transition><Days>1</Days><StorageClass>COLD</StorageClass></Transition>')),
      'MalformedXML',
    ],
    [
      'a StorageClass Store does not offer',
      doc(ruleXml('<Filter/><Transition><Days>1</Days><StorageClass>ONEZONE_IA</StorageClass></Transition>')),
      'InvalidStorageClass',
    ],
    [
      'STANDARD_IA at 29 days',
      doc(ruleXml('<Filter/><Transition><Days>29</Days><StorageClass>STANDARD_IA</StorageClass></Transition>')),
      'InvalidArgument',
    ],
    [
      'NoncurrentVersionExpiration without NoncurrentDays',
      doc(
        ruleXml(
          '<Filter/><NoncurrentVersionExpiration><NewerNoncurrentVersions>1</NewerNoncurrentVersions></NoncurrentVersionExpiration>',
        ),
      ),
      'MalformedXML',
    ],
    ['an empty NoncurrentVersionExpiration', doc(ruleXml('<Filter/><NoncurrentVersionExpiration/>')), 'MalformedXML'],
    [
      'abort with a tag filter',
      doc(
        ruleXml(
          '<Filter><Tag><Key>a</Key><Value>b</Value></Tag></Filter><AbortIncompleteMultipartUpload><DaysAfterInitiation>1</DaysAfterInitiation></AbortIncompleteMultipartUpload>',
        ),
      ),
      'InvalidRequest',
    ],
    [
      'a negative size',
      doc(ruleXml(`<Filter><ObjectSizeGreaterThan>-5</ObjectSizeGreaterThan></Filter>${expire}`)),
      'InvalidRequest',
    ],
    [
      'a size beyond a long',
      doc(ruleXml(`<Filter><ObjectSizeLessThan>99999999999999999999</ObjectSizeLessThan></Filter>${expire}`)),
      'MalformedXML',
    ],
    [
      'a size past the bound but within a long',
      doc(ruleXml(`<Filter><ObjectSizeLessThan>9223372036854775807</ObjectSizeLessThan></Filter>${expire}`)),
      'InvalidRequest',
    ],
    ['duplicate IDs', doc(ruleXml('<Filter/>' + expire, 'x'), ruleXml('<Filter/>' + expire, 'x')), 'InvalidArgument'],
    ['text mixed into a rule', doc(`<Rule>junk<Filter/><Status>Enabled</Status>${expire}</Rule>`), 'MalformedXML'],
  ])('refuses %s', (_name, body, code) => {
    expect(codeOf(() => parseLifecycleConfiguration(body))).toBe(code);
  });
});

describe('buildLifecycleConfiguration', () => {
  const config: LifecycleConfiguration = {
    rules: [{ id: 'legacy', status: 'Enabled', prefix: 'a & b/', expiration: { days: 10 } }],
  };
  const v2: LifecycleConfiguration = {
    rules: [
      { id: 'empty', status: 'Enabled', filter: {}, abortIncompleteMultipartUpload: { daysAfterInitiation: 3 } },
      { id: 'one tag', status: 'Disabled', filter: { tags: [{ key: 'k', value: 'v' }] }, expiration: { days: 1 } },
      {
        id: 'size',
        status: 'Enabled',
        filter: { objectSizeLessThan: 1 },
        noncurrentVersionExpiration: { noncurrentDays: 1 },
      },
      {
        id: 'and',
        status: 'Enabled',
        filter: { prefix: '', tags: [{ key: 'k', value: '' }] },
        expiration: { date: '2031-01-01T00:00:00.000Z' },
        transitions: [{ date: '2030-06-01T00:00:00.000Z', storageClass: 'GLACIER' }],
      },
      {
        id: 'noncurrent',
        status: 'Enabled',
        filter: { prefix: 'x/' },
        noncurrentVersionTransitions: [
          { noncurrentDays: 30, storageClass: 'STANDARD_IA', newerNoncurrentVersions: 2 },
          { noncurrentDays: 60, storageClass: 'DEEP_ARCHIVE' },
        ],
        noncurrentVersionExpiration: { noncurrentDays: 120, newerNoncurrentVersions: 4 },
      },
      { id: 'marker', status: 'Enabled', filter: { prefix: 'm/' }, expiration: { expiredObjectDeleteMarker: false } },
    ],
  };

  it('writes ID, Filter, Status, then the actions', () => {
    const xml = buildLifecycleConfiguration(v2);
    expect(xml).toContain(`<LifecycleConfiguration ${NS}>`);
    expect(xml).toContain(
      '<Rule><ID>empty</ID><Filter></Filter><Status>Enabled</Status><AbortIncompleteMultipartUpload>',
    );
    expect(xml).toContain('<Filter><Tag><Key>k</Key><Value>v</Value></Tag></Filter>');
    expect(xml).toContain('<Filter><And><Prefix></Prefix><Tag><Key>k</Key><Value></Value></Tag></And></Filter>');
    expect(buildLifecycleConfiguration(config)).toContain('<ID>legacy</ID><Prefix>a &amp; b/</Prefix><Status>');
  });

  it.each([
    ['V1', config],
    ['V2', v2],
  ])('round-trips a %s configuration', (_name, c) => {
    expect(parseLifecycleConfiguration(buildLifecycleConfiguration(c))).toEqual(c);
  });
});
