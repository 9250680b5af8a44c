// The condition keys a request offers to bucket and key policies (aws:SourceIp, aws:SecureTransport, s3:prefix,
// s3:x-amz-acl, ...), read from the connection, the headers (or POST Object's form fields) and the query.
// Key list: IAM "AWS global condition context keys" and the Service Authorization Reference for Amazon S3.

import type { ContextInput } from '../../core/policy/context.js';
import type { Tag } from '../../core/tagging.js';
import type { Principal } from './authorize.js';
import type { Query } from './endpoints.js';

export interface ContextFacts {
  principal: Principal;
  /** How the request was authenticated (s3:authType); undefined for anonymous requests. */
  authType: 'REST-HEADER' | 'REST-QUERY-STRING' | 'POST' | undefined;
  /** Which signature (s3:signatureversion: "AWS" for SigV2, "AWS4-HMAC-SHA256" for SigV4); undefined when anonymous. */
  signatureVersion?: 'AWS' | 'AWS4-HMAC-SHA256' | undefined;
  /** Epoch ms of the signature's timestamp (s3:signatureAge), when signed. */
  signedAt?: number | undefined;
  /** The peer address as the socket reports it (an IPv4-mapped IPv6 address matches as IPv4). */
  sourceIp: string | undefined;
  /** TLS on this connection. Behind a TLS-terminating proxy this is false until a trusted-proxy setting exists. */
  secureTransport: boolean;
  now: Date;
  region: string;
  op: string;
  /** A request header by lower-case name; for POST Object, the form field of that name. */
  header: (name: string) => string | undefined;
  query: Query;
  /** Tags the request sets (x-amz-tagging, or POST Object's tagging field), for s3:RequestObjectTag. */
  requestTags?: readonly Tag[] | undefined;
}

/** s3:<key> -> the header it reads. */
const HEADER_KEYS: Readonly<Record<string, string>> = {
  's3:x-amz-acl': 'x-amz-acl',
  's3:x-amz-content-sha256': 'x-amz-content-sha256',
  's3:x-amz-copy-source': 'x-amz-copy-source',
  's3:x-amz-metadata-directive': 'x-amz-metadata-directive',
  's3:x-amz-server-side-encryption': 'x-amz-server-side-encryption',
  's3:x-amz-server-side-encryption-aws-kms-key-id': 'x-amz-server-side-encryption-aws-kms-key-id',
  's3:x-amz-server-side-encryption-customer-algorithm': 'x-amz-server-side-encryption-customer-algorithm',
  's3:x-amz-storage-class': 'x-amz-storage-class',
  's3:x-amz-website-redirect-location': 'x-amz-website-redirect-location',
  's3:x-amz-grant-full-control': 'x-amz-grant-full-control',
  's3:x-amz-grant-read': 'x-amz-grant-read',
  's3:x-amz-grant-read-acp': 'x-amz-grant-read-acp',
  's3:x-amz-grant-write': 'x-amz-grant-write',
  's3:x-amz-grant-write-acp': 'x-amz-grant-write-acp',
  's3:object-lock-mode': 'x-amz-object-lock-mode',
  's3:object-lock-retain-until-date': 'x-amz-object-lock-retain-until-date',
  's3:object-lock-legal-hold': 'x-amz-object-lock-legal-hold',
  's3:if-match': 'if-match',
  's3:if-none-match': 'if-none-match',
  'aws:UserAgent': 'user-agent',
  'aws:Referer': 'referer',
};

const LIST_OPS = new Set(['ListObjects', 'ListObjectsV2', 'ListObjectVersions']);
const DAY_MS = 86_400_000;

/**
 * x-amz-tagging is a URL-encoded query string (`k1=v1&k2=v2`); an unreadable one offers no tags (the handler refuses
 * it).
 */
export function tagsFromHeader(value: string | undefined): Tag[] | undefined {
  if (value === undefined) return undefined;
  try {
    return [...new URLSearchParams(value)].map(([key, v]) => ({ key, value: v }));
  } catch {
    return undefined;
  }
}

/** The condition keys of one request. */
export function policyContext(facts: ContextFacts): ContextInput {
  const { principal, header } = facts;
  const ctx: Record<string, string | string[] | undefined> = {
    'aws:SecureTransport': facts.secureTransport ? 'true' : 'false',
    'aws:SourceIp': facts.sourceIp,
    'aws:CurrentTime': facts.now.toISOString(),
    'aws:EpochTime': String(Math.floor(facts.now.getTime() / 1000)),
    'aws:RequestedRegion': facts.region,
    // IAM: anonymous requests have aws:userid "anonymous"; Store's keys have no users, so the key id stands for both.
    'aws:PrincipalType': principal.type === 'anonymous' ? 'Anonymous' : principal.isRoot ? 'Account' : 'User',
    'aws:userid': principal.type === 'anonymous' ? 'anonymous' : principal.accessKeyId,
    'aws:username': principal.type === 'key' && !principal.isRoot ? principal.accessKeyId : undefined,
    's3:authType': facts.authType,
    's3:signatureversion': facts.authType === undefined ? undefined : (facts.signatureVersion ?? 'AWS4-HMAC-SHA256'),
    's3:signatureAge':
      facts.signedAt === undefined ? undefined : String(Math.max(0, facts.now.getTime() - facts.signedAt)),
  };
  for (const [key, name] of Object.entries(HEADER_KEYS)) ctx[key] = header(name);
  const retainUntil = header('x-amz-object-lock-retain-until-date');
  const until = retainUntil === undefined ? NaN : Date.parse(retainUntil);
  if (!Number.isNaN(until))
    ctx['s3:object-lock-remaining-retention-days'] = String(
      Math.max(0, Math.ceil((until - facts.now.getTime()) / DAY_MS)),
    );
  if (LIST_OPS.has(facts.op)) {
    ctx['s3:prefix'] = facts.query.get('prefix');
    ctx['s3:delimiter'] = facts.query.get('delimiter');
    ctx['s3:max-keys'] = facts.query.get('max-keys');
  }
  if (facts.requestTags !== undefined) {
    ctx['s3:RequestObjectTagKeys'] = facts.requestTags.map((t) => t.key);
    for (const tag of facts.requestTags) ctx[`s3:RequestObjectTag/${tag.key}`] = tag.value;
  }
  return ctx;
}
