import { describe, expect, it } from 'vitest';
import { publicAccessText } from './public-access';

describe('publicAccessText', () => {
  it('names each reason a bucket is public, or says it is not', () => {
    expect(publicAccessText({ isPublic: false, reasons: [] })).toBe('Not public');
    expect(publicAccessText({ isPublic: true, reasons: ['acl'] })).toBe('Public (bucket ACL)');
    expect(publicAccessText({ isPublic: true, reasons: ['policy', 'acl'] })).toBe('Public (bucket policy, bucket ACL)');
  });
});
