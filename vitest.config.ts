import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/integration/**/*.test.ts', 'web/src/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // CI machines are shared and noisy: a test gets one more try there (docs/decisions.md, "One retry in CI").
    retry: process.env['CI'] ? 1 : 0,
  },
});
