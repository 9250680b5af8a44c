// Sealing short secrets (scoped access-key secrets) at rest: AES-256-GCM with a key derived by HKDF-SHA256 from an
// operator secret, each ciphertext bound to its owner through the additional authenticated data (AAD).

import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/** Thrown by open(): wrong key, wrong AAD, a truncated or tampered box, or an unknown format version. */
export class SecretBoxError extends Error {
  override name = 'SecretBoxError';
}

const VERSION = 1;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
// Fixed salt and distinct info strings (RFC 5869 section 3): the input is a high-entropy secret (boot refuses weak
// ones), so a per-installation salt would add nothing; the info strings keep the sealing key and the check value
// independent, so publishing the check value reveals nothing about the sealing key.
const SALT = 'store/key-encryption';
const SEAL_INFO = 'store access-key secrets aes-256-gcm v1';
const CHECK_INFO = 'store key-encryption check v1';

function derive(secret: string, info: string): Buffer {
  return Buffer.from(hkdfSync('sha256', Buffer.from(secret, 'utf8'), SALT, info, 32));
}

/**
 * Seals and opens UTF-8 secrets. A sealed box is `version (1) | nonce (12) | ciphertext | GCM tag (16)`; a fresh
 * random nonce per seal (96-bit nonces are safe for far more seals than an admin will ever make with one key).
 */
export class SecretBox {
  private readonly key: Buffer;
  /** A hex value derived from the same secret that identifies it without revealing the sealing key. */
  readonly checkValue: string;

  constructor(secret: string) {
    if (secret === '') throw new RangeError('SecretBox needs a non-empty secret');
    this.key = derive(secret, SEAL_INFO);
    this.checkValue = derive(secret, CHECK_INFO).toString('hex');
  }

  /** Encrypts `plaintext`; `aad` (for example the owner's id) must be given again to open it. */
  seal(plaintext: string, aad: string): Buffer {
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, nonce, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(aad, 'utf8'));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return Buffer.concat([Buffer.from([VERSION]), nonce, body, cipher.getAuthTag()]);
  }

  /** Decrypts a box made by seal() with the same secret and AAD. Throws SecretBoxError otherwise. */
  open(sealed: Uint8Array, aad: string): string {
    const box = Buffer.from(sealed);
    if (box.length < 1 + NONCE_BYTES + TAG_BYTES || box[0] !== VERSION)
      throw new SecretBoxError('not a sealed secret of a known version');
    const nonce = box.subarray(1, 1 + NONCE_BYTES);
    const tag = box.subarray(box.length - TAG_BYTES);
    const body = box.subarray(1 + NONCE_BYTES, box.length - TAG_BYTES);
    const decipher = createDecipheriv('aes-256-gcm', this.key, nonce, { authTagLength: TAG_BYTES });
    decipher.setAAD(Buffer.from(aad, 'utf8'));
    decipher.setAuthTag(tag);
    try {
      return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
    } catch (err) {
      throw new SecretBoxError('the sealed secret does not open with this key and AAD', { cause: err });
    }
  }
}
