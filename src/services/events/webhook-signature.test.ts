import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signatureHeader, verifySignature } from './webhook-signature.js';

const secret = 'k3J9v2QpX7mZ4rT8wYb1Nc6Hd0Lf5Gs-';
const body =
  '{"type":"object.created","bucket":"b","key":"k","size":1,"etag":"e","eventTime":"2025-01-01T00:00:00.000Z"}';

describe('signatureHeader', () => {
  it('is t=<seconds>,v1=<hex HMAC-SHA256 over "<t>.<body>">', () => {
    const header = signatureHeader(secret, 1_700_000_000, body);
    const expected = createHmac('sha256', secret).update(`1700000000.${body}`).digest('hex');
    expect(header).toBe(`t=1700000000,v1=${expected}`);
    expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
  });

  it('matches fixed vectors computed with openssl (so a change of encoding or key handling cannot pass unnoticed)', () => {
    // printf '%s' '1.{}' | openssl dgst -sha256 -hmac 'secret-of-32-characters-exactly!'
    expect(signatureHeader('secret-of-32-characters-exactly!', 1, '{}')).toBe(
      't=1,v1=cbad586daa4ac5e36967bc5a95ec9bd9e887f9271567cba197e812b2a46ded8f',
    );
    expect(signatureHeader(secret, 1_700_000_000, Buffer.from('{"a":1}'))).toBe(
      't=1700000000,v1=6752b8c2d5f6e65763bf17fc35d09e81dce12fcde4751d529b05223d92b074a9',
    );
  });
});

describe('verifySignature', () => {
  const now = 1_700_000_000;
  const raw = Buffer.from(body);

  it('accepts our own signature over the raw bytes', () => {
    expect(
      verifySignature({ secret, header: signatureHeader(secret, now, raw), body: raw, nowSeconds: now + 10 }),
    ).toEqual({ ok: true });
  });

  it('refuses a body changed by one byte, another secret, or re-serialized JSON', () => {
    const header = signatureHeader(secret, now, raw);
    expect(
      verifySignature({ secret, header, body: Buffer.from(body.replace('"size":1', '"size":2')), nowSeconds: now }),
    ).toEqual({ ok: false, reason: 'mismatch' });
    expect(verifySignature({ secret: `${secret}x`, header, body: raw, nowSeconds: now })).toEqual({
      ok: false,
      reason: 'mismatch',
    });
    const reserialized = Buffer.from(JSON.stringify(JSON.parse(body) as object, null, 1));
    expect(verifySignature({ secret, header, body: reserialized, nowSeconds: now })).toEqual({
      ok: false,
      reason: 'mismatch',
    });
  });

  it('refuses a timestamp more than 300 s away either way', () => {
    const header = signatureHeader(secret, now, raw);
    expect(verifySignature({ secret, header, body: raw, nowSeconds: now + 300 }).ok).toBe(true);
    expect(verifySignature({ secret, header, body: raw, nowSeconds: now + 301 })).toEqual({
      ok: false,
      reason: 'stale',
    });
    expect(verifySignature({ secret, header, body: raw, nowSeconds: now - 301 })).toEqual({
      ok: false,
      reason: 'stale',
    });
  });

  it('refuses missing or malformed headers', () => {
    for (const header of [undefined, '', 't=1', 'v1=abc', `t=x,v1=${'0'.repeat(64)}`, `t=1,v1=${'g'.repeat(64)}`]) {
      expect(verifySignature({ secret, header, body: raw, nowSeconds: 1 })).toEqual({ ok: false, reason: 'malformed' });
    }
  });
});
