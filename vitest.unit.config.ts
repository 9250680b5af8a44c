// Unit tests: beside the code, in src/ and web/src/. No build and no child server: `npm run test:unit` runs them
// alone in under a minute. A test that needs the built server (bin/store.js) belongs in test/integration.
import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'unit',
    include: ['src/**/*.test.ts', 'web/src/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // The files of a worker share its loaded modules instead of importing Fastify, the AWS SDK and the services afresh
    // for each of 160 files, which took two thirds of the tier's CPU time. A test that mocks a module (vi.mock) resets
    // the module registry before importing what it tests (src/lib/bulk-heap.test.ts).
    isolate: false,
    // Every core (vitest leaves one to its main process, which has little to do here): one worker on a 2-core machine
    // took twice as long.
    maxWorkers: availableParallelism(),
    // No retry, in CI either: a test that fails only on a loaded machine is a defect (docs/decisions.md, "One retry
    // in CI").
    retry: 0,
    // In `vitest run` (both projects) this tier runs first, then the integration tier (vitest.integration.config.ts):
    // projects with different maxWorkers need their own group.
    sequence: { groupOrder: 0 },
  },
});
