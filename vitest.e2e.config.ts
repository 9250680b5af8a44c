// End-to-end suite: real Debian S3 clients (AWS CLI v1/v2, s3cmd, rclone, boto3) against the built server.
// Run with `npm run test:e2e` (builds first). One file at a time: each starts its own server and moves
// hundreds of MiB, and the CI machines have 2 cores.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/e2e/**/*.test.ts'],
    testTimeout: 240_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // CI machines are shared and noisy: a test gets one more try there (docs/decisions.md, "One retry in CI").
    retry: process.env['CI'] ? 1 : 0,
    fileParallelism: false,
    maxWorkers: 1,
  },
});
