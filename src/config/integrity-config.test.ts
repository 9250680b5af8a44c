// The integrity and analytics keys through loadConfig: documented defaults, accepted values, and refusals naming
// the key.

import { describe, expect, it } from 'vitest';
import { configEnv as env, configProblems as problems } from '../../test/helpers/config-env.js';
import { loadConfig } from './config.js';

describe('integrity and analytics configuration', () => {
  it('defaults: scrubber off, 1 s ticks of 100 versions and 8 MiB, weekly passes, 90 days of analytics', () => {
    expect(loadConfig(env({}))).toMatchObject({
      STORE_INTEGRITY_SCRUB_ENABLED: false,
      STORE_INTEGRITY_SCRUB_INTERVAL_MS: 1000,
      STORE_INTEGRITY_SCRUB_OBJECTS_PER_TICK: 100,
      STORE_INTEGRITY_SCRUB_BYTES_PER_TICK: 8 * 1024 * 1024,
      STORE_INTEGRITY_SCRUB_PASS_INTERVAL_HOURS: 168,
      STORE_ANALYTICS_RETENTION_DAYS: 90,
    });
  });

  it('accepts values in range', () => {
    expect(
      loadConfig(
        env({
          STORE_INTEGRITY_SCRUB_ENABLED: 'true',
          STORE_INTEGRITY_SCRUB_INTERVAL_MS: '100',
          STORE_INTEGRITY_SCRUB_OBJECTS_PER_TICK: '1',
          STORE_INTEGRITY_SCRUB_BYTES_PER_TICK: '65536',
          STORE_INTEGRITY_SCRUB_PASS_INTERVAL_HOURS: '1',
          STORE_ANALYTICS_RETENTION_DAYS: '3650',
        }),
      ),
    ).toMatchObject({
      STORE_INTEGRITY_SCRUB_ENABLED: true,
      STORE_INTEGRITY_SCRUB_BYTES_PER_TICK: 65_536,
      STORE_ANALYTICS_RETENTION_DAYS: 3650,
    });
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
