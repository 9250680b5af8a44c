// The integrity and analytics keys through loadConfig: documented defaults, accepted values, and refusals naming
// the key.

import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.js';

const ARGON2ID = '$argon2id$v=19$m=65536,t=3,p=4$c29tZXNhbHRzYWx0$RdescudvJCsgt3ub+b+dWRWJTmaaJObGzz8hq0pSzmE';

function env(overrides: Record<string, string>): Record<string, string> {
  return {
    DATA_DIR: '/var/lib/store',
    JWT_SECRET: randomBytes(40).toString('base64url'),
    ADMIN_PASSWORD_HASH: ARGON2ID,
    ROOT_ACCESS_KEY_ID: 'K7QX2M9RTB4WZ8LN3VPA',
    ROOT_SECRET_ACCESS_KEY: randomBytes(30).toString('base64url'),
    ...overrides,
  };
}

function problems(overrides: Record<string, string>): string[] {
  try {
    loadConfig(env(overrides));
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).problems;
  }
  return [];
}

describe('integrity and analytics configuration', () => {
  it('defaults: scrubber off, 1 s ticks of 100 versions and 8 MiB, weekly passes, 90 days of analytics', () => {
    expect(loadConfig(env({}))).toMatchObject({
      STORE_INTEGRITY_SCRUB_ENABLED: false, STORE_INTEGRITY_SCRUB_INTERVAL_MS: 1000, STORE_INTEGRITY_SCRUB_OBJECTS_PER_TICK: 100,
      STORE_INTEGRITY_SCRUB_BYTES_PER_TICK: 8 * 1024 * 1024, STORE_INTEGRITY_SCRUB_PASS_INTERVAL_HOURS: 168, STORE_ANALYTICS_RETENTION_DAYS: 90,
    });
  });

  it('accepts values in range', () => {
    expect(loadConfig(env({
      STORE_INTEGRITY_SCRUB_ENABLED: 'true', STORE_INTEGRITY_SCRUB_INTERVAL_MS: '100', STORE_INTEGRITY_SCRUB_OBJECTS_PER_TICK: '1',
      STORE_INTEGRITY_SCRUB_BYTES_PER_TICK: '65536', STORE_INTEGRITY_SCRUB_PASS_INTERVAL_HOURS: '1', STORE_ANALYTICS_RETENTION_DAYS: '3650',
    }))).toMatchObject({ STORE_INTEGRITY_SCRUB_ENABLED: true, STORE_INTEGRITY_SCRUB_BYTES_PER_TICK: 65_536, STORE_ANALYTICS_RETENTION_DAYS: 3650 });
  });

  it('refuses each key out of range or malformed, naming it', () => {
    const cases: Record<string, string> = {
      STORE_INTEGRITY_SCRUB_ENABLED: 'yes',
      STORE_INTEGRITY_SCRUB_INTERVAL_MS: '99',
      STORE_INTEGRITY_SCRUB_OBJECTS_PER_TICK: '0',
      STORE_INTEGRITY_SCRUB_BYTES_PER_TICK: '1024',
      STORE_INTEGRITY_SCRUB_PASS_INTERVAL_HOURS: '0',
      STORE_ANALYTICS_RETENTION_DAYS: '1.5',
    };
    for (const [key, value] of Object.entries(cases)) {
      const found = problems({ [key]: value });
      expect(found).toHaveLength(1);
      expect(found[0]).toMatch(new RegExp(`^${key} is invalid`));
    }
  });
});
