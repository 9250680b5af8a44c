// What the console says about a bucket's public access (the admin API's `public`: whether, and why).

export type PublicReason = 'policy' | 'acl';

const REASON_TEXT: Record<PublicReason, string> = { policy: 'bucket policy', acl: 'bucket ACL' };

/** "Public (bucket policy, bucket ACL)" or "Not public". */
export function publicAccessText(pub: { isPublic: boolean; reasons: readonly PublicReason[] }): string {
  if (!pub.isPublic) return 'Not public';
  return `Public (${pub.reasons.map((r) => REASON_TEXT[r]).join(', ')})`;
}
