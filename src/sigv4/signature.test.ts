import { createHmac, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { chunkStringToSign, deriveSigningKey, signatureBytes, signatureHex } from './signature.js';

/** The HMAC chain of SigV4 spelt out with Node's Hmac objects: what the two-digest HMAC must always equal. */
function referenceKey(
  secret: string,
  { date, region, service }: { date: string; region: string; service: string },
): Buffer {
  const h = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data, 'utf8').digest();
  return h(h(h(h(`AWS4${secret}`, date), region), service), 'aws4_request');
}

describe('signatures (HMAC-SHA256 from two one-shot digests)', () => {
  it("derives the signing key of AWS's documented example", () => {
    // https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv-create-signed-request.html (derive a signing key)
    const key = deriveSigningKey('wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY', {
      date: '20120215',
      region: 'us-east-1',
      service: 'iam',
    });
    expect(key.toString('hex')).toBe('f4780e2d9f65fa895f9c67b32ce1baf0b0d8a43505a000a1a9e090d414db404d');
  });

  it('derives the same key as an Hmac chain for secrets shorter and longer than the 64-byte block', () => {
    // "AWS4" + secret crosses the block size at 60 characters, where RFC 2104 hashes the key first.
    for (const length of [0, 1, 40, 59, 60, 61, 64, 100, 300]) {
      const secret = 'k'.repeat(length).replace(/k/g, (_, i: number) => String.fromCharCode(0x41 + (i % 26)));
      expect(deriveSigningKey(secret, { date: '20261128', region: 'eu-west-1', service: 's3' })).toEqual(
        referenceKey(secret, { date: '20261128', region: 'eu-west-1', service: 's3' }),
      );
    }
  });

  it('signs any message as an Hmac object does: empty, ASCII, multi-byte UTF-8, and longer than the scratch space', () => {
    const key = deriveSigningKey(randomBytes(30).toString('base64'), {
      date: '20261128',
      region: 'us-east-1',
      service: 's3',
    });
    const messages = [
      '',
      'AWS4-HMAC-SHA256\n20261128T000000Z',
      'é'.repeat(341),
      'é'.repeat(342),
      '€'.repeat(400),
      'x'.repeat(20_000),
    ];
    for (const message of messages) {
      expect(signatureBytes(key, message)).toEqual(createHmac('sha256', key).update(message, 'utf8').digest());
    }
  });

  it('gives each signature its own buffer, unchanged by the next signature under the same key', () => {
    const key = deriveSigningKey('a-secret-of-some-length-0123456789', {
      date: '20261128',
      region: 'us-east-1',
      service: 's3',
    });
    const first = signatureBytes(key, 'first');
    const copy = Buffer.from(first);
    signatureBytes(key, 'second, longer than the first message');
    expect(first).toEqual(copy);
  });

  it('chains chunk signatures as an Hmac object would', () => {
    const key = deriveSigningKey('chunk-secret-0123456789abcdefghijklmnop', {
      date: '20261128',
      region: 'us-east-1',
      service: 's3',
    });
    const ctx = {
      signingKey: key,
      seedSignature: 'a'.repeat(64),
      amzDate: '20261128T000000Z',
      scope: '20261128/us-east-1/s3/aws4_request',
    };
    let previous = ctx.seedSignature;
    let expected = ctx.seedSignature;
    for (let i = 0; i < 5; i++) {
      const dataHash = String(i).repeat(64);
      previous = signatureHex(key, chunkStringToSign(ctx, previous, dataHash));
      expected = createHmac('sha256', key)
        .update(chunkStringToSign(ctx, expected, dataHash))
        .digest('hex');
      expect(previous).toBe(expected);
    }
  });
});
