// Unit tests: beside the code, in src/ and web/src/. No build and no child server: `npm run test:unit` runs them
// alone in under a minute. A test that needs the built server (bin/store.js) belongs in test/integration.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'unit',
    include: ['src/**/*.test.ts', 'web/src/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // No retry, in CI either: a test that fails only on a loaded machine is a defect (docs/decisions.md, "One retry
    // in CI").
    retry: 0,
  },
});
