// One line per bucket setting for the Overview tab, and when and why a bucket is public (which policy statements
// let anyone in, under which conditions). Pure (unit-tested in Node). docs/console.md, "Bucket settings".

import { describeRule, type LifecycleRule, type Tag } from './lifecycle-form';

export interface CorsRule {
  allowedOrigins: string[];
  allowedMethods: string[];
}

export function encryptionSummary(e: { sseAlgorithm: string; bucketKeyEnabled?: boolean } | undefined): string {
  if (!e) return 'None: objects are stored as sent unless a request asks for encryption';
  const name = e.sseAlgorithm === 'AES256' ? 'SSE-S3 (AES-256)' : e.sseAlgorithm;
  return `${name} for every new object${e.bucketKeyEnabled ? ', bucket key on' : ''}`;
}

/** Each rule in words; transitions are marked as doing nothing while tiering is off (docs/replication.md). */
export function lifecycleSummary(rules: readonly LifecycleRule[], tieringOn: boolean): string[] {
  return rules.map((r) => {
    const moves = (r.transitions?.length ?? 0) + (r.noncurrentVersionTransitions?.length ?? 0) > 0;
    return `${describeRule(r)}${moves && !tieringOn ? ' Its transitions do nothing: tiering is off.' : ''}`;
  });
}

export function corsSummary(rules: readonly CorsRule[]): string[] {
  return rules.map((r) => `${r.allowedOrigins.join(', ')}: ${r.allowedMethods.join(', ')}`);
}

export function tagsSummary(tags: readonly Tag[]): string {
  return tags.length === 0 ? 'None' : tags.map((t) => `${t.key}=${t.value}`).join(', ');
}

interface Statement {
  Sid?: unknown;
  Effect?: unknown;
  Principal?: unknown;
  Action?: unknown;
  Resource?: unknown;
  Condition?: unknown;
}

const list = (v: unknown): string[] =>
  Array.isArray(v) ? v.map(String) : v === undefined || v === null ? [] : [String(v)];

/** Whether a principal is everyone ("*" or {"AWS": "*"}). */
function isEveryone(p: unknown): boolean {
  if (p === '*') return true;
  if (p && typeof p === 'object' && 'AWS' in p) return list((p as { AWS: unknown }).AWS).includes('*');
  return false;
}

/** Conditions as "key operator value" phrases. */
function conditionText(c: unknown): string {
  if (!c || typeof c !== 'object') return '';
  const parts: string[] = [];
  for (const [op, body] of Object.entries(c as Record<string, unknown>)) {
    if (!body || typeof body !== 'object') continue;
    for (const [key, value] of Object.entries(body as Record<string, unknown>))
      parts.push(`${key} ${op} ${list(value).join(' or ')}`);
  }
  return parts.join(' and ');
}

export interface PublicGrant {
  sid: string | undefined;
  actions: string[];
  resources: string[];
  /** "always", or the conditions under which the grant applies. */
  when: string;
}

/** The statements of a policy that allow everyone: what, on which resources, and when. */
export function publicGrants(policy: unknown): PublicGrant[] {
  const doc = policy as { Statement?: unknown } | null;
  const statements = (Array.isArray(doc?.Statement) ? doc.Statement : doc?.Statement ? [doc.Statement] : []) as
    Statement[] | [];
  return statements
    .filter((s) => s.Effect === 'Allow' && isEveryone(s.Principal))
    .map((s) => {
      const cond = conditionText(s.Condition);
      return {
        sid: typeof s.Sid === 'string' ? s.Sid : undefined,
        actions: list(s.Action),
        resources: list(s.Resource),
        when: cond ? `only when ${cond}` : 'always, for anyone on the internet',
      };
    });
}

/** Each statement in a line: "Deny s3:DeleteBucket to everyone on arn:aws:s3:::photos (DenyDelete)". */
export function policySummary(policy: unknown): string[] {
  const doc = policy as { Statement?: unknown } | null;
  const statements = (Array.isArray(doc?.Statement) ? doc.Statement : doc?.Statement ? [doc.Statement] : []) as
    Statement[] | [];
  return statements.map((s) => {
    const who = isEveryone(s.Principal) ? 'everyone' : JSON.stringify(s.Principal ?? 'nobody');
    const cond = conditionText(s.Condition);
    const sid = typeof s.Sid === 'string' ? ` (${s.Sid})` : '';
    return `${String(s.Effect)} ${list(s.Action).join(', ')} to ${who} on ${list(s.Resource).join(', ')}${cond ? ` when ${cond}` : ''}${sid}`;
  });
}
