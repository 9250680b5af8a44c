// The grant of a share link's key (sharePolicy): exactly one object, wildcard characters in its key literal, GET or
// PUT as asked, evaluated as the S3 plane evaluates a key's policy.

import { describe, expect, it } from 'vitest';
import { parseIdentityPolicy } from '../../core/policy/scoped-key.js';
import { simulate } from './access-key-permissions.js';
import { sharePolicy } from './share-link-service.js';

function decide(share: Parameters<typeof sharePolicy>[0], action: string, key: string): string {
  const identityPolicy = parseIdentityPolicy(JSON.stringify(sharePolicy(share).policy));
  return simulate({
    accessKeyId: 'AKSHARE0000000000000',
    identityPolicy,
    bucketPolicy: undefined,
    action,
    bucket: share.bucket,
    key,
    now: new Date(0),
  }).decision;
}

describe('sharePolicy', () => {
  const get = { bucket: 'b', key: 'dir/a*?$.txt', method: 'GET' as const, versionId: undefined };

  it('allows GetObject on the one key only, matching *, ? and $ literally', () => {
    expect(decide(get, 's3:GetObject', 'dir/a*?$.txt')).toBe('allow');
    expect(decide(get, 's3:GetObject', 'dir/aXY$.txt')).toBe('deny');
    expect(decide(get, 's3:GetObject', 'dir/a*?$.txt.bak')).toBe('deny');
    expect(decide(get, 's3:GetObjectVersion', 'dir/a*?$.txt')).toBe('deny');
    expect(decide(get, 's3:PutObject', 'dir/a*?$.txt')).toBe('deny');
    expect(decide(get, 's3:DeleteObject', 'dir/a*?$.txt')).toBe('deny');
  });

  it('adds GetObjectVersion for a link to one version, and only PutObject for an upload link', () => {
    expect(decide({ ...get, versionId: 'v1' }, 's3:GetObjectVersion', 'dir/a*?$.txt')).toBe('allow');
    const put = { ...get, method: 'PUT' as const };
    expect(decide(put, 's3:PutObject', 'dir/a*?$.txt')).toBe('allow');
    expect(decide(put, 's3:GetObject', 'dir/a*?$.txt')).toBe('deny');
  });
});
