// Property-style check: evaluate() against a naive reference (regular expressions, rules spelled out directly)
// on random policies and requests from a seeded generator, so a failure reproduces.
import { describe, it } from 'vitest';
import { evaluate, type AuthzPrincipal, type PolicySet } from './evaluate.js';
import { parseBucketPolicy } from './policy-document.js';
import { parseIdentityPolicy } from './scoped-key.js';

type Json = Record<string, unknown>;

const ANON: AuthzPrincipal = { type: 'anonymous' };
const ROOT: AuthzPrincipal = { type: 'key', accessKeyId: 'AKROOT' };
const K1: AuthzPrincipal = { type: 'key', accessKeyId: 'AKONE' };
const K2: AuthzPrincipal = { type: 'key', accessKeyId: 'AKTWO' };

const bucketPolicy = (...statements: Json[]) =>
  parseBucketPolicy(JSON.stringify({ Version: '2012-10-17', Statement: statements }), 'b');
const identityPolicy = (...statements: Json[]) =>
  parseIdentityPolicy(JSON.stringify({ Version: '2012-10-17', Statement: statements }));

describe('evaluate compared with a naive reference (random policies and requests)', () => {
  // A deterministic generator, so a failure reproduces.
  function rng(seed: number): () => number {
    let s = seed;
    return () => {
      s = (s * 1103515245 + 12345) & 0x7fffffff;
      return s / 0x80000000;
    };
  }
  const ACTIONS = ['s3:GetObject', 's3:PutObject', 's3:DeleteObject', 's3:GetObjectTagging', 's3:PutObjectTagging'];
  const ACTION_PATTERNS = [...ACTIONS, 's3:Get*', 's3:*Object', 's3:?utObject', 's3:*', '*', 's3:*Tagging'];
  const KEYS = ['a', 'ab', 'a/b', 'b/a', 'photos/x.jpg', 'photos/y.png', 'x'];
  const RESOURCE_PATTERNS = [
    'arn:aws:s3:::b/*',
    'arn:aws:s3:::b/a*',
    'arn:aws:s3:::b/?',
    'arn:aws:s3:::b/photos/*',
    'arn:aws:s3:::b/*.jpg',
    'arn:aws:s3:::b/a/b',
    '*',
  ];
  const PRINCIPALS: Json['Principal'][] = ['*', { AWS: 'AKONE' }, { AWS: ['AKTWO', 'AKONE'] }, { AWS: '123456789012' }];

  const toRegExp = (glob: string, flags = ''): RegExp =>
    new RegExp(
      `^${glob
        .replace(/[.+^${}()|[\]\\]/g, '\\$&')
        .replace(/\*/g, '.*')
        .replace(/\?/g, '.')}$`,
      flags,
    );

  function pickFrom<T>(r: () => number, list: readonly T[]): T {
    return list[Math.floor(r() * list.length)] as T;
  }
  function someOf<T>(r: () => number, list: readonly T[]): T[] {
    return Array.from({ length: 1 + Math.floor(r() * 2) }, () => pickFrom(r, list));
  }

  it('agrees on 3000 random cases', () => {
    const r = rng(20240601);
    for (let i = 0; i < 3000; i += 1) {
      const bucketStatements = Array.from({ length: Math.floor(r() * 3) }, () => ({
        Effect: r() < 0.6 ? 'Allow' : 'Deny',
        Principal: pickFrom(r, PRINCIPALS),
        Action: someOf(r, ACTION_PATTERNS),
        Resource: someOf(r, RESOURCE_PATTERNS),
      }));
      const identityStatements = Array.from({ length: Math.floor(r() * 3) }, () => ({
        Effect: r() < 0.7 ? 'Allow' : 'Deny',
        Action: someOf(r, ACTION_PATTERNS),
        Resource: someOf(r, RESOURCE_PATTERNS),
      }));
      const principal: AuthzPrincipal = pickFrom(r, [ANON, ROOT, K1, K2]);
      const action = pickFrom(r, ACTIONS);
      const key = pickFrom(r, KEYS);

      // The reference: regular expressions and the rules spelled out directly.
      const arn = `arn:aws:s3:::b/${key}`;
      const hits = (s: { Action: string[]; Resource: string[] }) =>
        s.Action.some((p) => toRegExp(p, 'i').test(action)) && s.Resource.some((p) => toRegExp(p).test(arn));
      const names = (p: Json['Principal']): boolean => {
        if (p === '*') return true;
        if (principal.type !== 'key') return false;
        const aws = (p as { AWS: string | string[] }).AWS;
        return [aws].flat().some((v) => v === '123456789012' || v === principal.accessKeyId);
      };
      const bucketHits = bucketStatements.filter((s) => names(s.Principal) && hits(s));
      const isRoot = principal === ROOT;
      const identityHits = principal.type === 'key' && !isRoot ? identityStatements.filter(hits) : [];
      let expected: boolean;
      if ([...bucketHits, ...identityHits].some((s) => s.Effect === 'Deny')) expected = false;
      else if (isRoot) expected = true;
      else if (principal.type === 'key') expected = identityHits.some((s) => s.Effect === 'Allow');
      else expected = bucketHits.some((s) => s.Effect === 'Allow' && s.Principal === '*');

      const set: PolicySet = {
        isRoot,
        bucketPolicy: bucketStatements.length > 0 ? bucketPolicy(...bucketStatements) : undefined,
        identityPolicy: identityStatements.length > 0 ? identityPolicy(...identityStatements) : undefined,
      };
      const actual = evaluate({ action, bucket: 'b', key, principal, context: {} }, set);
      if (actual.allowed !== expected) {
        throw new Error(
          `case ${i}: ${JSON.stringify({ principal, action, key, bucketStatements, identityStatements, actual })}`,
        );
      }
    }
  });
});
