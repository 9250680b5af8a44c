// Access-key rows as the admin API shows them, the generated ids and secrets, and the checks of names and expiry.

import { randomBytes } from 'node:crypto';
import { AppError } from '../../core/errors.js';
import type { AccessKeyRow } from '../../storage/db/access-keys-repo.js';
import { readPermissions, type KeyPermissions } from './access-key-permissions.js';

/** A key as the admin API shows it: never the secret. Times are epoch milliseconds. */
export interface AccessKeyView {
  accessKeyId: string;
  name: string;
  description: string;
  enabled: boolean;
  /** null: no permissions, the key is denied everything. */
  permissions: KeyPermissions | null;
  createdAt: number;
  updatedAt: number;
  createdBy: string;
  /** When the key last authenticated an S3 request (recorded to the minute), if ever. */
  lastUsedAt: number | undefined;
  /** When the key stops authenticating; undefined: never. */
  expiresAt: number | undefined;
}

const ID_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
export const ACCESS_KEY_ID_LENGTH = 20;

/** 20 uppercase alphanumerics, uniformly drawn (rejection sampling: 252 = 7 * 36). */
export function generateAccessKeyId(): string {
  let id = '';
  while (id.length < ACCESS_KEY_ID_LENGTH) {
    for (const byte of randomBytes(32)) {
      if (byte < 252 && id.length < ACCESS_KEY_ID_LENGTH) id += ID_ALPHABET[byte % 36];
    }
  }
  return id;
}

/** 40 characters of base64url (240 random bits), the length of an AWS secret access key. */
export function generateSecret(): string {
  return randomBytes(30).toString('base64url');
}

/** A trimmed, non-empty name. Throws ValidationError. */
export function checkName(name: string): string {
  const trimmed = name.trim();
  if (trimmed === '') throw new AppError('ValidationError', { message: 'name: must not be empty' });
  return trimmed;
}

/** An expiry must lie in the future (a key that could never work is a mistake). Throws ValidationError. */
export function checkExpiry(expiresAt: number, now: number): number {
  if (!Number.isFinite(expiresAt) || expiresAt <= now) {
    throw new AppError('ValidationError', { message: 'expiresAt: must be in the future' });
  }
  return expiresAt;
}

export function toView(row: AccessKeyRow): AccessKeyView {
  return {
    accessKeyId: row.accessKeyId,
    name: row.name,
    description: row.description,
    enabled: row.enabled,
    permissions: readPermissions(row.permissions) ?? null,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    createdBy: row.createdBy,
    lastUsedAt: row.lastUsedAt,
    expiresAt: row.expiresAt,
  };
}
