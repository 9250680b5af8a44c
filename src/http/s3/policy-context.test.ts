import { describe, expect, it } from 'vitest';
import { parseQuery } from './endpoints.js';
import { policyContext, tagsFromHeader, type ContextFacts } from './policy-context.js';

const NOW = new Date('2030-01-02T03:04:05.678Z');

function facts(overrides: Partial<ContextFacts> = {}, headers: Record<string, string> = {}): ContextFacts {
  return {
    principal: { type: 'anonymous' },
    authType: undefined,
    sourceIp: '::ffff:127.0.0.1',
    secureTransport: false,
    now: NOW,
    region: 'us-east-1',
    op: 'GetObject',
    header: (name) => headers[name],
    query: parseQuery(''),
    ...overrides,
  };
}

describe('policyContext', () => {
  it('describes the connection, the time and an anonymous caller as IAM does', () => {
    expect(policyContext(facts())).toMatchObject({
      'aws:SecureTransport': 'false',
      'aws:SourceIp': '::ffff:127.0.0.1',
      'aws:CurrentTime': '2030-01-02T03:04:05.678Z',
      'aws:EpochTime': '1893553445',
      'aws:PrincipalType': 'Anonymous',
      'aws:userid': 'anonymous',
      'aws:username': undefined,
      's3:authType': undefined,
      's3:signatureversion': undefined,
    });
  });

  it('names the root key an Account and a scoped key a User with its key id as aws:username', () => {
    const root = policyContext(
      facts({
        principal: { type: 'key', accessKeyId: 'ROOT', isRoot: true },
        authType: 'REST-HEADER',
        signedAt: NOW.getTime() - 1500,
      }),
    );
    expect(root).toMatchObject({
      'aws:PrincipalType': 'Account',
      'aws:userid': 'ROOT',
      'aws:username': undefined,
      's3:authType': 'REST-HEADER',
      's3:signatureAge': '1500',
    });
    const scoped = policyContext(
      facts({ principal: { type: 'key', accessKeyId: 'SCOPED', isRoot: false }, authType: 'REST-QUERY-STRING' }),
    );
    expect(scoped).toMatchObject({
      'aws:PrincipalType': 'User',
      'aws:username': 'SCOPED',
      's3:signatureversion': 'AWS4-HMAC-SHA256',
    });
  });

  it('reads s3:prefix, delimiter and max-keys on listings only', () => {
    const query = parseQuery('list-type=2&prefix=docs%2F&delimiter=%2F&max-keys=10');
    expect(policyContext(facts({ op: 'ListObjectsV2', query }))).toMatchObject({
      's3:prefix': 'docs/',
      's3:delimiter': '/',
      's3:max-keys': '10',
    });
    expect(policyContext(facts({ op: 'GetObject', query }))['s3:prefix']).toBeUndefined();
  });

  it('reads request headers, object lock days left, and the tags a request sets', () => {
    const ctx = policyContext(
      facts(
        { requestTags: tagsFromHeader('team=web&stage=prod') },
        {
          'x-amz-acl': 'private',
          'user-agent': 'ua/1',
          referer: 'https://r.example',
          'x-amz-object-lock-retain-until-date': '2030-01-12T00:00:00Z',
        },
      ),
    );
    expect(ctx).toMatchObject({
      's3:x-amz-acl': 'private',
      'aws:UserAgent': 'ua/1',
      'aws:Referer': 'https://r.example',
      's3:object-lock-remaining-retention-days': '10',
      's3:RequestObjectTagKeys': ['team', 'stage'],
      's3:RequestObjectTag/team': 'web',
      's3:RequestObjectTag/stage': 'prod',
    });
  });
});
