import { describe, expect, it } from 'vitest';
import { SecretBox, SecretBoxError } from './secret-box.js';

const SECRET = 'k3y-encryption-secret-for-tests-0123456789abcdef';

describe('SecretBox', () => {
  it('round-trips a secret and never stores the plaintext', () => {
    const box = new SecretBox(SECRET);
    const sealed = box.seal('wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', 'AKID1');
    expect(sealed.includes(Buffer.from('wJalrXUtnFEMI'))).toBe(false);
    expect(sealed[0]).toBe(1);
    expect(box.open(sealed, 'AKID1')).toBe('wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY');
  });

  it('uses a fresh nonce for every seal', () => {
    const box = new SecretBox(SECRET);
    expect(box.seal('same', 'a').equals(box.seal('same', 'a'))).toBe(false);
  });

  it('refuses to open with a key derived from another secret', () => {
    const sealed = new SecretBox(SECRET).seal('s', 'AKID1');
    expect(() => new SecretBox(`${SECRET}x`).open(sealed, 'AKID1')).toThrow(SecretBoxError);
  });

  it('binds the box to its AAD: a secret moved to another key id does not open', () => {
    const box = new SecretBox(SECRET);
    const sealed = box.seal('s', 'AKID1');
    expect(() => box.open(sealed, 'AKID2')).toThrow(SecretBoxError);
  });

  it('detects tampering, truncation and an unknown version', () => {
    const box = new SecretBox(SECRET);
    const sealed = box.seal('secret text', 'id');
    const flipped = Buffer.from(sealed);
    flipped[15] = (flipped[15] as number) ^ 1;
    expect(() => box.open(flipped, 'id')).toThrow(SecretBoxError);
    expect(() => box.open(sealed.subarray(0, 20), 'id')).toThrow(SecretBoxError);
    const version = Buffer.from(sealed);
    version[0] = 2;
    expect(() => box.open(version, 'id')).toThrow(SecretBoxError);
  });

  it('has a check value that identifies the secret and differs from the sealing key material', () => {
    const a = new SecretBox(SECRET);
    expect(a.checkValue).toMatch(/^[0-9a-f]{64}$/);
    expect(new SecretBox(SECRET).checkValue).toBe(a.checkValue);
    expect(new SecretBox(`${SECRET}x`).checkValue).not.toBe(a.checkValue);
  });

  it('refuses an empty secret', () => {
    expect(() => new SecretBox('')).toThrow(RangeError);
  });
});
