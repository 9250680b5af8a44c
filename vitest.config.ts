import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/integration/**/*.test.ts', 'web/src/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // No retry, in CI either: a test that fails only on a loaded machine is a defect, and .ci/run runs this suite a
    // second time with one core kept busy to find such tests (docs/decisions.md, "One retry in CI").
    retry: 0,
  },
});
