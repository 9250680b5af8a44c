import { describe, expect, it } from 'vitest';
import { AppError } from '../errors.js';
import { MAX_POLICY_BYTES, parseBucketPolicy } from './policy-document.js';
import { codeOf } from '../../../test/helpers/error-code.js';

type Json = Record<string, unknown>;

function policyJson(statements: unknown, version: string | undefined = '2012-10-17'): string {
  const doc: Json = { Statement: statements };
  if (version !== undefined) doc['Version'] = version;
  return JSON.stringify(doc);
}

/** A valid public-read statement on bucket `b`; each malformed case below changes one thing. */
function base(overrides: Json = {}): Json {
  const s: Json = {
    Sid: 'PublicRead',
    Effect: 'Allow',
    Principal: '*',
    Action: 's3:GetObject',
    Resource: 'arn:aws:s3:::b/*',
  };
  for (const [k, v] of Object.entries(overrides)) {
    if (v === undefined) delete s[k];
    else s[k] = v;
  }
  return s;
}

const parse = (json: string): unknown => parseBucketPolicy(json, 'b');

describe('parseBucketPolicy accepts', () => {
  it('a public-read policy and returns its model', () => {
    const doc = parseBucketPolicy(policyJson([base()]), 'b');
    expect(doc).toEqual({
      kind: 'bucket',
      version: '2012-10-17',
      statements: [
        {
          sid: 'PublicRead',
          effect: 'Allow',
          principal: { items: [{ kind: 'any' }], negated: false },
          action: { items: ['s3:GetObject'], negated: false },
          resource: { items: ['arn:aws:s3:::b/*'], negated: false },
          conditions: [],
        },
      ],
    });
  });

  it('a single statement object, an Id, and a missing Version (read as 2008-10-17)', () => {
    const doc = parseBucketPolicy(JSON.stringify({ Id: 'P1', Statement: base() }), 'b');
    expect(doc.version).toBe('2008-10-17');
    expect(doc.id).toBe('P1');
    expect(doc.statements).toHaveLength(1);
  });

  it.each<[string, Json]>([
    ['Version 2008-10-17 statement', {}],
    ['{"AWS": "*"}', { Principal: { AWS: '*' } }],
    ['an access key principal', { Principal: { AWS: 'AKSTOREKEY1' } }],
    ['an IAM user ARN principal', { Principal: { AWS: 'arn:aws:iam::123456789012:user/AKSTOREKEY1' } }],
    [
      'an account root ARN and an account id',
      { Principal: { AWS: ['arn:aws:iam::123456789012:root', '123456789012'] } },
    ],
    ['an action in any case', { Action: 'S3:getobject' }],
    ['action wildcards', { Action: ['s3:Get*', 's3:*Object', 's3:?etObject', 's3:*', '*'] }],
    [
      'the bucket and object resources',
      { Action: ['s3:ListBucket', 's3:GetObject'], Resource: ['arn:aws:s3:::b', 'arn:aws:s3:::b/*'] },
    ],
    ['a prefix resource', { Resource: 'arn:aws:s3:::b/photos/*' }],
    ['Resource "*"', { Resource: '*' }],
    ['a bucket wildcard that matches this bucket', { Resource: 'arn:aws:s3:::*/*' }],
    ['NotAction', { Action: undefined, NotAction: 's3:PutObject' }],
    ['NotResource', { Resource: undefined, NotResource: 'arn:aws:s3:::b/private/*' }],
    ['NotPrincipal with Deny', { Effect: 'Deny', Principal: undefined, NotPrincipal: { AWS: 'AKSTOREKEY1' } }],
    ['a policy variable in the resource', { Resource: 'arn:aws:s3:::b/home/${aws:username}/*' }],
    ['an empty Condition', { Condition: {} }],
    [
      'the object actions S3 defines',
      { Action: ['s3:PutObjectTagging', 's3:GetObjectVersion', 's3:AbortMultipartUpload', 's3:RestoreObject'] },
    ],
  ])('%s', (_name, overrides) => {
    expect(codeOf(() => parse(policyJson([base(overrides)])))).toBeUndefined();
  });

  it('every supported condition operator, qualifier and IfExists form', () => {
    const condition = {
      StringEquals: { 's3:x-amz-acl': 'private' },
      StringNotEquals: { 'aws:UserAgent': ['bot', 'crawler'] },
      StringEqualsIgnoreCase: { 'aws:Referer': 'HTTPS://EXAMPLE.COM' },
      StringNotEqualsIgnoreCase: { 'aws:username': 'x' },
      StringLike: { 'aws:Referer': 'https://*.example.com/*' },
      StringNotLike: { 's3:prefix': 'secret/*' },
      StringLikeIfExists: { 's3:delimiter': '/' },
      'ForAnyValue:StringEquals': { 'aws:TagKeys': ['a', 'b'] },
      'ForAllValues:StringLike': { 's3:RequestObjectTagKeys': 'x-*' },
      IpAddress: { 'aws:SourceIp': ['10.0.0.0/8', '2001:db8::/32', '192.0.2.1'] },
      NotIpAddress: { 'aws:SourceIp': '10.1.0.0/16' },
      Bool: { 'aws:SecureTransport': 'true' },
      BoolIfExists: { 'aws:MultiFactorAuthPresent': true },
      NumericLessThanEquals: { 's3:max-keys': 100 },
      NumericGreaterThan: { 's3:max-keys': '1.5' },
      NumericEquals: { 's3:object-lock-remaining-retention-days': '10' },
      DateLessThan: { 'aws:CurrentTime': '2030-01-01T00:00:00Z' },
      DateGreaterThan: { 'aws:EpochTime': '1700000000' },
      Null: { 's3:prefix': 'false' },
      ArnLike: { 'aws:SourceArn': 'arn:aws:s3:::*' },
      StringEqualsIfExists: { 's3:ExistingObjectTag/classification': 'public' },
    };
    const doc = parseBucketPolicy(
      policyJson([base({ Action: 's3:*', Resource: ['arn:aws:s3:::b', 'arn:aws:s3:::b/*'], Condition: condition })]),
      'b',
    );
    const clauses = doc.statements[0]?.conditions ?? [];
    expect(clauses).toHaveLength(21);
    expect(clauses).toContainEqual({ operator: 'StringLike', ifExists: true, key: 's3:delimiter', values: ['/'] });
    expect(clauses).toContainEqual({
      operator: 'StringEquals',
      qualifier: 'ForAnyValue',
      ifExists: false,
      key: 'aws:tagkeys',
      values: ['a', 'b'],
    });
    expect(clauses).toContainEqual({
      operator: 'NumericLessThanEquals',
      ifExists: false,
      key: 's3:max-keys',
      values: ['100'],
    });
    expect(clauses).toContainEqual({
      operator: 'StringEquals',
      ifExists: true,
      key: 's3:existingobjecttag/classification',
      values: ['public'],
    });
  });

  it('a pretty-printed policy over 20 KB whose content is under it (AWS measures without whitespace)', () => {
    const statements = Array.from({ length: 100 }, (_, i) => base({ Sid: `S${i}` }));
    const pretty = JSON.stringify({ Version: '2012-10-17', Statement: statements }, null, 10);
    expect(JSON.stringify(JSON.parse(pretty)).length).toBeLessThan(MAX_POLICY_BYTES);
    expect(new TextEncoder().encode(pretty).length).toBeGreaterThan(MAX_POLICY_BYTES);
    expect(codeOf(() => parse(pretty))).toBeUndefined();
  });
});

describe('parseBucketPolicy refuses with MalformedPolicy', () => {
  const bigStatements = Array.from({ length: 200 }, (_, i) => base({ Sid: `Statement${i}` }));

  it.each<[string, string]>([
    ['not JSON', 'not json'],
    ['truncated JSON', '{"Version": "2012-10-17", "Statement": ['],
    ['an empty body', ''],
    ['a leading space', ` ${policyJson([base()])}`],
    ['a JSON array', JSON.stringify([base()])],
    ['a missing Statement', JSON.stringify({ Version: '2012-10-17' })],
    ['an empty Statement list', policyJson([])],
    ['a string Statement', policyJson('Allow everything')],
    ['a number in the Statement list', policyJson([1])],
    ['an unknown Version', policyJson([base()], '2020-01-01')],
    ['a numeric Version', JSON.stringify({ Version: 2012, Statement: [base()] })],
    ['a numeric Id', JSON.stringify({ Version: '2012-10-17', Id: 7, Statement: [base()] })],
    ['an unknown top-level field', JSON.stringify({ Version: '2012-10-17', Statment: [], Statement: [base()] })],
    ['an unknown statement field', policyJson([base({ Conditions: { Bool: { 'aws:SecureTransport': 'true' } } })])],
    ['a missing Effect', policyJson([base({ Effect: undefined })])],
    ['Effect "hello"', policyJson([base({ Effect: 'hello' })])],
    ['Effect in lower case', policyJson([base({ Effect: 'allow' })])],
    ['a numeric Sid', policyJson([base({ Sid: 1 })])],
    ['duplicate Sids', policyJson([base(), base()])],
    ['a missing Principal', policyJson([base({ Principal: undefined })])],
    ['a bare non-* string Principal', policyJson([base({ Principal: 'AKSTOREKEY1' })])],
    ['a Service principal', policyJson([base({ Principal: { Service: 'cloudfront.amazonaws.com' } })])],
    ['a CanonicalUser principal', policyJson([base({ Principal: { CanonicalUser: 'abc' } })])],
    ['an empty AWS principal list', policyJson([base({ Principal: { AWS: [] } })])],
    ['an empty principal object', policyJson([base({ Principal: {} })])],
    ['a wildcard inside a principal ARN', policyJson([base({ Principal: { AWS: 'arn:aws:iam::*:root' } })])],
    ['a partial wildcard principal', policyJson([base({ Principal: { AWS: 'AK*' } })])],
    ['a non-IAM principal ARN', policyJson([base({ Principal: { AWS: 'arn:aws:s3:::b' } })])],
    ['Principal and NotPrincipal together', policyJson([base({ Effect: 'Deny', NotPrincipal: { AWS: 'K1' } })])],
    ['NotPrincipal with Allow', policyJson([base({ Principal: undefined, NotPrincipal: { AWS: 'K1' } })])],
    ['a missing Action', policyJson([base({ Action: undefined })])],
    ['an empty Action list', policyJson([base({ Action: [] })])],
    ['an empty Action string', policyJson([base({ Action: '' })])],
    ['a numeric Action', policyJson([base({ Action: 5 })])],
    ['unknown action s3:Frobnicate', policyJson([base({ Action: 's3:Frobnicate' })])],
    ['a wildcard matching no S3 action', policyJson([base({ Action: 's3:Frob*' })])],
    ['a non-S3 action', policyJson([base({ Action: 'iam:PassRole' })])],
    ['an action without a service prefix', policyJson([base({ Action: 'GetObject' })])],
    ['Action and NotAction together', policyJson([base({ NotAction: 's3:PutObject' })])],
    ['a missing Resource', policyJson([base({ Resource: undefined })])],
    ['a resource in another bucket', policyJson([base({ Resource: 'arn:aws:s3:::other/*' })])],
    ['another bucket ARN', policyJson([base({ Action: 's3:ListBucket', Resource: 'arn:aws:s3:::other' })])],
    ['a bucket that merely starts with this name', policyJson([base({ Resource: 'arn:aws:s3:::bb/*' })])],
    ['one good and one foreign resource', policyJson([base({ Resource: ['arn:aws:s3:::b/*', 'arn:aws:s3:::c/*'] })])],
    ['a resource without the ARN prefix', policyJson([base({ Resource: 'b/*' })])],
    ['an empty ARN resource', policyJson([base({ Resource: 'arn:aws:s3:::' })])],
    ['a resource starting with /', policyJson([base({ Resource: 'arn:aws:s3:::/b/*' })])],
    ['a non-S3 ARN', policyJson([base({ Resource: 'arn:aws:iam::123456789012:user/x' })])],
    ['an object action on the bucket ARN', policyJson([base({ Action: 's3:PutObject', Resource: 'arn:aws:s3:::b' })])],
    ['a bucket action on object ARNs', policyJson([base({ Action: 's3:ListBucket', Resource: 'arn:aws:s3:::b/*' })])],
    [
      'an account action in a bucket policy',
      policyJson([base({ Action: 's3:ListAllMyBuckets', Resource: 'arn:aws:s3:::b' })]),
    ],
    [
      'an unsupported condition operator',
      policyJson([base({ Condition: { StringFrobnicate: { 'aws:UserAgent': 'x' } } })]),
    ],
    ['NullIfExists', policyJson([base({ Condition: { NullIfExists: { 's3:prefix': 'true' } } })])],
    ['an unknown condition key', policyJson([base({ Condition: { StringEquals: { 'aws:Frobnicate': 'x' } } })])],
    [
      'a tag-key prefix without a tag key',
      policyJson([base({ Condition: { StringEquals: { 's3:ExistingObjectTag/': 'x' } } })]),
    ],
    ['an invalid IPv4 CIDR', policyJson([base({ Condition: { IpAddress: { 'aws:SourceIp': '300.1.1.1/8' } } })])],
    ['an over-long prefix length', policyJson([base({ Condition: { IpAddress: { 'aws:SourceIp': '10.0.0.0/33' } } })])],
    [
      'a hostname as an address',
      policyJson([base({ Condition: { NotIpAddress: { 'aws:SourceIp': 'example.com' } } })]),
    ],
    ['a non-numeric Numeric value', policyJson([base({ Condition: { NumericLessThan: { 's3:max-keys': 'ten' } } })])],
    ['a non-date Date value', policyJson([base({ Condition: { DateLessThan: { 'aws:CurrentTime': 'yesterday' } } })])],
    ['a non-boolean Bool value', policyJson([base({ Condition: { Bool: { 'aws:SecureTransport': 'yes' } } })])],
    ['an empty value list', policyJson([base({ Condition: { StringEquals: { 's3:prefix': [] } } })])],
    ['an object as a value', policyJson([base({ Condition: { StringEquals: { 's3:prefix': { a: 1 } } } })])],
    ['a null value', policyJson([base({ Condition: { StringEquals: { 's3:prefix': null } } })])],
    ['a Condition that is not an object', policyJson([base({ Condition: ['Bool'] })])],
    ['an operator with no keys', policyJson([base({ Condition: { Bool: {} } })])],
    ['more than 20 KB of policy', policyJson(bigStatements)],
  ])('%s', (_name, json) => {
    expect(codeOf(() => parse(json))).toBe('MalformedPolicy');
  });

  it('a principal naming an access key that does not exist, when a lookup is given', () => {
    const json = policyJson([base({ Principal: { AWS: ['AKEXISTS', 'arn:aws:iam::123456789012:user/AKGONE'] } })]);
    const known = new Set(['AKEXISTS']);
    expect(codeOf(() => parseBucketPolicy(json, 'b', { principalExists: (id) => known.has(id) }))).toBe(
      'MalformedPolicy',
    );
    known.add('AKGONE');
    expect(codeOf(() => parseBucketPolicy(json, 'b', { principalExists: (id) => known.has(id) }))).toBeUndefined();
  });

  it('the 20 KB limit sits exactly at 20480 bytes of minified policy', () => {
    const sized = (bytes: number): string => {
      const doc = { Version: '2012-10-17', Id: '', Statement: [base()] };
      const overhead = JSON.stringify(doc).length;
      doc.Id = 'x'.repeat(bytes - overhead);
      return JSON.stringify(doc);
    };
    expect(sized(MAX_POLICY_BYTES).length).toBe(MAX_POLICY_BYTES);
    expect(codeOf(() => parse(sized(MAX_POLICY_BYTES)))).toBeUndefined();
    expect(codeOf(() => parse(sized(MAX_POLICY_BYTES + 1)))).toBe('MalformedPolicy');
  });

  it('reports a 400 status', () => {
    try {
      parse('nope');
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(AppError);
      expect((err as AppError).statusCode).toBe(400);
    }
  });
});
