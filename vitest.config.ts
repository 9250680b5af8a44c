// `vitest run` with no --config: both speed tiers of `npm test`, the unit tests (vitest.unit.config.ts) and the
// integration tests (vitest.integration.config.ts, which need `npm run build`). The e2e and fault suites have their
// own configurations and scripts.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: ['./vitest.unit.config.ts', './vitest.integration.config.ts'],
  },
});
