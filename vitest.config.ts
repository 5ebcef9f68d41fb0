import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['**/*.test.ts'],
    // The slower tiers run on their own: `npm run test:faults` and `npm run test:deploy`.
    exclude: ['node_modules/**', 'data/**', '.tmp/**', 'test/faults/**', 'deploy/image-build.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    // Two cores: black-box suites boot whole services, so keep file concurrency modest.
    maxWorkers: 2,
    reporters: ['default'],
  },
});
