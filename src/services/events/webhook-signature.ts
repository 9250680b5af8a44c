// The webhook signature (SPEC "Signature rules"): X-Store-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 keyed
// with the secret over "<t>.<raw body>">. The verifier is what a receiver runs (docs/webhooks.md), kept here so
// the tests check our signer against the very code we tell receivers to use.

import { createHmac, timingSafeEqual } from 'node:crypto';

/** How far a receiver should accept a timestamp from its own clock, in seconds (SPEC "Limits": 300 s). */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

/** The X-Store-Signature value for a body sent at `unixSeconds`. */
export function signatureHeader(secret: string, unixSeconds: number, body: string | Buffer): string {
  const mac = createHmac('sha256', secret).update(`${unixSeconds}.`).update(body).digest('hex');
  return `t=${unixSeconds},v1=${mac}`;
}

/**
 * A receiver's check: the header parses, its timestamp is within the tolerance of `nowSeconds`, and some v1
 * value equals the HMAC over the raw body bytes (compared in constant time). Returns the reason for a refusal.
 */
export function verifySignature(opts: {
  secret: string;
  header: string | undefined;
  body: Buffer;
  nowSeconds: number;
  toleranceSeconds?: number;
}): { ok: true } | { ok: false; reason: 'malformed' | 'stale' | 'mismatch' } {
  const parts = (opts.header ?? '').split(',').map((p) => p.trim().split('='));
  const t = parts.find(([k]) => k === 't')?.[1];
  const candidates = parts
    .filter(([k, v]) => k === 'v1' && v !== undefined && /^[0-9a-f]{64}$/.test(v))
    .map(([, v]) => v as string);
  if (t === undefined || !/^\d{1,12}$/.test(t) || candidates.length === 0) return { ok: false, reason: 'malformed' };
  if (Math.abs(opts.nowSeconds - Number(t)) > (opts.toleranceSeconds ?? SIGNATURE_TOLERANCE_SECONDS))
    return { ok: false, reason: 'stale' };
  const expected = createHmac('sha256', opts.secret).update(`${t}.`).update(opts.body).digest();
  const matches = candidates.some((hex) => timingSafeEqual(Buffer.from(hex, 'hex'), expected));
  return matches ? { ok: true } : { ok: false, reason: 'mismatch' };
}
