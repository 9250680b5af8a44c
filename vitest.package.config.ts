// The package suite (.ci/package.sh installs the packed tarball and runs this with STORE_PACKAGE_BIN set).
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/package/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // CI machines are shared and noisy: a test gets one more try there (docs/decisions.md, "One retry in CI").
    retry: process.env['CI'] ? 1 : 0,
  },
});
