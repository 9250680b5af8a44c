// Integration tests: test/integration, against the built server (`npm run build` first) started through the one
// fixture in test/helpers/store.ts, with real S3 and admin clients.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'integration',
    include: ['test/integration/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // No retry, in CI either: .ci/run runs this suite a second time with one core kept busy to find tests that fail
    // only on a loaded machine (docs/decisions.md, "One retry in CI").
    retry: 0,
    // After the unit tier in `vitest run` (vitest.unit.config.ts, groupOrder 0).
    sequence: { groupOrder: 1 },
  },
});
