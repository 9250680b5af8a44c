// An environment loadConfig accepts (strong random secrets, an argon2id hash), for the config tests of each feature,
// and the problems of one it refuses.

import { randomBytes } from 'node:crypto';
import { ConfigError, loadConfig } from '../../src/config/config.js';

export const ARGON2ID = '$argon2id$v=19$m=65536,t=3,p=4$c29tZXNhbHRzYWx0$RdescudvJCsgt3ub+b+dWRWJTmaaJObGzz8hq0pSzmE';

/** The required keys with valid values, then `overrides` (an undefined value removes the key). */
export function configEnv(overrides: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  return {
    DATA_DIR: '/var/lib/store',
    JWT_SECRET: randomBytes(40).toString('base64url'),
    ADMIN_PASSWORD_HASH: ARGON2ID,
    ROOT_ACCESS_KEY_ID: 'K7QX2M9RTB4WZ8LN3VPA',
    ROOT_SECRET_ACCESS_KEY: randomBytes(30).toString('base64url'),
    ...overrides,
  };
}

/**
 * The boot refusal's problems for configEnv(overrides), or [] when it boots. Anything but a ConfigError is rethrown.
 */
export function configProblems(overrides: Record<string, string | undefined>): string[] {
  try {
    loadConfig(configEnv(overrides));
    return [];
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
}
