// loadConfig for the observability keys: METRICS_MODE / METRICS_TOKEN, USAGE_ROLLUP_INTERVAL_MS, OTEL_TRACING_ENABLED.

import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { configEnv as env, configProblems as problems } from '../../test/helpers/config-env.js';
import { loadConfig } from './config.js';

describe('observability configuration', () => {
  it('defaults: metrics off, no token, a 15-minute rollup, tracing off', () => {
    const cfg = loadConfig(env());
    expect(cfg).toMatchObject({ METRICS_MODE: 'off', USAGE_ROLLUP_INTERVAL_MS: 900_000, OTEL_TRACING_ENABLED: false });
    expect(cfg.METRICS_TOKEN).toBeUndefined();
  });

  it('accepts public and token modes, a strong token, an interval in range and tracing on', () => {
    const token = randomBytes(36).toString('base64url');
    expect(loadConfig(env({ METRICS_MODE: 'public' })).METRICS_MODE).toBe('public');
    const cfg = loadConfig(
      env({
        METRICS_MODE: 'token',
        METRICS_TOKEN: token,
        USAGE_ROLLUP_INTERVAL_MS: '60000',
        OTEL_TRACING_ENABLED: 'true',
      }),
    );
    expect(cfg).toMatchObject({
      METRICS_MODE: 'token',
      METRICS_TOKEN: token,
      USAGE_ROLLUP_INTERVAL_MS: 60_000,
      OTEL_TRACING_ENABLED: true,
    });
    expect(loadConfig(env({ OTEL_TRACING_ENABLED: 'false' })).OTEL_TRACING_ENABLED).toBe(false);
  });

  it('refuses token mode without a token', () => {
    expect(problems({ METRICS_MODE: 'token' })).toEqual([
      expect.stringMatching(/^METRICS_TOKEN is required when METRICS_MODE is token/),
    ]);
  });

  it.each([
    ['short', 'Ab1!Ab1!Ab1!'],
    ['one repeated character', 'x'.repeat(40)],
    ['a placeholder', `changeme-${randomBytes(24).toString('hex')}`],
    ['low entropy', 'abababababababababababababababababab12'],
  ])('refuses a %s METRICS_TOKEN without echoing it', (_label, token) => {
    const found = problems({ METRICS_MODE: 'token', METRICS_TOKEN: token });
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/^METRICS_TOKEN /);
    expect(found.join('\n')).not.toContain(token);
  });

  it('refuses a weak METRICS_TOKEN even when the mode does not use it (it would be used the day the mode changes)', () => {
    expect(problems({ METRICS_MODE: 'public', METRICS_TOKEN: 'short' })[0]).toMatch(/^METRICS_TOKEN /);
  });

  it.each(['always', 'Off', 'TOKEN', ' public'])('refuses METRICS_MODE=%j', (mode) => {
    expect(problems({ METRICS_MODE: mode })[0]).toMatch(/^METRICS_MODE is invalid/);
  });

  it.each(['59999', '86400001', '15m', '900000.5', '-1'])(
    'refuses USAGE_ROLLUP_INTERVAL_MS=%j (60 s floor, 1 day cap, integers only)',
    (value) => {
      expect(problems({ USAGE_ROLLUP_INTERVAL_MS: value })[0]).toMatch(/^USAGE_ROLLUP_INTERVAL_MS is invalid/);
    },
  );

  it.each(['1', '0', 'yes', 'TRUE', 'on'])('refuses OTEL_TRACING_ENABLED=%j (only true or false)', (value) => {
    expect(problems({ OTEL_TRACING_ENABLED: value })).toEqual([
      expect.stringMatching(/^OTEL_TRACING_ENABLED is invalid/),
    ]);
  });
});
