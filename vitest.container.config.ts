// The container suite (.ci/container.sh builds the image and runs this with STORE_IMAGE set): one image, one
// container at a time, in order; no retry, since each test builds on the container state the one before left.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/container/**/*.test.ts'],
    testTimeout: 180_000,
    hookTimeout: 180_000,
    pool: 'forks',
    fileParallelism: false,
    maxWorkers: 1,
    retry: 0,
  },
});
