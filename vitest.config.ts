import { defineConfig } from 'vitest/config';
import { DEPLOY_SUITES, E2E_SUITES, FAULT_SUITES } from './test/tiers.ts';

export default defineConfig({
  test: {
    include: ['**/*.test.ts'],
    // The slower tiers run on their own: `npm run test:e2e`, `test:faults` and `test:deploy`.
    exclude: ['node_modules/**', 'data/**', '.tmp/**', ...E2E_SUITES, ...FAULT_SUITES, ...DEPLOY_SUITES],
    globalSetup: ['test/support/global-setup.ts'],
    // A hang guard, not a speed goal: a test that spawns the admin CLI six times (two organisations
    // with keys) took over 30 s on a loaded 2-core host.
    testTimeout: 90_000,
    hookTimeout: 120_000,
    // Two cores: black-box suites boot whole services, so keep file concurrency modest.
    maxWorkers: 2,
    reporters: ['default'],
  },
});
