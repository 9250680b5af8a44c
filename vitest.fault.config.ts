// Fault and stress suites (issue 11): crash loops, a full disk, failing remotes and receivers, hostile clients and a
// short soak against the built server. Run with `npm run test:fault` (builds first). One file at a time: several
// kill the server, fill a filesystem or hold thousands of sockets, and the CI machines have 2 cores.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/fault/**/*.test.ts'],
    testTimeout: 300_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // CI machines are shared and noisy: a test gets one more try there (docs/decisions.md, "One retry in CI").
    retry: process.env['CI'] ? 1 : 0,
    fileParallelism: false,
    maxWorkers: 1,
  },
});
